// File: child_process.h
// Runs an external program (gnuplot, git, dpkg-query) for the report: no shell (the argument
// vector goes to posix_spawnp as is, so no quoting can go wrong), its stdin from a string, its
// stdout and stderr captured, and a time limit after which it is killed. Thread-safe: the captures
// are close-on-exec memory files, so a child spawned by another thread inherits none of them.
#pragma once

#include <string>
#include <vector>

namespace ropecheck::report {

struct ChildOutcome {
  bool started = false;    // false: the program could not be run (not on PATH, not executable)
  int start_errno = 0;     // why not started (ENOENT: not found on PATH)
  std::string start_error; // its strerror text
  bool timed_out = false;  // killed (SIGKILL) after the time limit
  int exit_code = -1;      // the exit status when it exited normally, else -1 (signal, timeout)
  std::string out, err;    // everything it wrote to stdout and stderr
  bool ok() const { return started && !timed_out && exit_code == 0; }
};

// Runs argv[0] (searched on PATH) with the arguments argv[1..], in directory `cwd` (the caller's
// when empty), stdin reading `input`, and waits at most `timeout_seconds` (> 0) for it to exit.
// The child inherits the caller's environment. Never throws for a failure of the program; throws
// std::invalid_argument for an empty argv and std::runtime_error when the capture files cannot be
// made.
ChildOutcome run_child(const std::vector<std::string>& argv, const std::string& cwd = "", const std::string& input = "",
                       double timeout_seconds = 60);

}  // namespace ropecheck::report

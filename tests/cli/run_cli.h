// Runs the built `ropecheck` binary (ROPECHECK_CLI, set by tests/CMakeLists.txt) the way a user
// does, for the tests of the CLI's contract: exit code and the text of one stream.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace ropecheck::test {

struct CliRun {
  int status;       // exit code, or 128 + signal
  std::string out;  // stdout, or stderr when captured
};

// Runs the CLI with `args` (shell words); captures stderr when `capture_stderr`, else stdout.
inline CliRun run_cli(const std::string& args, bool capture_stderr) {
  const std::string redirect = capture_stderr ? " 2>&1 >/dev/null" : " 2>/dev/null";
  const std::string cmd = std::string(ROPECHECK_CLI) + " " + args + redirect;
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string out;
  if (pipe == nullptr) return {-1, "popen failed"};
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  const int raw = pclose(pipe);
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw), out};
}

}  // namespace ropecheck::test

// Runs the built `ropecheck` binary (ROPECHECK_CLI, set by tests/CMakeLists.txt) the way a user
// does, for the tests of the CLI's contract: exit code, stdout and stderr. The one runner every
// CLI test uses.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ropecheck::test {

struct CliStreams {
  int status;       // exit code, or 128 + signal
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs the CLI with `args` (shell words), capturing both streams (stderr through a temporary file
// named by this process and a counter, so concurrent test processes do not collide).
inline CliStreams run_cli_streams(const std::string& args) {
  static int counter = 0;
  const std::filesystem::path err_path = std::filesystem::temp_directory_path() /
      ("ropecheck_cli_err_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  const std::string cmd = std::string(ROPECHECK_CLI) + " " + args + " 2>" + err_path.string();
  CliStreams r{-1, "", ""};
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return {-1, "", "popen failed"};
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  const int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  std::stringstream ss;
  ss << std::ifstream(err_path).rdbuf();
  r.err = ss.str();
  std::filesystem::remove(err_path);
  return r;
}

struct CliRun {
  int status;       // exit code, or 128 + signal
  std::string out;  // stdout, or stderr when captured
};

// Runs the CLI with `args`; returns stderr when `capture_stderr`, else stdout.
inline CliRun run_cli(const std::string& args, bool capture_stderr) {
  const CliStreams r = run_cli_streams(args);
  return {r.status, capture_stderr ? r.err : r.out};
}

}  // namespace ropecheck::test

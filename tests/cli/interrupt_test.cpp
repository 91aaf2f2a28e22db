// An interrupted `ropecheck` leaves no temporary and no half-written output, and exits 128 +
// signal (io/temporaries.h; cli/main.cpp installs the cleanup). Each case starts the real binary,
// interrupts it while it works, and lists what is left in its output directory. A run killed with
// SIGKILL cannot clean up: the next run does (Killed.*).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/files.h"

namespace ropecheck {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Starts ROPECHECK_CLI with `args` in `cwd`, stdout and stderr to cwd/log.txt.
pid_t start(const fs::path& cwd, const std::vector<std::string>& args) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(cwd.c_str()) != 0) ::_exit(97);
    if (!std::freopen("log.txt", "w", stdout) || ::dup2(::fileno(stdout), 2) < 0) ::_exit(98);
    std::vector<char*> argv{const_cast<char*>(ROPECHECK_CLI)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(ROPECHECK_CLI, argv.data());
    ::_exit(99);
  }
  return pid;
}

// Every entry under `dir` (recursively), as paths relative to it, sorted.
std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) out.push_back(fs::relative(e.path(), dir).string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + " ";
  return s;
}

// Waits until some entry of `dir` starts with `prefix` (at most 60 s). Returns: whether one did.
bool wait_for_entry(const fs::path& dir, const std::string& prefix) {
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  while (Clock::now() < deadline) {
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().filename().string().rfind(prefix, 0) == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

int stop(pid_t pid, int signal) {
  ::kill(pid, signal);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(Interrupt, ReportLeavesNoTemporaryDirectory) {
  // The issue's case: Ctrl-C seconds into `report --smoke --out R` left .R.tmp-XXXXXX behind.
  const fs::path d = test::fresh_dir("interrupt_report");
  const pid_t pid = start(d, {"report", "--smoke", "--out", "R"});
  ASSERT_TRUE(wait_for_entry(d, ".R.tmp-")) << "the report never created its temporary directory: " << joined(listing(d));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // inside the sections' work
  EXPECT_EQ(stop(pid, SIGINT), 130);
  EXPECT_EQ(joined(listing(d)), "log.txt ") << "left behind after SIGINT";
  fs::remove_all(d);
}

TEST(Interrupt, MontecarloWritesNothing) {
  // fig2b at its default size runs ~20 s on two cores: SIGTERM after 0.5 s interrupts it.
  const fs::path d = test::fresh_dir("interrupt_montecarlo");
  const pid_t pid = start(d, {"montecarlo", "--experiment", "fig2b", "--threads", "1", "--out", "fig2b.json", "--csv", "fig2b.csv"});
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(stop(pid, SIGTERM), 143);
  EXPECT_EQ(joined(listing(d)), "log.txt ");
  fs::remove_all(d);
}

TEST(Interrupt, FuzzKeepsOnlyWholeCounterexamples) {
  // A kernel fuzz writes a counterexample file only for a violation (none on this kernel); a
  // channel fuzz writes them as it finds them, each through a registered temporary. Either way
  // nothing but whole <sha256>.json files may remain.
  const fs::path d = test::fresh_dir("interrupt_fuzz");
  const pid_t pid = start(d, {"fuzz", "--target", "channel", "--config", "gemma-7b", "--budget", "120", "--out", "cx"});
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(stop(pid, SIGINT), 130);
  for (const std::string& entry : listing(d)) {
    const std::string name = fs::path(entry).filename().string();
    EXPECT_TRUE(name == "log.txt" || name == "cx" || name == "channel" || (name.size() == 69 && name.substr(64) == ".json"))
        << "left behind: " << entry;
  }
  fs::remove_all(d);
}


// Waits until `file` contains `text` (at most 60 s). Returns: whether it did.
bool wait_for_text(const fs::path& file, const std::string& text) {
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  while (Clock::now() < deadline) {
    if (test::read_bytes(file).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

TEST(Killed, AReportKilledWithSigkillIsCleanedUpByTheNextRun) {
  // SIGKILL cannot be caught: the first run leaves .R.tmp-<pid>-XXXXXX behind. The next run finds
  // it by its name and dead PID, removes it and says so in one line, before its own work.
  const fs::path d = test::fresh_dir("killed_report");
  const pid_t first = start(d, {"report", "--smoke", "--out", "R"});
  ASSERT_TRUE(wait_for_entry(d, ".R.tmp-" + std::to_string(first) + "-")) << joined(listing(d));
  EXPECT_EQ(stop(first, SIGKILL), 128 + SIGKILL);
  std::string leftover;
  for (const auto& e : fs::directory_iterator(d))
    if (e.path().filename().string().rfind(".R.tmp-", 0) == 0) leftover = e.path().filename().string();
  ASSERT_FALSE(leftover.empty()) << "SIGKILL left nothing to clean: " << joined(listing(d));
  fs::rename(d / "log.txt", d / "first.txt");
  const pid_t second = start(d, {"report", "--smoke", "--out", "R"});
  ASSERT_TRUE(wait_for_text(d / "log.txt", "removed the stale temporaries of a killed run: " + leftover + " (PID " + std::to_string(first) + ")"))
      << test::read_bytes(d / "log.txt");
  EXPECT_EQ(stop(second, SIGINT), 130);
  EXPECT_FALSE(fs::exists(d / leftover));
  EXPECT_EQ(joined(listing(d)), "first.txt log.txt ");
  fs::remove_all(d);
}

TEST(Killed, MontecarloRemovesAKilledWritersTemporaryBesideItsOutput) {
  // A run killed inside atomic_write leaves .<out>.tmp.<pid>: the next run writing that output
  // removes it (one line on stderr) and writes its own file.
  const fs::path d = test::fresh_dir("killed_montecarlo");
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  const std::string stale = ".fig2a.json.tmp." + std::to_string(child);
  { std::ofstream(d / stale) << "{\"half"; }
  const pid_t run = start(d, {"montecarlo", "--experiment", "fig2a", "--out", "fig2a.json"});
  int status = 0;
  ::waitpid(run, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << test::read_bytes(d / "log.txt");
  EXPECT_NE(test::read_bytes(d / "log.txt").find("removed the stale temporaries of a killed run: " + stale), std::string::npos)
      << test::read_bytes(d / "log.txt");
  EXPECT_EQ(joined(listing(d)), "fig2a.json log.txt ");
  fs::remove_all(d);
}

}  // namespace
}  // namespace ropecheck

// io/temporaries.h: a registered temporary is removed by its destructor and by an interrupt, never
// after it was published; a process that installed the cleanup exits 128 + signal. The interrupt
// cases run in a forked child (the cleanup ends the process).
#include "io/temporaries.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/files.h"

namespace ropecheck {
namespace {

namespace fs = std::filesystem;

void write_file(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

TEST(Temporary, DestructorRemovesWhatIsStillThere) {
  const fs::path d = test::fresh_dir("temporaries_destructor");
  {
    Temporary t((d / "file.tmp").string());
    write_file(d / "file.tmp", "x");
    ASSERT_TRUE(fs::exists(d / "file.tmp"));
  }
  EXPECT_FALSE(fs::exists(d / "file.tmp"));
  {
    Temporary t = Temporary::make_directory((d / "dir.tmp-XXXXXX").string());
    ASSERT_FALSE(t.path().empty());
    write_file(fs::path(t.path()) / "inner", "y");
    ASSERT_TRUE(fs::is_directory(t.path()));
  }
  EXPECT_TRUE(fs::is_empty(d)) << "a temporary directory outlived its Temporary";
  fs::remove_all(d);
}

TEST(Temporary, PublishedFileAndReleasedNameAreKept) {
  const fs::path d = test::fresh_dir("temporaries_published");
  {
    Temporary t((d / ".out.tmp").string());
    write_file(d / ".out.tmp", "content");
    t.commit([&] { fs::rename(d / ".out.tmp", d / "out"); });
  }
  EXPECT_TRUE(fs::exists(d / "out"));
  {
    write_file(d / "someone-elses", "z");
    Temporary t((d / "someone-elses").string());
    t.release();
    EXPECT_TRUE(t.path().empty());
  }
  EXPECT_TRUE(fs::exists(d / "someone-elses")) << "release() must not remove";
  fs::remove_all(d);
}

TEST(Temporary, MakeDirectoryReportsFailure) {
  errno = 0;
  const Temporary t = Temporary::make_directory("/nonexistent-ropecheck-dir/x.tmp-XXXXXX");
  EXPECT_TRUE(t.path().empty());
  EXPECT_NE(errno, 0);
}

// Forks a child that installs the cleanup (optionally ignoring SIGINT first, as a background job
// or nohup does), registers a file and a directory with content, signals readiness through a pipe
// and sleeps; the parent sends `signal` and returns the child's wait status.
int interrupted_child(const fs::path& d, int signal, bool ignore_sigint_first) {
  int ready[2];
  if (::pipe(ready) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (ignore_sigint_first) ::signal(SIGINT, SIG_IGN);
    install_interrupt_cleanup();
    Temporary file((d / ".result.json.tmp.1").string());
    write_file(d / ".result.json.tmp.1", "half-written");
    Temporary dir = Temporary::make_directory((d / ".report.tmp-XXXXXX").string());
    write_file(fs::path(dir.path()) / "run.json", "{}");
    const char byte = 'r';
    if (::write(ready[1], &byte, 1) != 1) ::_exit(90);
    for (int i = 0; i < 200; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ::_exit(91);  // not interrupted within 10 s
  }
  char byte = 0;
  if (::read(ready[0], &byte, 1) != 1) return -1;
  ::close(ready[0]);
  ::close(ready[1]);
  ::kill(pid, signal);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

TEST(InterruptCleanup, SigintRemovesEveryTemporaryAndExits130) {
  const fs::path d = test::fresh_dir("temporaries_sigint");
  const int status = interrupted_child(d, SIGINT, false);
  ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_TRUE(fs::is_empty(d)) << "a temporary survived the interrupt";
  fs::remove_all(d);
}

TEST(InterruptCleanup, SigtermExits143) {
  const fs::path d = test::fresh_dir("temporaries_sigterm");
  const int status = interrupted_child(d, SIGTERM, false);
  ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 143);
  EXPECT_TRUE(fs::is_empty(d));
  fs::remove_all(d);
}

TEST(InterruptCleanup, AnIgnoredSignalStaysIgnored) {
  // Started ignoring SIGINT: the SIGINT is not waited for; the child sleeps on until killed.
  const fs::path d = test::fresh_dir("temporaries_ignored");
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::signal(SIGINT, SIG_IGN);
    install_interrupt_cleanup();
    const char byte = 'r';
    if (::write(ready[1], &byte, 1) != 1) ::_exit(90);
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    ::_exit(0);  // still alive after the SIGINT
  }
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  ::close(ready[0]);
  ::close(ready[1]);
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  fs::remove_all(d);
}


// A PID that names no running process: a child that has exited and been reaped. (The kernel hands
// PIDs out in increasing order, so it is not reused within the test.)
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

TEST(StaleTemporaries, AKilledRunsLeftoversAreRemovedAndALiveProcessesAreLeftAlone) {
  const fs::path d = test::fresh_dir("temporaries_stale");
  const std::string dead = std::to_string(dead_pid()), alive = std::to_string(::getpid());
  write_file(d / "out.json", "published");
  write_file(d / (".out.json.tmp." + dead), "half");                // atomic_write's
  write_file(d / (".out.json.tmp." + dead + ".3"), "half");         // atomic_create's
  fs::create_directory(d / (".out.json.tmp-" + dead + "-a1B2c3"));  // a directory's
  write_file(d / (".out.json.tmp-" + dead + "-a1B2c3") / "inner", "x");
  write_file(d / (".out.json.tmp." + alive), "mine");                // a running process's
  // Names of other files, or not in a temporary's form, are never touched.
  const std::vector<std::string> others = {".out.json.tmp.", ".out.json.tmp.12x", ".out.json.tmp-" + dead + "-short",
                                           ".other.json.tmp." + dead, "out.json.tmp." + dead, ".out.json.bak." + dead};
  for (const std::string& other : others) write_file(d / other, "keep");
  const std::string line = sweep_stale_temporaries((d / "out.json").string());
  std::cout << "line=" << line << "\n";
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_NE(line.find("removed the stale temporaries of a killed run: "), std::string::npos) << line;
  EXPECT_NE(line.find("(PID " + dead + ")"), std::string::npos) << line;
  EXPECT_NE(line.find("left alone the temporaries of running processes: .out.json.tmp." + alive), std::string::npos) << line;
  EXPECT_FALSE(fs::exists(d / (".out.json.tmp." + dead)));
  EXPECT_FALSE(fs::exists(d / (".out.json.tmp." + dead + ".3")));
  EXPECT_FALSE(fs::exists(d / (".out.json.tmp-" + dead + "-a1B2c3")));
  EXPECT_TRUE(fs::exists(d / (".out.json.tmp." + alive)));
  EXPECT_TRUE(fs::exists(d / "out.json"));
  for (const std::string& other : others) EXPECT_TRUE(fs::exists(d / other)) << other;
  fs::remove(d / (".out.json.tmp." + alive));
  EXPECT_EQ(sweep_stale_temporaries((d / "out.json").string()), "") << "nothing left to say";
}

TEST(StaleTemporaries, AReportMovedAsideIsPutBackWhenItsReplacementNeverArrived) {
  const fs::path d = test::fresh_dir("temporaries_old");
  const std::string dead = std::to_string(dead_pid());
  fs::create_directory(d / (".rep.old-" + dead));
  write_file(d / (".rep.old-" + dead) / "run.json", "{}");
  const std::string line = sweep_stale_temporaries((d / "rep").string());
  EXPECT_NE(line.find("put back the report a killed run had moved aside: .rep.old-" + dead), std::string::npos) << line;
  EXPECT_TRUE(fs::exists(d / "rep" / "run.json"));
  // With the new report in place, the old one is a leftover.
  fs::create_directory(d / (".rep.old-" + dead));
  EXPECT_NE(sweep_stale_temporaries((d / "rep").string()).find("removed"), std::string::npos);
  EXPECT_FALSE(fs::exists(d / (".rep.old-" + dead)));
  EXPECT_TRUE(fs::exists(d / "rep" / "run.json"));
}

TEST(StaleTemporaries, DirectoryPatternHoldsThePid) {
  const std::string pattern = temporary_directory_pattern("some/dir/report");
  EXPECT_EQ(pattern, "some/dir/.report.tmp-" + std::to_string(::getpid()) + "-XXXXXX");
  EXPECT_EQ(temporary_directory_pattern("report"), "./.report.tmp-" + std::to_string(::getpid()) + "-XXXXXX");
}

}  // namespace
}  // namespace ropecheck

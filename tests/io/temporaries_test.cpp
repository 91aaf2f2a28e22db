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
#include <string>
#include <thread>

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

}  // namespace
}  // namespace ropecheck

#include "report/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace ropecheck::report {

namespace {

// A memory file (memfd): unlike a pipe it never fills up, so the parent need not drain it while
// waiting, and the child can never block on a full pipe or die of SIGPIPE.
class MemFile {
 public:
  explicit MemFile(const char* name) : fd_(::memfd_create(name, MFD_CLOEXEC)) {
    if (fd_ < 0) throw std::runtime_error(std::string("memfd_create: ") + std::strerror(errno));
  }
  ~MemFile() { ::close(fd_); }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;
  int fd() const { return fd_; }

  void write_all(const std::string& text) {
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw std::runtime_error(std::string("write to memfd: ") + std::strerror(errno));
      done += static_cast<std::size_t>(n);
    }
    ::lseek(fd_, 0, SEEK_SET);
  }

  std::string read_all() const {
    std::string text;
    char buf[8192];
    off_t at = 0;
    for (;;) {
      const ssize_t n = ::pread(fd_, buf, sizeof buf, at);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      text.append(buf, static_cast<std::size_t>(n));
      at += n;
    }
    return text;
  }

 private:
  int fd_;
};

class FileActions {
 public:
  FileActions() { ::posix_spawn_file_actions_init(&fa_); }
  ~FileActions() { ::posix_spawn_file_actions_destroy(&fa_); }
  FileActions(const FileActions&) = delete;
  FileActions& operator=(const FileActions&) = delete;
  posix_spawn_file_actions_t* get() { return &fa_; }

 private:
  posix_spawn_file_actions_t fa_;
};

// The child starts with an empty signal mask: the CLI blocks SIGINT/SIGTERM/SIGHUP in its threads
// (io/temporaries.h), and a child inheriting that mask would survive a Ctrl-C.
class SpawnAttributes {
 public:
  SpawnAttributes() {
    ::posix_spawnattr_init(&attr_);
    sigset_t empty;
    sigemptyset(&empty);
    ::posix_spawnattr_setsigmask(&attr_, &empty);
    ::posix_spawnattr_setflags(&attr_, POSIX_SPAWN_SETSIGMASK);
  }
  ~SpawnAttributes() { ::posix_spawnattr_destroy(&attr_); }
  SpawnAttributes(const SpawnAttributes&) = delete;
  SpawnAttributes& operator=(const SpawnAttributes&) = delete;
  const posix_spawnattr_t* get() const { return &attr_; }

 private:
  posix_spawnattr_t attr_;
};

}  // namespace

ChildOutcome run_child(const std::vector<std::string>& argv, const std::string& cwd, const std::string& input,
                       double timeout_seconds) {
  if (argv.empty() || argv[0].empty()) throw std::invalid_argument("run_child: empty argv");
  MemFile in("child-stdin"), out("child-stdout"), err("child-stderr");
  in.write_all(input);

  FileActions actions;
  // dup2 clears close-on-exec on the target descriptor, so only 0, 1, 2 reach the program.
  ::posix_spawn_file_actions_adddup2(actions.get(), in.fd(), 0);
  ::posix_spawn_file_actions_adddup2(actions.get(), out.fd(), 1);
  ::posix_spawn_file_actions_adddup2(actions.get(), err.fd(), 2);
  // glibc >= 2.29; a per-child chdir, unlike chdir(2) in the parent, does not race other threads.
  if (!cwd.empty()) ::posix_spawn_file_actions_addchdir_np(actions.get(), cwd.c_str());

  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  ChildOutcome outcome;
  pid_t pid = -1;
  // glibc reports a failed exec (ENOENT when not on PATH, a bad cwd) as posix_spawnp's result.
  const SpawnAttributes attributes;
  const int rc = ::posix_spawnp(&pid, args[0], actions.get(), attributes.get(), args.data(), environ);
  if (rc != 0) {
    outcome.start_errno = rc;
    outcome.start_error = std::strerror(rc);
    return outcome;
  }
  outcome.started = true;

  // Polling waitpid with a growing sleep (1 ms .. 20 ms): simple, no SIGCHLD handler that could
  // collide with the embedding program's, and a latency negligible next to gnuplot's start-up.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  auto pause = std::chrono::milliseconds(1);
  int status = 0;
  for (;;) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {
      outcome.start_error = std::string("waitpid: ") + std::strerror(errno);
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      outcome.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
  if (!outcome.timed_out && outcome.start_error.empty() && WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  outcome.out = out.read_all();
  outcome.err = err.read_all();
  return outcome;
}

}  // namespace ropecheck::report

#include "io/temporaries.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

namespace ropecheck {
namespace {

// The registry: path -> how many live Temporary objects name it (a name is normally unique; a count
// keeps a stray duplicate from deregistering the other).
struct Registry {
  std::mutex mutex;
  std::map<std::string, int> paths;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: the cleanup thread may use it during exit
  return *r;
}

void add(const std::string& path) {
  if (!path.empty()) ++registry().paths[path];
}

// Precondition: the registry's lock is held.
void forget(const std::string& path) {
  auto& paths = registry().paths;
  const auto it = paths.find(path);
  if (it != paths.end() && --it->second <= 0) paths.erase(it);
}

// Precondition: the registry's lock is held.
void remove_and_forget(const std::string& path) {
  if (path.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
  forget(path);
}

[[noreturn]] void clean_up_and_exit(int signal) {
  Registry& r = registry();
  r.mutex.lock();  // held until _exit: no temporary is created or committed after this point
  std::error_code ec;
  for (const auto& [path, count] : r.paths) std::filesystem::remove_all(path, ec);
  const char* name = signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : signal == SIGHUP ? "SIGHUP" : "a signal";
  std::fprintf(stderr, "ropecheck: interrupted by %s; %zu temporar%s removed\n", name, r.paths.size(),
               r.paths.size() == 1 ? "y" : "ies");
  std::fflush(stderr);
  ::_exit(128 + signal);
}

}  // namespace

Temporary::Temporary(std::string path) : path_(std::move(path)) {
  std::lock_guard lock(registry().mutex);
  add(path_);
}

Temporary Temporary::make_directory(std::string pattern) {
  Temporary t;
  std::lock_guard lock(registry().mutex);
  if (::mkdtemp(pattern.data()) == nullptr) return t;
  t.path_ = std::move(pattern);
  add(t.path_);
  return t;
}

Temporary::Temporary(Temporary&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }

Temporary& Temporary::operator=(Temporary&& other) noexcept {
  if (this != &other) {
    if (!path_.empty()) {
      std::lock_guard lock(registry().mutex);
      remove_and_forget(path_);
    }
    path_ = std::move(other.path_);
    other.path_.clear();
  }
  return *this;
}

Temporary::~Temporary() {
  if (path_.empty()) return;
  std::lock_guard lock(registry().mutex);
  remove_and_forget(path_);
}

void Temporary::release() {
  if (path_.empty()) return;
  std::lock_guard lock(registry().mutex);
  forget(path_);
  path_.clear();
}

void Temporary::commit(const std::function<void()>& publish) {
  std::lock_guard lock(registry().mutex);
  publish();
}

void install_interrupt_cleanup() {
  static std::once_flag once;
  std::call_once(once, [] {
    sigset_t set;
    sigemptyset(&set);
    bool any = false;
    for (int s : {SIGINT, SIGTERM, SIGHUP}) {
      // A signal the process was started ignoring (nohup, a background job's SIGINT) stays ignored:
      // a blocked signal is never discarded, so waiting for it would turn it back on.
      struct sigaction current {};
      if (::sigaction(s, nullptr, &current) == 0 && current.sa_handler == SIG_IGN) continue;
      sigaddset(&set, s);
      any = true;
    }
    if (!any) return;
    ::pthread_sigmask(SIG_BLOCK, &set, nullptr);
    std::thread([set] {
      for (;;) {
        int signal = 0;
        if (::sigwait(&set, &signal) == 0) clean_up_and_exit(signal);
      }
    }).detach();
  });
}

}  // namespace ropecheck

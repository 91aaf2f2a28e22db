#include "io/temporaries.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

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

// Returns: the PID in a temporary's name after ".<name>.": "tmp.<pid>", "tmp.<pid>.<n>",
// "tmp-<pid>-XXXXXX", "old-<pid>"; 0 for any other name. old: the ".old-" form.
pid_t temporary_pid(const std::string& suffix, bool& old) {
  old = suffix.rfind("old-", 0) == 0;
  const bool file = suffix.rfind("tmp.", 0) == 0, dir = suffix.rfind("tmp-", 0) == 0;
  if (!old && !file && !dir) return 0;
  std::size_t i = 4, digits = 0;
  long long pid = 0;
  while (i < suffix.size() && std::isdigit(static_cast<unsigned char>(suffix[i])) && digits < 10) {
    pid = pid * 10 + (suffix[i++] - '0');
    ++digits;
  }
  if (digits == 0 || pid <= 0 || pid > 0x3fffffff) return 0;
  const std::string rest = suffix.substr(i);
  bool valid = false;
  if (old) valid = rest.empty();
  else if (dir) valid = rest.size() == 7 && rest[0] == '-';
  else valid = rest.empty() || (rest.size() > 1 && rest[0] == '.' && rest.find_first_not_of("0123456789", 1) == std::string::npos);
  return valid ? static_cast<pid_t>(pid) : 0;
}

bool running(pid_t pid) { return pid == ::getpid() || ::kill(pid, 0) == 0 || errno == EPERM; }

}  // namespace

std::string temporary_directory_pattern(const std::string& target) {
  const std::filesystem::path t(target);
  const std::filesystem::path parent = t.has_parent_path() ? t.parent_path() : std::filesystem::path(".");
  return (parent / ("." + t.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-XXXXXX")).string();
}

std::string sweep_stale_temporaries(const std::string& target) {
  namespace fs = std::filesystem;
  const fs::path t(target);
  const std::string name = t.filename().string();
  if (name.empty() || name == "." || name == "..") return "";
  const fs::path parent = t.has_parent_path() ? t.parent_path() : fs::path(".");
  const std::string prefix = "." + name + ".";
  std::vector<std::string> removed, restored, left, failed;
  std::error_code ec;
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string entry = it->path().filename().string();
    if (entry.rfind(prefix, 0) != 0) continue;
    bool old = false;
    const pid_t pid = temporary_pid(entry.substr(prefix.size()), old);
    if (pid == 0) continue;
    const std::string shown = entry + " (PID " + std::to_string(pid) + ")";
    if (running(pid)) {
      left.push_back(shown);
      continue;
    }
    std::error_code e;
    std::lock_guard lock(registry().mutex);  // no temporary of this process is published meanwhile
    if (old && !fs::exists(t, e)) {
      fs::rename(it->path(), t, e);
      (e ? failed : restored).push_back(shown);
    } else {
      fs::remove_all(it->path(), e);
      (e ? failed : removed).push_back(shown);
    }
  }
  const auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  std::string line;
  const auto part = [&](const std::vector<std::string>& v, const std::string& what) {
    if (!v.empty()) line += (line.empty() ? "" : "; ") + what + " " + list(v);
  };
  part(removed, "removed the stale temporaries of a killed run:");
  part(restored, "put back the report a killed run had moved aside:");
  part(failed, "could not remove stale temporaries:");
  part(left, "left alone the temporaries of running processes:");
  if (line.empty()) return "";
  return "ropecheck: " + parent.string() + ": " + line;
}

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

#include "io/atomic_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "io/input_error.h"
#include "io/temporaries.h"

namespace ropecheck {

void atomic_write(const std::string& path, const std::string& content, const std::string& input) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  if (path.empty() || target.filename().empty()) throw InputError(input, "a file path", path);
  // Same directory as the target, so the rename cannot cross a file system.
  const fs::path tmp = target.parent_path() / ("." + target.filename().string() + ".tmp." + std::to_string(::getpid()));
  const Temporary registered(tmp.string());  // an interrupt removes it (temporaries.h)
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(input, "a path in a writable directory", path);
    out << content;
    out.flush();
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw InputError(input, "a path in a writable directory with free space", path);
    }
  }
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw InputError(input, "a path that can be replaced", path);
  }
}

void check_writable_target(const std::string& path, const std::string& input) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  if (path.empty() || target.filename().empty()) throw InputError(input, "a file path", path);
  const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::error_code ec;
  if (!fs::is_directory(dir, ec) || ::access(dir.c_str(), W_OK) != 0)
    throw InputError(input, "a path in an existing writable directory", path);
  if (fs::is_directory(target, ec)) throw InputError(input, "a file path, not a directory", path);
}

}  // namespace ropecheck

namespace ropecheck {

namespace {

// Writes every byte (write(2) may write fewer than asked, or be interrupted).
bool write_all(int fd, const std::string& content) {
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

std::string errno_text(const std::string& what, int err) { return what + ": " + std::strerror(err); }

}  // namespace

bool atomic_create(const std::string& path, const std::string& content, const std::string& input) {
  namespace fs = std::filesystem;
  const std::string accepted = "a writable directory";
  const fs::path target(path);
  if (path.empty() || target.filename().empty()) throw InputError(input, accepted, "no file name in '" + path + "'");
  const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  // A name no other writer uses: the pid separates processes, the counter threads of this one, and
  // O_EXCL makes a leftover from a crashed run (same pid reused) a retry rather than a clobber.
  static std::atomic<unsigned long> counter{0};
  std::string tmp;
  Temporary registered;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = (dir / ("." + target.filename().string() + ".tmp." + std::to_string(::getpid()) + "." +
                  std::to_string(counter.fetch_add(1)))).string();
    // 0666 under the umask: the final file gets the permissions any newly created file would.
    registered = Temporary(tmp);  // before open: an interrupt removes it (temporaries.h)
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) registered.release();  // not created, or another writer's (EEXIST): never remove it
    if (fd < 0 && errno != EEXIST) throw InputError(input, accepted, errno_text(dir.string(), errno));
  }
  if (fd < 0) throw InputError(input, accepted, dir.string() + ": no unused temporary name");
  const bool written = write_all(fd, content) && ::fsync(fd) == 0;
  const int write_errno = errno;
  const bool closed = ::close(fd) == 0;
  if (!written || !closed) {
    const int err = !written ? write_errno : errno;
    ::unlink(tmp.c_str());
    throw InputError(input, accepted, errno_text(path, err));
  }
  const int linked = ::link(tmp.c_str(), path.c_str());
  const int link_errno = errno;
  ::unlink(tmp.c_str());
  if (linked != 0) {
    if (link_errno != EEXIST) throw InputError(input, accepted, errno_text(path, link_errno));
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      throw InputError(input, accepted, path + " exists and is not a regular file");
    return false;
  }
  // Make the new name durable too. Some file systems refuse fsync on a directory (EINVAL); the file
  // itself is complete either way, so this is best effort.
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return true;
}

}  // namespace ropecheck

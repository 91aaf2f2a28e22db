#include "io/atomic_write.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "io/input_error.h"

namespace ropecheck {

void atomic_write(const std::string& path, const std::string& content, const std::string& input) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  if (path.empty() || target.filename().empty()) throw InputError(input, "a file path", path);
  // Same directory as the target, so the rename cannot cross a file system.
  const fs::path tmp = target.parent_path() / ("." + target.filename().string() + ".tmp." + std::to_string(::getpid()));
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

// File: support/files.h
// Test support: a temporary directory per test, whole-file reads and writes, the listing of a
// directory tree (for "nothing else was left behind"), and the check that a call throws an
// InputError naming one input. Header-only, for the unit tests.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "io/input_error.h"

namespace ropecheck::test {

// Returns: a fresh, empty directory $TMPDIR/ropecheck_<tag>_<pid> that the caller removes (kept
// when the test stops early, for inspection).
inline std::filesystem::path fresh_dir(const std::string& tag) {
  const std::filesystem::path d = std::filesystem::temp_directory_path() / ("ropecheck_" + tag + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

// A fresh directory $TMPDIR/ropecheck_<tag>_<pid>, removed (write permission restored first) when
// the object goes.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& tag) {
    path = std::filesystem::temp_directory_path() / ("ropecheck_" + tag + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

inline std::string read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_bytes(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

// Returns: every entry below `dir` (files and directories), relative and sorted.
inline std::vector<std::string> tree(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) out.push_back(std::filesystem::relative(e.path(), dir).string());
  std::sort(out.begin(), out.end());
  return out;
}

// Runs `f`, requires an InputError whose input is exactly `input` and whose message contains
// every one of `parts`; prints the message otherwise.
inline void expect_input_error(const std::function<void()>& f, const std::string& input, const std::vector<std::string>& parts = {}) {
  try {
    f();
    ADD_FAILURE() << "no InputError; expected one naming " << input;
  } catch (const InputError& e) {
    EXPECT_EQ(e.input(), input) << e.what();
    for (const auto& p : parts) EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << "missing '" << p << "' in: " << e.what();
  }
}

}  // namespace ropecheck::test

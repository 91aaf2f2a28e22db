#include "io/atomic_write.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "io/input_error.h"

namespace ropecheck {
namespace {

namespace fs = std::filesystem;

TEST(AtomicWrite, WritesWholeContentAndLeavesNoTemporary) {
  const fs::path dir = fs::temp_directory_path() / ("ropecheck_aw_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "out.json";
  atomic_write(file.string(), "first\n");
  atomic_write(file.string(), "second\n");
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), "second\n");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1);
  fs::remove_all(dir);
}

TEST(AtomicWrite, BadDirectoryIsAnInputErrorNamingTheFlag) {
  try {
    atomic_write("/nonexistent-dir-ropecheck/x.json", "x", "--json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.input(), "--json");
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir-ropecheck/x.json"), std::string::npos) << e.what();
  }
  EXPECT_THROW(check_writable_target("/nonexistent-dir-ropecheck/x.json", "--json"), InputError);
  EXPECT_THROW(check_writable_target("", "--json"), InputError);
  EXPECT_NO_THROW(check_writable_target((fs::temp_directory_path() / "x.json").string(), "--json"));
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(AtomicCreate, CreatesOnceAndNeverReplaces) {
  const fs::path dir = fs::temp_directory_path() / ("ropecheck_ac_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path file = dir / "a.json";
  EXPECT_TRUE(atomic_create(file.string(), "first\n", "--out"));
  EXPECT_FALSE(atomic_create(file.string(), "second\n", "--out"));
  EXPECT_EQ(read_all(file), "first\n");
  // Large content (several write(2) calls on some systems) arrives whole.
  const std::string big(3 << 20, 'x');
  EXPECT_TRUE(atomic_create((dir / "big").string(), big, "--out"));
  EXPECT_EQ(read_all(dir / "big"), big);
  EXPECT_TRUE(atomic_create((dir / "empty").string(), "", "--out"));
  EXPECT_EQ(read_all(dir / "empty"), "");
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"a.json", "big", "empty"}));
  // The name is taken by a directory: an error, and the temporary is gone.
  fs::create_directories(dir / "taken");
  try {
    atomic_create((dir / "taken").string(), "x", "--out");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.input(), "--out");
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  }
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"a.json", "big", "empty", "taken"}));
  fs::remove_all(dir);
}

TEST(AtomicCreate, MissingDirectoryIsAnInputError) {
  try {
    atomic_create("/nonexistent-dir-ropecheck/x.json", "x", "--out");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.input(), "--out");
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir-ropecheck"), std::string::npos) << e.what();
  }
  EXPECT_THROW(atomic_create("", "x", "--out"), InputError);
}

}  // namespace
}  // namespace ropecheck

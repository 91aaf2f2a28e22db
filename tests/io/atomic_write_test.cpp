#include "io/atomic_write.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

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

}  // namespace
}  // namespace ropecheck

// Path selection: CPUID-probed list, the ROPECHECK_KERNEL override and its errors.
#include "cpu/path.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "io/input_error.h"

namespace ropecheck::cpu {
namespace {

class ScopedEnv {
 public:
  explicit ScopedEnv(const char* value) {
    if (const char* old = std::getenv("ROPECHECK_KERNEL")) saved_ = old;
    if (value) setenv("ROPECHECK_KERNEL", value, 1);
    else unsetenv("ROPECHECK_KERNEL");
  }
  ~ScopedEnv() {
    if (saved_.empty()) unsetenv("ROPECHECK_KERNEL");
    else setenv("ROPECHECK_KERNEL", saved_.c_str(), 1);
  }

 private:
  std::string saved_;
};

TEST(KernelPath, ScalarIsAlwaysAvailableAndListedFirst) {
  const auto paths = available_paths();
  ASSERT_FALSE(paths.empty());
  EXPECT_EQ(paths.front(), Path::scalar);
  std::string names;
  for (Path p : paths) names += path_name(p) + " ";
  std::printf("[ paths ] this CPU runs: %s\n", names.c_str());
}

// A path added to kPaths without its name, or with a name another path has, fails here.
TEST(KernelPath, EveryListedPathHasItsOwnNameThatParsesBack) {
  std::set<std::string> names;
  for (Path p : all_paths()) {
    const std::string name = path_name(p);
    EXPECT_FALSE(name.empty());
    EXPECT_TRUE(names.insert(name).second) << name << " named twice";
    EXPECT_EQ(parse_any_path(name, "path"), p) << name;
  }
}

// The architecture seam (cmake/Architecture.cmake): a build without the x86 paths runs scalar alone.
TEST(KernelPath, ABuildWithoutX86PathsRunsScalarAlone) {
  if (ROPECHECK_X86) GTEST_SKIP() << "an x86 build: its paths are probed (KernelPath.ScalarIsAlwaysAvailableAndListedFirst)";
  EXPECT_EQ(available_paths(), std::vector<Path>{Path::scalar});
}

TEST(KernelPath, TheEnvironmentForcesEveryAvailablePath) {
  for (Path p : available_paths()) {
    ScopedEnv env(path_name(p).c_str());
    EXPECT_EQ(default_path(), p) << path_name(p);
  }
  ScopedEnv unset(nullptr);
  EXPECT_EQ(default_path(), available_paths().back());
}

TEST(KernelPath, UnknownOrUnavailablePathsAreInputErrorsNamingTheVariable) {
  ScopedEnv env("avx1024");
  try {
    default_path();
    FAIL() << "an unknown path must be refused";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("ROPECHECK_KERNEL"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("scalar"), std::string::npos) << e.what();
  }
  // A path the CPU lacks (when there is one) is refused, not silently replaced.
  for (Path p : all_paths()) {
    bool available = false;
    for (Path q : available_paths()) available = available || q == p;
    if (!available) {
      EXPECT_THROW(parse_path(path_name(p), "--kernel"), InputError) << path_name(p);
    }
  }
}

}  // namespace
}  // namespace ropecheck::cpu

#include "report/run_info.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "io/input_error.h"
#include "tests/support/sanitizers.h"

namespace ropecheck::report {
namespace {

// The words of scripts/setup's `packages=( ... )` and `test_packages=( ... )`, comments removed.
std::vector<std::string> setup_packages(const std::string& source_dir) {
  std::ifstream in(source_dir + "/scripts/setup");
  std::vector<std::string> words;
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!inside) {
      // The main job's list and the tests' (not the cross build's aarch64_packages).
      if (line.rfind("packages=(", 0) == 0) {
        inside = true;
        line = line.substr(10);
      } else if (line.rfind("test_packages=(", 0) == 0) {
        inside = true;
        line = line.substr(15);
      } else {
        continue;
      }
    }
    const std::size_t hash = line.find('#');
    if (hash != std::string::npos) line = line.substr(0, hash);
    const std::size_t close = line.find(')');
    std::istringstream ws(line.substr(0, close));
    std::string w;
    while (ws >> w) words.push_back(w);
    if (close != std::string::npos) inside = false;
  }
  return words;
}

TEST(SourceInfo, KeysAndTypes) {
  const nlohmann::json s = source_info();
  for (const char* key : {"commit", "source_dir", "build_type", "compiler", "compiler_version", "cxx_flags", "fp_contract", "sanitizers"})
    ASSERT_TRUE(s.contains(key) && s[key].is_string()) << key << " in " << s.dump(2);
  const std::string commit = s["commit"];
  const bool hex40 = commit.size() == 40 && std::all_of(commit.begin(), commit.end(), [](char c) {
                       return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                     });
  EXPECT_TRUE(hex40 || commit == "unknown") << commit;
  ASSERT_TRUE(s.contains("dirty"));
  EXPECT_TRUE(s["dirty"].is_boolean() || s["dirty"] == "unknown") << s["dirty"];
  if (hex40) {
    EXPECT_TRUE(s["dirty"].is_boolean()) << "git answered rev-parse but not status: " << s.dump(2);
  }
  EXPECT_EQ(s["fast_math"], false);
  EXPECT_NE(s["build_type"], "unknown");
#if defined(__clang__)
  EXPECT_EQ(s["compiler"], "Clang");  // the sanitize build
#else
  EXPECT_EQ(s["compiler"], "GNU");
#endif
  // The top CMakeLists.txt adds -ffp-contract=off to every file; the flags must carry it.
  EXPECT_NE(s["cxx_flags"].get<std::string>().find("-ffp-contract=off"), std::string::npos) << s["cxx_flags"];
  EXPECT_EQ(s["fp_contract"], "off");
#ifdef ROPECHECK_TEST_ASAN
  EXPECT_EQ(s["sanitizers"], "address,undefined");
#else
  EXPECT_EQ(s["sanitizers"], "");
#endif
  EXPECT_EQ(source_info(), s) << "not a pure function of the build and the checkout";
}

// dependency_packages() (the lists CMake read from scripts/setup at configure time) is the script's
// packages=( ) then test_packages=( ), parsed here independently: same packages, same order.
TEST(DependencyPackages, EqualScriptsSetup) {
  const std::string dir = source_info()["source_dir"];
  const std::vector<std::string> setup = setup_packages(dir);
  ASSERT_FALSE(setup.empty()) << "no packages=( ... ) in " << dir << "/scripts/setup";
  EXPECT_EQ(dependency_packages(), setup);
}

TEST(MachineEnvironment, KeysAndTypes) {
  const nlohmann::json e = machine_environment();
  for (const char* key : {"os", "kernel", "gnuplot"}) ASSERT_TRUE(e.contains(key) && e[key].is_string()) << key << e.dump(2);
  ASSERT_TRUE(e["packages"].is_object());
  EXPECT_EQ(e["packages"].size(), dependency_packages().size());
  for (const std::string& p : dependency_packages()) {
    ASSERT_TRUE(e["packages"].contains(p)) << p;
    EXPECT_TRUE(e["packages"][p].is_string()) << p;
    EXPECT_FALSE(e["packages"][p].get<std::string>().empty()) << p;
  }
  ASSERT_TRUE(e["libraries"].is_object());
  for (const char* key : {"mpfr", "mpfi", "gmp", "boost", "eigen", "rapidcheck"})
    EXPECT_TRUE(e["libraries"].contains(key)) << key << e["libraries"].dump();
  EXPECT_EQ(e["libraries"]["rapidcheck"], e["packages"]["librapidcheck-dev"]);

  const nlohmann::json& cpu = e["cpu"];
  ASSERT_TRUE(cpu["model"].is_string());
  ASSERT_TRUE(cpu["logical_cpus"].is_number_integer());
  EXPECT_GE(cpu["logical_cpus"].get<long>(), 1);
  // Only the listed flags, in the listed order.
  const std::vector<std::string> order = {"sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512_bf16"};
  std::size_t next = 0;
  for (const auto& f : cpu["flags"]) {
    const auto it = std::find(order.begin() + static_cast<long>(next), order.end(), f.get<std::string>());
    ASSERT_NE(it, order.end()) << f << " unknown or out of order in " << cpu["flags"];
    next = static_cast<std::size_t>(it - order.begin()) + 1;
  }

  const nlohmann::json& paths = e["kernel_paths"];
  ASSERT_TRUE(paths["available"].is_array());
  ASSERT_FALSE(paths["available"].empty());
  EXPECT_EQ(paths["available"][0], "scalar");
  EXPECT_NE(std::find(paths["available"].begin(), paths["available"].end(), paths["default"]), paths["available"].end())
      << paths.dump();
  EXPECT_EQ(machine_environment(), e) << "not deterministic on one machine";
}

// A ROPECHECK_KERNEL naming no path is bad input, reported as such (not swallowed as "unknown").
TEST(MachineEnvironment, BadKernelEnvironmentVariableIsInputError) {
  const char* old = std::getenv("ROPECHECK_KERNEL");
  const std::string saved = old == nullptr ? "" : old;
  ::setenv("ROPECHECK_KERNEL", "no-such-path", 1);
  bool threw = false;
  try {
    machine_environment();
  } catch (const InputError& e) {
    threw = true;
    EXPECT_EQ(e.input(), "ROPECHECK_KERNEL") << e.what();
  }
  if (old == nullptr) {
    ::unsetenv("ROPECHECK_KERNEL");
  } else {
    ::setenv("ROPECHECK_KERNEL", saved.c_str(), 1);
  }
  EXPECT_TRUE(threw);
}

}  // namespace
}  // namespace ropecheck::report

// `ropecheck kernel-check` through the built binary: exit 0 for this kernel (the default mode with
// fewer samples, to stay fast; ctest's kernel.check runs the full default), the same report for any
// --threads, the seed printed, JSON written, and bad flags rejected with exit 2 naming the flag.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "run_cli.h"

namespace {

using CliOutput = ropecheck::test::CliStreams;
CliOutput run_cli_streams_of(const std::string& args) { return ropecheck::test::run_cli_streams(args); }

// The report without its timing line.
std::string untimed(const std::string& s) { return std::regex_replace(s, std::regex("time [0-9.]+ s \\([0-9]+ threads?\\)\n"), ""); }

TEST(KernelCheckCommand, PassesForThisKernelAndIsThreadIndependent) {
  const auto json = std::filesystem::temp_directory_path() / ("ropecheck_kc_" + std::to_string(::getpid()) + ".json");
  const CliOutput one = run_cli_streams_of("kernel-check --samples 256 --json " + json.string());
  ASSERT_EQ(one.status, 0) << one.out << one.err;
  EXPECT_NE(one.out.find("seed 1"), std::string::npos);
  EXPECT_NE(one.out.find("PASS"), std::string::npos);
  std::ifstream in(json);
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_TRUE(j["passed"].get<bool>());
  EXPECT_TRUE(j["paths_agree"].get<bool>());
  EXPECT_EQ(j["seed"], 1);
  std::filesystem::remove(json);
  const CliOutput two = run_cli_streams_of("kernel-check --samples 256 --threads 2");
  EXPECT_EQ(untimed(two.out), untimed(one.out));
  const CliOutput other = run_cli_streams_of("kernel-check --samples 256 --seed 2 --dtype bf16 --layout half --dim 64 --theta 500000 --max-position 100000");
  EXPECT_EQ(other.status, 0) << other.out << other.err;
  EXPECT_NE(other.out.find("seed 2"), std::string::npos);
  const CliOutput f16 = run_cli_streams_of("kernel-check --samples 64 --dtype f16 --model llama-3.1-8b");
  EXPECT_EQ(f16.status, 0) << f16.out << f16.err;
  EXPECT_NE(f16.out.find("f16"), std::string::npos) << f16.out;
}

TEST(KernelCheckCommand, BadFlagsExit2) {
  const std::pair<const char*, const char*> cases[] = {
      {"kernel-check --samples 0", "--samples"},       {"kernel-check --max-position -1", "--max-position"},
      {"kernel-check --dtype both", "--dtype"},         {"kernel-check --seed x", "--seed"},
      {"kernel-check --threads 0", "--threads"},       {"kernel-check --layout diagonal", "--layout"},
      {"kernel-check --dim 7", "--dim"},               {"kernel-check --json /nonexistent-ropecheck-dir/k.json", "--json"},
  };
  for (const auto& [args, flag] : cases) {
    const CliOutput r = run_cli_streams_of(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(flag), std::string::npos) << args << "\n" << r.err;
  }
}

}  // namespace

// `ropecheck finite` through the built binary: every bad input is one line naming the flag, exit 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "run_cli.h"

namespace ropecheck {
namespace {

TEST(FiniteCli, BadInputIsOneLineAndExitCode2) {
  for (const char* args : {"finite --dtype f16", "finite --max-shift-log2 41", "finite --max-distance 0", "finite --rows 1",
                           "finite --json /nonexistent-ropecheck-dir/x.json"}) {
    const auto [status, err] = ropecheck::test::run_cli(args, true);
    EXPECT_EQ(status, 2) << args << ": stderr " << err;
    const std::string flag = std::string(args).substr(7, std::string(args).find(' ', 7) - 7);
    EXPECT_NE(err.find(flag), std::string::npos) << args << ": " << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << args << ": " << err;
  }
}

}  // namespace
}  // namespace ropecheck

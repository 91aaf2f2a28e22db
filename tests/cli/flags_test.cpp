// The flag parsers of cli/flags.h called as functions (the commands' own tests run the binary):
// the ranges each states, and the texts each refuses with an InputError naming the flag.
#include "cli/flags.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "montecarlo/partial.h"
#include "montecarlo/streams.h"

namespace ropecheck::cli {
namespace {

// Expects f to throw an InputError naming `flag`, for the text `text`.
template <typename F>
void expect_refused(F&& f, const std::string& flag, const std::string& text) {
  try {
    f();
    ADD_FAILURE() << flag << " accepted '" << text << "'";
  } catch (const InputError& e) {
    EXPECT_EQ(e.input(), flag) << e.what();
  }
}

TEST(Flags, IntegerWholeTextInRange) {
  EXPECT_EQ(parse_integer("--n", "42", 1, 100), 42);
  EXPECT_EQ(parse_integer("--n", "-5", -10, 10), -5);
  for (const std::string text : {"", "0", "101", " 4", "4 ", "+4", "4x", "0x10", "1e2", "99999999999999999999"})
    expect_refused([&] { parse_integer("--n", text, 1, 100); }, "--n", text);
}

TEST(Flags, IntegerList) {
  EXPECT_EQ(parse_integer_list("--fig8-L", "60,120,240", 11, 1000), (std::vector<std::int64_t>{60, 120, 240}));
  for (const std::string text : {"", "60,,120", ",60", "10", "1,2,3,4,5,6,7,8,9"})
    expect_refused([&] { parse_integer_list("--fig8-L", text, 11, 1000); }, "--fig8-L", text);
}

TEST(Flags, Shard) {
  const montecarlo::Shard s = parse_shard("2/3");
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.count, 3);
  EXPECT_EQ(parse_shard("0/4294967296").count, montecarlo::kMaxTrials);
  for (const std::string text : {"3/3", "1", "1/0", "/3", "1/", "-1/3", "1/4294967297", "1/3/4"})
    expect_refused([&] { parse_shard(text); }, "--shard", text);
}

TEST(Flags, DecimalWholeFiniteTextInRange) {
  EXPECT_EQ(parse_decimal("--max-ulp", "0.6", "a decimal > 0", 0, 10, true), 0.6);
  EXPECT_EQ(parse_decimal("--timing-tolerance", "0", "a decimal in [0, 1000]", 0, 1000), 0.0);
  EXPECT_EQ(parse_decimal("--timing-tolerance", "1e3", "a decimal in [0, 1000]", 0, 1000), 1000.0);
  for (const std::string text : {"", "0", "-1", "nan", "inf", "1e400", " 1", "1 ", "0x1p3", "1,5", "11"})
    expect_refused([&] { parse_decimal("--max-ulp", text, "a decimal > 0", 0, 10, true); }, "--max-ulp", text);
}

}  // namespace
}  // namespace ropecheck::cli

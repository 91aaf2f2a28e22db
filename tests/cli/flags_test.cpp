// The flag parsers of cli/flags.h called as functions (the commands' own tests run the binary):
// the ranges each states, and the texts each refuses with an InputError naming the flag.
#include "cli/flags.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <vector>
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

// Every variant of kVariants but the default has its flag --<name>, which gives the request that
// variant (and its fraction); two variant flags are refused together.
TEST(Flags, EveryVariantHasItsFlag) {
  for (const VariantInfo& v : kVariants) {
    if (v.value == Variant::rope) continue;
    CLI::App app;
    SpectrumFlags f;
    add_spectrum_flags(&app, f);
    std::vector<std::string> args = {"--" + std::string(v.name)};
    if (v.takes_fraction) args.push_back("0.5");
    std::reverse(args.begin(), args.end());  // CLI11 parses a vector in reverse
    ASSERT_NO_THROW(app.parse(args)) << v.name;
    const SpectrumRequest r = to_request(f);
    ASSERT_TRUE(r.variant.has_value()) << v.name;
    EXPECT_EQ(*r.variant, v.value) << v.name;
    if (v.takes_fraction) {
      EXPECT_EQ(r.fraction, "0.5") << v.name;
    }
  }
  CLI::App app;
  SpectrumFlags f;
  add_spectrum_flags(&app, f);
  EXPECT_THROW(app.parse(std::vector<std::string>{"0.5", "--partial", "--nope"}), CLI::ParseError);
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

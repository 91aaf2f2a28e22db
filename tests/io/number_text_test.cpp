// io/number_text.h: the shortest decimal of a binary64 reads back as the same bits; the reader's
// grammar (its refusals are also checked through io/json_fields.h's finite_double_value).
#include "io/number_text.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "io/printf_string.h"
#include "random/counter_rng.h"
#include "tests/support/show.h"

namespace ropecheck {
namespace {


TEST(NumberText, ShortestTextRoundTripsEveryBitPattern) {
  EXPECT_EQ(shortest_text(-0.0), "-0");
  EXPECT_EQ(shortest_text(0.1), "0.1");
  EXPECT_EQ(shortest_text(1e300), "1e+300");
  EXPECT_EQ(shortest_text(-4.1), "-4.1");
  EXPECT_EQ(shortest_text(std::numeric_limits<double>::denorm_min()), "5e-324");
  std::vector<double> xs = {0.0, -0.0, 1e300, -1e300, std::numeric_limits<double>::max(), std::numeric_limits<double>::min(),
                            std::numeric_limits<double>::denorm_min(), -std::numeric_limits<double>::denorm_min(),
                            std::bit_cast<double>(std::uint64_t{0x000fffffffffffff}), 0.1, 1.0 / 3, 11.3};
  // Random finite bit patterns (fixed seed): every exponent range, subnormals included.
  const CounterRng rng(20260611, 7);
  for (std::uint64_t i = 0; xs.size() < 20000; ++i) {
    const double x = std::bit_cast<double>(rng.bits(i));
    if (std::isfinite(x)) xs.push_back(x);
  }
  for (double x : xs) {
    const std::string t = shortest_text(x);
    double back = 0;
    ASSERT_TRUE(parse_number_text(t, back)) << t;
    ASSERT_EQ(bits(back), bits(x)) << hex_double(x) << " -> '" << t << "' -> " << hex_double(back);
  }
}

TEST(NumberText, ReaderTakesDecimalAndHexAndNothingElse) {
  double x = 7;
  EXPECT_TRUE(parse_number_text("0x1.8p+1", x));
  EXPECT_EQ(x, 3.0);
  EXPECT_TRUE(parse_number_text("-2.5e-3", x));
  EXPECT_EQ(x, -2.5e-3);
  for (const char* bad : {"inf", "nan", "Infinity", "1e400", "1e-400", " 1", "1 ", "0x", "1e", "--1", ".", "1,5", ""}) {
    x = 7;
    EXPECT_FALSE(parse_number_text(bad, x)) << bad;
    EXPECT_EQ(x, 7.0) << bad;  // unchanged
  }
}

}  // namespace
}  // namespace ropecheck

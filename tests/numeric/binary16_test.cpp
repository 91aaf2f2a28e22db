#include "numeric/binary16.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

namespace ropecheck::binary16_test {

TEST(Binary16, DecodesKnownValuesExactly) {
  EXPECT_EQ(binary16_to_double(0x3C00), 1.0);
  EXPECT_EQ(binary16_to_double(0xC000), -2.0);
  EXPECT_EQ(binary16_to_double(0x3555), 0x1.554p-2);  // float16(1/3)
  EXPECT_EQ(binary16_to_double(0x0001), 0x1p-24);      // smallest subnormal
  EXPECT_EQ(binary16_to_double(0x03FF), 1023 * 0x1p-24);
  EXPECT_EQ(binary16_to_double(0x0400), 0x1p-14);      // smallest normal
  EXPECT_EQ(binary16_to_double(0x7BFF), 65504.0);
  EXPECT_EQ(binary16_to_double(0x0000), 0.0);
  EXPECT_FALSE(std::signbit(binary16_to_double(0x0000)));
  EXPECT_TRUE(std::signbit(binary16_to_double(0x8000)));
  EXPECT_EQ(binary16_to_double(0x7C00), INFINITY);
  EXPECT_EQ(binary16_to_double(0xFC00), -INFINITY);
  EXPECT_TRUE(std::isnan(binary16_to_double(0x7E00)));
  EXPECT_TRUE(binary16_is_finite(0x7BFF));
  EXPECT_FALSE(binary16_is_finite(0x7C00));
  EXPECT_FALSE(binary16_is_finite(0xFE01));
}

// Every positive finite pattern: strictly increasing, the negative pattern its negation, and the
// gap to the next one the format's spacing (2^-24 below 2^-14, then 2^(e-10)).
TEST(Binary16, EveryFinitePatternInOrder) {
  for (std::uint32_t b = 0; b < 0x7BFF; ++b) {
    const double v = binary16_to_double(static_cast<std::uint16_t>(b));
    const double next = binary16_to_double(static_cast<std::uint16_t>(b + 1));
    ASSERT_EQ(binary16_to_double(static_cast<std::uint16_t>(b | 0x8000)), -v) << b;
    const int e = static_cast<int>(b >> 10);
    ASSERT_EQ(next - v, e == 0 ? 0x1p-24 : std::ldexp(1.0, e - 25)) << b;
  }
}

}  // namespace ropecheck::binary16_test

#include "numeric/decimal.h"

#include <gtest/gtest.h>

#include "numeric/precision.h"

namespace ropecheck {
namespace {

TEST(Decimal, DirectedRoundingOfOneThird) {
  ScopedPrecision p(128);
  const Real third = Real(1) / 3;
  EXPECT_EQ(to_decimal(third, 5, Rounding::down), "3.3333e-1");
  EXPECT_EQ(to_decimal(third, 5, Rounding::up), "3.3334e-1");
  EXPECT_EQ(to_decimal(-third, 5, Rounding::down), "-3.3334e-1");
  EXPECT_EQ(to_decimal(-third, 5, Rounding::up), "-3.3333e-1");
}

TEST(Decimal, SpecialValuesAndIntegers) {
  ScopedPrecision p(64);
  EXPECT_EQ(to_decimal(Real(0), 10), "0");
  EXPECT_EQ(to_decimal(Real(1), 10), "1");
  EXPECT_EQ(to_decimal(Real(25), 10), "2.5e+1");
  EXPECT_EQ(to_decimal(Real(std::numeric_limits<double>::infinity()), 10), "inf");
  EXPECT_THROW(to_decimal(Real(1), 0), std::invalid_argument);
}

TEST(Decimal, BoundsParseBackToAnEnclosure) {
  ScopedPrecision p(256);
  const Interval x = Interval(2) / 7;
  const DecimalBounds b = decimal_bounds(x, 12);
  EXPECT_LE(Real(b.lower), lower_of(x)) << b.lower;
  EXPECT_GE(Real(b.upper), upper_of(x)) << b.upper;
  EXPECT_EQ(b.lower, "2.85714285714e-1");
  EXPECT_EQ(b.upper, "2.85714285715e-1");
}

}  // namespace
}  // namespace ropecheck

#include "numeric/precision.h"

#include <gtest/gtest.h>

#include "numeric/scalar.h"

namespace ropecheck {
namespace {

TEST(Precision, EffectiveBitsAreAtLeastTheRequestAndClose) {
  for (unsigned bits : {53u, 64u, 100u, 256u, 512u, 1000u}) {
    const unsigned got = effective_precision_bits(bits);
    EXPECT_GE(got, bits) << "bits=" << bits;
    EXPECT_LE(got, bits + 4) << "bits=" << bits;  // one decimal digit is 3.3 bits, plus Boost's +2
  }
  EXPECT_EQ(effective_precision_bits(256), 257u);
}

TEST(Precision, ScopedPrecisionSetsAndRestores) {
  const unsigned before_real = Real::default_precision();
  const unsigned before_interval = Interval::default_precision();
  {
    ScopedPrecision p(512);
    Real x(1);
    Interval y(1);
    EXPECT_EQ(precision_bits_of(x), p.bits());
    EXPECT_EQ(precision_bits_of(y), p.bits());
    EXPECT_GE(p.bits(), 512u);
  }
  EXPECT_EQ(Real::default_precision(), before_real);
  EXPECT_EQ(Interval::default_precision(), before_interval);
}

}  // namespace
}  // namespace ropecheck

#include "random/counter_rng.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ropecheck {
namespace {

TEST(CounterRng, PhiloxKnownAnswer) {
  // Random123's known-answer vector for Philox4x32-10 with zero key and zero counter:
  // 6627e8d5 e169c58d bc57ac4c 9b00dbd8.
  EXPECT_EQ(CounterRng(0, 0).bits(0), 0xe169c58d6627e8d5ULL);
}

TEST(CounterRng, PureFunctionOfSeedStreamIndex) {
  const CounterRng a(42, 7), b(42, 7), c(43, 7), d(42, 8);
  EXPECT_EQ(a.bits(123), b.bits(123));
  EXPECT_NE(a.bits(123), c.bits(123));
  EXPECT_NE(a.bits(123), d.bits(123));
  EXPECT_NE(a.bits(123), a.bits(124));
  // High words of seed and index matter too.
  EXPECT_NE(CounterRng(1, 0).bits(0), CounterRng(1 + (1ULL << 32), 0).bits(0));
  EXPECT_NE(a.bits(5), a.bits(5 + (1ULL << 32)));
}

TEST(CounterRng, UniformDyadicIsInRangeAndExact) {
  const CounterRng rng(1, 2);
  double lo = 1, hi = -1, sum = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    const double u = rng.uniform_dyadic(static_cast<std::uint64_t>(i));
    ASSERT_GE(u, -1.0);
    ASSERT_LT(u, 1.0);
    ASSERT_EQ(std::ldexp(u, 52), std::floor(std::ldexp(u, 52))) << "not a multiple of 2^-52: " << u;
    lo = std::min(lo, u);
    hi = std::max(hi, u);
    sum += u;
  }
  // Mean of n uniforms on [-1,1) has standard deviation sqrt(1/3/n) ~ 1.8e-3: 6 sigma is 1.1e-2.
  EXPECT_LT(std::fabs(sum / n), 1.1e-2);
  EXPECT_LT(lo, -0.999);
  EXPECT_GT(hi, 0.999);
}

}  // namespace
}  // namespace ropecheck

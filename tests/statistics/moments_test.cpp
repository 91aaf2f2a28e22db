// Tests for statistics/moments.h on samples whose moments are known exactly (rationals, or MPFR
// computations at thousands of bits). The expected doubles are the correctly rounded exact values;
// the contract allows 1 ulp more only when a P-bit (P >= 256) result lies within 2^-P of a rounding
// midpoint, which none of these values does (each is checked bit for bit: any slip fails).
#include "statistics/moments.h"
#include "io/printf_string.h"

#include <gtest/gtest.h>
#include <mpfr.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "random/counter_rng.h"
#include "tests/support/show.h"

namespace ropecheck::statistics {
namespace {

#define EXPECT_BITS(actual, expected) EXPECT_EQ(show(actual), show(expected)) << #actual

// The correctly rounded double of sqrt(p/q) (p, q exact small integers).
double sqrt_ratio(long p, long q) {
  mpfr_t r;
  mpfr_init2(r, 512);
  mpfr_set_si(r, p, MPFR_RNDN);
  mpfr_div_si(r, r, q, MPFR_RNDN);
  mpfr_sqrt(r, r, MPFR_RNDN);
  const double d = mpfr_get_d(r, MPFR_RNDN);
  mpfr_clear(r);
  return d;
}

Moments of(const std::vector<double>& xs) {
  Moments m;
  for (double x : xs) m.add(x);
  return m;
}

TEST(Moments, SmallSymmetricSampleByHand) {
  // {1, 2, 3, 4}: mean 5/2; deviations +-1/2, +-3/2: m2 = 5/4, m3 = 0, m4 = 41/16.
  const Summary s = summarize(of({1, 2, 3, 4}));
  EXPECT_EQ(s.n, 4);
  EXPECT_BITS(s.mean, 2.5);
  EXPECT_BITS(s.variance, 5.0 / 3);               // 5/4 * 4/3
  EXPECT_BITS(s.sd, sqrt_ratio(5, 3));
  EXPECT_BITS(s.standard_error, sqrt_ratio(5, 12));
  EXPECT_BITS(s.skewness, 0.0);
  EXPECT_BITS(s.kurtosis, 41.0 / 25);              // (41/16) / (25/16)
  // sqrt((m4 - m2^2 (n-3)/(n-1)) / n) = sqrt((41/16 - 25/16 * 1/3)/4) = sqrt(98/192)
  EXPECT_BITS(s.variance_standard_error, sqrt_ratio(98, 192));
  // sqrt(24 n (n-1)^2 / ((n-3)(n-2)(n+3)(n+5))) = sqrt(864 / 126)
  EXPECT_BITS(s.kurtosis_standard_error, sqrt_ratio(864, 126));
}

TEST(Moments, SkewedSampleByHand) {
  // {0, 0, 0, 1}: mean 1/4, m2 = 3/16, m3 = 3/32, m4 = 21/256: skewness = 2/sqrt(3), kurtosis 7/3.
  const Summary s = summarize(of({0, 0, 0, 1}));
  EXPECT_BITS(s.mean, 0.25);
  EXPECT_BITS(s.variance, 0.25);
  EXPECT_BITS(s.skewness, sqrt_ratio(4, 3));
  EXPECT_BITS(s.kurtosis, 7.0 / 3);
  // sqrt((21/256 - 9/256 * 1/3) / 4) = sqrt(18/1024)
  EXPECT_BITS(s.variance_standard_error, sqrt_ratio(18, 1024));
  const Summary neg = summarize(of({0, 0, 0, -1}));
  EXPECT_BITS(neg.skewness, -sqrt_ratio(4, 3));
}

// The textbook one-pass formula in double, (sum x^2 - (sum x)^2 / n) / (n - 1), gives 0 on
// 1e9 + {0, 1, 2}; summing the rounded squares fl(x^2) exactly (the first contract's plan) gives
// -1.5: fl((1e9 + 1)^2) is off by 1 and fl((1e9 + 2)^2) by 4, in a cancellation of 2^61 against 2.
// Exact powers give variance exactly 1.
TEST(Moments, LargeOffsetWhereOnePassFails) {
  const std::vector<double> xs = {1e9, 1e9 + 1, 1e9 + 2};
  double sum = 0, sum2 = 0;
  for (double x : xs) {
    sum += x;
    sum2 += x * x;
  }
  const double naive = (sum2 - sum * sum / 3) / 2;
  EXPECT_GE(std::fabs(naive - 1), 0.5) << "the sample no longer defeats the naive formula: " << show(naive);
  ExactSum rounded_squares;
  for (double x : xs) rounded_squares.add(x * x);
  mpfr_t v, t;
  mpfr_inits2(4000, v, t, nullptr);
  rounded_squares.to_mpfr(v);  // (S2 - S1^2/3) / 2 with S2 = sum fl(x^2), exactly
  mpfr_set_d(t, 3e9 + 3, MPFR_RNDN);
  mpfr_sqr(t, t, MPFR_RNDN);
  mpfr_div_ui(t, t, 3, MPFR_RNDN);
  mpfr_sub(v, v, t, MPFR_RNDN);
  mpfr_div_ui(v, v, 2, MPFR_RNDN);
  EXPECT_BITS(mpfr_get_d(v, MPFR_RNDN), -1.5);
  mpfr_clears(v, t, nullptr);

  const Summary s = summarize(of(xs));
  EXPECT_BITS(s.mean, 1e9 + 1);
  EXPECT_BITS(s.variance, 1.0);
  EXPECT_BITS(s.sd, 1.0);
  EXPECT_BITS(s.skewness, 0.0);
  EXPECT_BITS(s.kurtosis, 1.5);  // m2 = m4 = 2/3
  // Even further out: 2^40 + {0, 1, 2}, whose squares need 81 bits.
  const Summary far = summarize(of({0x1p40, 0x1p40 + 1, 0x1p40 + 2}));
  EXPECT_BITS(far.variance, 1.0);
  EXPECT_BITS(far.kurtosis, 1.5);
}

TEST(Moments, DegenerateSizes) {
  const Summary empty = summarize(Moments{});
  EXPECT_EQ(empty.n, 0);
  for (double v : {empty.mean, empty.variance, empty.sd, empty.standard_error, empty.skewness, empty.kurtosis,
                   empty.variance_standard_error, empty.kurtosis_standard_error}) {
    EXPECT_TRUE(std::isnan(v)) << show(v);
  }
  const Summary one = summarize(of({-3.25}));
  EXPECT_BITS(one.mean, -3.25);
  for (double v : {one.variance, one.sd, one.standard_error, one.skewness, one.kurtosis, one.variance_standard_error,
                   one.kurtosis_standard_error}) {
    EXPECT_TRUE(std::isnan(v)) << show(v);
  }
  const Summary constant = summarize(of({0.1, 0.1, 0.1, 0.1, 0.1}));
  EXPECT_BITS(constant.mean, 0.1);
  EXPECT_BITS(constant.variance, 0.0);
  EXPECT_BITS(constant.sd, 0.0);
  EXPECT_BITS(constant.standard_error, 0.0);
  EXPECT_BITS(constant.variance_standard_error, 0.0);
  EXPECT_TRUE(std::isnan(constant.skewness));
  EXPECT_TRUE(std::isnan(constant.kurtosis));
}

TEST(Moments, OverflowingPowersMakeOnlyTheirFieldsNaN) {
  const Summary s = summarize(of({1e200, -1e200, 0}));  // x^2 overflows binary64
  EXPECT_BITS(s.mean, 0.0);
  EXPECT_TRUE(std::isnan(s.variance));
  EXPECT_TRUE(std::isnan(s.kurtosis));
  const Summary inf = summarize(of({1, std::numeric_limits<double>::infinity()}));
  EXPECT_TRUE(std::isnan(inf.mean));
  EXPECT_TRUE(std::isnan(inf.variance));
}

// s2, s3, s4 hold the exact power sums, on the fast path and outside it (|x| > 2^150 or < 2^-150),
// exact while every bit of x^k lies in 2^-1074 .. 2^1024: for x = m 2^(e - 52) the lowest bit of x^4
// is 2^(4 e - 208) >= 2^-1074 when e >= -216. Below that, each power is off by at most 2^-1075.
void expect_power_sums(const std::vector<double>& xs, bool exact) {
  const Moments m = of(xs);
  const ExactSum* sums[] = {&m.s1, &m.s2, &m.s3, &m.s4};
  for (unsigned k = 1; k <= 4; ++k) {
    mpfr_t ref, p, got;
    mpfr_inits2(3000, ref, p, got, nullptr);  // the exact x^k and their sums fit with room to spare
    mpfr_set_zero(ref, 1);
    for (double x : xs) {
      mpfr_set_d(p, x, MPFR_RNDN);
      ASSERT_EQ(mpfr_pow_ui(p, p, k, MPFR_RNDN), 0);
      ASSERT_EQ(mpfr_add(ref, ref, p, MPFR_RNDN), 0);
    }
    sums[k - 1]->to_mpfr(got);
    mpfr_sub(got, got, ref, MPFR_RNDN);
    mpfr_abs(got, got, MPFR_RNDN);
    mpfr_set_ui(p, exact ? 0 : xs.size(), MPFR_RNDN);
    mpfr_mul_2si(p, p, -1075, MPFR_RNDN);  // the bound: 2^-1075 per term, or 0
    EXPECT_LE(mpfr_cmp(got, p), 0) << "power " << k << (exact ? " exact range" : " below") << ": off by "
                                   << mpfr_get_d(got, MPFR_RNDU);
    mpfr_clears(ref, p, got, nullptr);
  }
}

TEST(Moments, PowerSumsAreExact) {
  const CounterRng rng(5, 9);
  std::vector<double> exact_range, below;
  for (std::uint64_t i = 0; i < 400; ++i) {
    const std::uint64_t b = rng.bits(i);
    const double sign = (b >> 11) & 1 ? -1 : 1;
    const double mantissa = 1.0 + static_cast<double>(b >> 12) * 0x1p-52;
    exact_range.push_back(sign * std::ldexp(mantissa, static_cast<int>(b % 467) - 216));  // 2^-216 .. 2^250
    below.push_back(sign * std::ldexp(mantissa, static_cast<int>(b % 200) - 416));       // 2^-416 .. 2^-217
  }
  exact_range.push_back(0);
  expect_power_sums(exact_range, true);
  expect_power_sums(below, false);
  // Below the subnormal grid: (3 2^-300)^4 = 81 2^-1200 is lost (< 2^-1075), its square is not.
  const Moments tiny = of({3 * 0x1p-300});
  EXPECT_BITS(tiny.s2.value(), 9 * 0x1p-600);
  EXPECT_BITS(tiny.s4.value(), 0.0);
  // (1 + 2^-52) 2^160 squared needs 105 bits: two doubles.
  const double big = (1 + 0x1p-52) * 0x1p160;
  const Moments b = of({big});
  mpfr_t sq, got;
  mpfr_inits2(300, sq, got, nullptr);
  mpfr_set_d(sq, big, MPFR_RNDN);
  mpfr_sqr(sq, sq, MPFR_RNDN);
  b.s2.to_mpfr(got);
  EXPECT_EQ(mpfr_cmp(got, sq), 0);
  mpfr_clears(sq, got, nullptr);
}

// Agreement with the two-pass computation in MPFR at 3000 bits (mean first, then the central sums).
TEST(Moments, AgreesWithTwoPassInMpfr) {
  const CounterRng rng(11, 4);
  for (const double offset : {0.0, 3.0, 1e6}) {
    SCOPED_TRACE("offset " + show(offset));
    std::vector<double> xs;
    for (std::uint64_t i = 0; i < 1000; ++i) {
      const double u = rng.uniform_dyadic(i + static_cast<std::uint64_t>(offset));
      xs.push_back(offset + u * u * u);  // skewed, non-trivial kurtosis
    }
    const Summary s = summarize(of(xs));
    mpfr_t mean, d, pw, c2, c3, c4, r;
    mpfr_inits2(3000, mean, d, pw, c2, c3, c4, r, nullptr);
    mpfr_set_zero(mean, 1);
    for (double x : xs) mpfr_add_d(mean, mean, x, MPFR_RNDN);
    mpfr_div_ui(mean, mean, xs.size(), MPFR_RNDN);
    mpfr_set_zero(c2, 1);
    mpfr_set_zero(c3, 1);
    mpfr_set_zero(c4, 1);
    for (double x : xs) {
      mpfr_d_sub(d, x, mean, MPFR_RNDN);
      mpfr_sqr(pw, d, MPFR_RNDN);
      mpfr_add(c2, c2, pw, MPFR_RNDN);
      mpfr_mul(pw, pw, d, MPFR_RNDN);
      mpfr_add(c3, c3, pw, MPFR_RNDN);
      mpfr_mul(pw, pw, d, MPFR_RNDN);
      mpfr_add(c4, c4, pw, MPFR_RNDN);
    }
    const double n = static_cast<double>(xs.size());
    EXPECT_BITS(s.mean, mpfr_get_d(mean, MPFR_RNDN));
    mpfr_div_d(r, c2, n - 1, MPFR_RNDN);
    EXPECT_BITS(s.variance, mpfr_get_d(r, MPFR_RNDN));
    mpfr_sqrt(r, r, MPFR_RNDN);
    EXPECT_BITS(s.sd, mpfr_get_d(r, MPFR_RNDN));
    mpfr_div_d(r, c2, n - 1, MPFR_RNDN);
    mpfr_div_d(r, r, n, MPFR_RNDN);
    mpfr_sqrt(r, r, MPFR_RNDN);
    EXPECT_BITS(s.standard_error, mpfr_get_d(r, MPFR_RNDN));
    // skewness = (c3/n) / (c2/n)^1.5 = sqrt(n) c3 / c2^1.5; kurtosis = n c4 / c2^2
    mpfr_sqrt(pw, c2, MPFR_RNDN);
    mpfr_mul(pw, pw, c2, MPFR_RNDN);
    mpfr_set_d(r, n, MPFR_RNDN);
    mpfr_sqrt(r, r, MPFR_RNDN);
    mpfr_mul(r, r, c3, MPFR_RNDN);
    mpfr_div(r, r, pw, MPFR_RNDN);
    EXPECT_BITS(s.skewness, mpfr_get_d(r, MPFR_RNDN));
    mpfr_sqr(pw, c2, MPFR_RNDN);
    mpfr_mul_d(r, c4, n, MPFR_RNDN);
    mpfr_div(r, r, pw, MPFR_RNDN);
    EXPECT_BITS(s.kurtosis, mpfr_get_d(r, MPFR_RNDN));
    mpfr_clears(mean, d, pw, c2, c3, c4, r, nullptr);
  }
}

TEST(Moments, MergeEqualsSingle) {
  const CounterRng rng(3, 3);
  std::vector<double> xs;
  for (std::uint64_t i = 0; i < 3000; ++i) xs.push_back(rng.uniform_dyadic(i) * 7 + 2);
  const Moments single = of(xs);
  std::vector<Moments> parts(5);
  for (std::size_t i = 0; i < xs.size(); ++i) parts[rng.bits(100000 + i) % 5].add(xs[i]);
  Moments merged;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) merged.add(*it);
  EXPECT_TRUE(merged == single);
  const Summary a = summarize(single), b = summarize(merged);
  for (auto [x, y] : {std::pair{a.mean, b.mean}, {a.variance, b.variance}, {a.skewness, b.skewness},
                      {a.kurtosis, b.kurtosis}, {a.variance_standard_error, b.variance_standard_error}}) {
    EXPECT_BITS(x, y);
  }
}

}  // namespace
}  // namespace ropecheck::statistics

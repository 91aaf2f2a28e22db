// Tests for statistics/inference.h on cases with known answers: printed t tables, exact binomial
// probabilities (by hand, or R's binom.test algorithm re-done in MPFR at 256 bits), hand-made KS
// samples and brute-force enumeration, and the slope weights' defining sums.
#include "statistics/inference.h"
#include "io/printf_string.h"

#include <gtest/gtest.h>
#include <mpfr.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "io/input_error.h"
#include "random/counter_rng.h"
#include "statistics/kolmogorov.h"
#include "tests/support/show.h"

namespace ropecheck::statistics {
namespace {

Summary summary_with(std::int64_t n, double mean, double standard_error) {
  Summary s;
  s.n = n;
  s.mean = mean;
  s.standard_error = standard_error;
  return s;
}

TEST(MeanInterval, StudentQuantilesFromPrintedTables) {
  // t_{0.9995, 10} = 4.587 and t_{0.975, 10} = 2.228 (three decimals in the tables: +-5e-4);
  // df = 9.2e18 is the normal law to ~1e-19: z_{0.9995} = 3.2905, z_{0.975} = 1.9600 (+-5e-5).
  const Interval2 i = mean_interval(summary_with(11, 0, 1), 0.999);
  EXPECT_NEAR(i.hi, 4.587, 5e-4) << show(i.hi);
  EXPECT_EQ(show(i.lo), show(-i.hi));
  EXPECT_NEAR(mean_interval(summary_with(11, 0, 1), 0.95).hi, 2.228, 5e-4);
  const std::int64_t huge = std::numeric_limits<std::int64_t>::max();
  EXPECT_NEAR(mean_interval(summary_with(huge, 0, 1), 0.999).hi, 3.2905, 5e-5);
  EXPECT_NEAR(mean_interval(summary_with(huge, 0, 1), 0.95).hi, 1.9600, 5e-5);
  // Scaled and shifted: mean +- q se.
  const Interval2 j = mean_interval(summary_with(11, 10, 0.5), 0.999);
  EXPECT_EQ(show(j.hi), show(10 + 0.5 * i.hi));
}

TEST(MeanInterval, DeterministicAndBadLevels) {
  const Interval2 one = mean_interval(summary_with(1, 2.5, std::nan("")), 0.999);
  EXPECT_EQ(one.lo, 2.5);
  EXPECT_EQ(one.hi, 2.5);
  const Interval2 fixed = mean_interval(summary_with(100, -1, 0), 0.999);
  EXPECT_EQ(fixed.lo, -1);
  EXPECT_EQ(fixed.hi, -1);
  for (double level : {0.0, 1.0, -0.5, std::nan("")}) {
    EXPECT_THROW((void)mean_interval(summary_with(10, 0, 1), level), InputError) << show(level);
  }
}

TEST(TTest, KnownPValues) {
  // t = 2 with 10 degrees of freedom: two-sided p = 0.07339 (tables, 5 decimals: +-5e-6).
  const TestResult r = t_test(summary_with(11, 1, 0.5), 0, 0.05, "slope t-test");
  EXPECT_EQ(r.name, "slope t-test");
  EXPECT_EQ(r.statistic, 2.0);
  EXPECT_NEAR(r.p_value, 0.07339, 5e-6);
  EXPECT_FALSE(r.rejects);
  EXPECT_TRUE(t_test(summary_with(11, 1, 0.5), 0, 0.1, "t").rejects);
  // Deterministic values: p = 1 when equal to mu0, else 0.
  EXPECT_EQ(t_test(summary_with(5, 3, 0), 3, 0.05, "t").p_value, 1.0);
  const TestResult off = t_test(summary_with(5, 3, 0), 2, 0.05, "t");
  EXPECT_EQ(off.p_value, 0.0);
  EXPECT_TRUE(off.rejects);
  EXPECT_THROW((void)t_test(summary_with(1, 3, 0), 2, 0.05, "t"), InputError);
  EXPECT_THROW((void)t_test(summary_with(5, 3, 1), 2, 1.5, "t"), InputError);
}

// Power sanity on seeded data: 400 uniform values on [-1, 1) (sd 0.577, se 0.029). With a shift of
// 0.5 the t statistic is ~17 (p ~ 1e-50): failing to reject at 0.001 has probability < 1e-40. With
// no shift the test rejects with probability 0.001; the seed is fixed, so the outcome is too.
TEST(TTest, RejectsAClearShiftAndNotNone) {
  const CounterRng rng(2024, 5);
  Moments shifted, centred;
  for (std::uint64_t i = 0; i < 400; ++i) {
    shifted.add(rng.uniform_dyadic(i) + 0.5);
    centred.add(rng.uniform_dyadic(1000 + i));
  }
  const TestResult yes = t_test(summarize(shifted), 0, 0.001, "t");
  const TestResult no = t_test(summarize(centred), 0, 0.001, "t");
  EXPECT_TRUE(yes.rejects) << yes.detail << " p " << show(yes.p_value);
  EXPECT_FALSE(no.rejects) << no.detail << " p " << show(no.p_value);
}

// R's binom.test two-sided p-value, re-done from exact binomial coefficients and the double p
// (what R receives): every P(X = i) computed at 256 bits and rounded once, then the sum of those
// with P(X = i) <= P(X = k) (1 + 1e-7), accumulated at 256 bits.
std::vector<double> binomial_pmf(std::int64_t n, double p) {
  std::vector<double> pmf;
  mpfr_t term, lp, lq;
  mpz_t b;
  mpfr_inits2(256, term, lp, lq, nullptr);
  mpz_init(b);
  for (std::int64_t i = 0; i <= n; ++i) {
    mpz_bin_uiui(b, static_cast<unsigned long>(n), static_cast<unsigned long>(i));
    mpfr_set_z(term, b, MPFR_RNDN);
    mpfr_set_d(lp, p, MPFR_RNDN);
    mpfr_pow_ui(lp, lp, static_cast<unsigned long>(i), MPFR_RNDN);
    mpfr_set_d(lq, p, MPFR_RNDN);
    mpfr_ui_sub(lq, 1, lq, MPFR_RNDN);
    mpfr_pow_ui(lq, lq, static_cast<unsigned long>(n - i), MPFR_RNDN);
    mpfr_mul(term, term, lp, MPFR_RNDN);
    mpfr_mul(term, term, lq, MPFR_RNDN);
    pmf.push_back(mpfr_get_d(term, MPFR_RNDN));
  }
  mpz_clear(b);
  mpfr_clears(term, lp, lq, nullptr);
  return pmf;
}

double binom_test_reference(std::int64_t k, const std::vector<double>& pmf) {
  mpfr_t sum;
  mpfr_init2(sum, 256);
  mpfr_set_zero(sum, 1);
  const double limit = pmf[static_cast<std::size_t>(k)] * (1 + 1e-7);
  for (double q : pmf) {
    if (q <= limit) mpfr_add_d(sum, sum, q, MPFR_RNDN);
  }
  const double result = std::fmin(1.0, mpfr_get_d(sum, MPFR_RNDN));
  mpfr_clear(sum);
  return result;
}

TEST(BinomialTest, ExactSmallCase) {
  // k = 0 of n = 10 at p = 1/2: P(X = 0) + P(X = 10) = 2^-9 exactly. Boost's binomial cdf goes
  // through the incomplete beta function; allow 8 ulps (its documented double error is a few eps).
  const TestResult r = binomial_test(0, 10, 0.5, 0.01);
  EXPECT_NEAR(r.p_value, 0.001953125, 8 * 0x1p-52 * 0.001953125) << show(r.p_value);
  EXPECT_TRUE(r.rejects);
  EXPECT_EQ(r.statistic, 0.0);
  EXPECT_EQ(r.name, "binomial");
  EXPECT_EQ(binomial_test(5, 10, 0.5, 0.01).p_value, 1.0);  // k = n p
  EXPECT_NEAR(binomial_test(10, 10, 0.5, 0.01).p_value, 0.001953125, 8 * 0x1p-52 * 0.001953125);
  // Degenerate laws: p = 0 allows only k = 0, p = 1 only k = n.
  EXPECT_EQ(binomial_test(0, 7, 0.0, 0.01).p_value, 1.0);
  EXPECT_EQ(binomial_test(1, 7, 0.0, 0.01).p_value, 0.0);
  EXPECT_EQ(binomial_test(6, 7, 1.0, 0.01).p_value, 0.0);
}

// binom.test(k, 5001, 0.001): the per-distance exclusion count of a 99.9% interval over 5001
// distances. Tolerance: relative 1e-10, far above Boost's incomplete-beta error (a few eps, times
// the ~10 terms the tails combine) and far below anything a verdict could notice.
TEST(BinomialTest, MatchesRsAlgorithmInMpfr) {
  const std::vector<double> pmf = binomial_pmf(5001, 0.001);
  for (const std::int64_t k : {0, 1, 2, 3, 5, 8, 9, 10, 12, 15, 30}) {
    const double expected = binom_test_reference(k, pmf);
    const TestResult r = binomial_test(k, 5001, 0.001, 0.001);
    EXPECT_NEAR(r.p_value, expected, 1e-10 * expected) << "k " << k << " got " << show(r.p_value) << " want " << show(expected);
  }
  const std::vector<double> small = binomial_pmf(60, 0.325);
  for (const std::int64_t k : {0, 7, 13, 20, 27, 40}) {  // an asymmetric small case, n p = 19.5
    const double expected = binom_test_reference(k, small);
    EXPECT_NEAR(binomial_test(k, 60, 0.325, 0.05).p_value, expected, 1e-10 * expected) << "k " << k;
  }
}

TEST(BinomialTest, BadArgumentsAreInputErrors) {
  EXPECT_THROW((void)binomial_test(-1, 10, 0.5, 0.05), InputError);
  EXPECT_THROW((void)binomial_test(11, 10, 0.5, 0.05), InputError);
  EXPECT_THROW((void)binomial_test(1, 10, 1.5, 0.05), InputError);
  EXPECT_THROW((void)binomial_test(1, 10, 0.5, 0.0), InputError);
}

TEST(DependentExceedanceTest, IndependenceIsTheBinomialTest) {
  const auto zero = [](std::int64_t) { return 0.0; };
  for (const std::int64_t k : {0, 2, 5, 9, 15}) {
    const TestResult d = dependent_exceedance_test(k, 5001, 0.999, zero, 0.001);
    const TestResult b = binomial_test(k, 5001, 1 - 0.999, 0.001);
    EXPECT_EQ(show(d.p_value), show(b.p_value)) << "k " << k;
    EXPECT_EQ(d.rejects, b.rejects);
    EXPECT_EQ(d.statistic, static_cast<double>(k));
    EXPECT_NE(d.detail.find("inflation=1 "), std::string::npos) << d.detail;
  }
}

TEST(DependentExceedanceTest, PerfectDependenceAllowsOnlyZeroOrAll) {
  const auto one = [](std::int64_t) { return 1.0; };
  const TestResult none = dependent_exceedance_test(0, 200, 0.99, one, 0.05);
  EXPECT_FALSE(none.rejects) << none.detail;
  EXPECT_EQ(none.p_value, 1.0);
  for (const std::int64_t k : {1, 2, 100, 199}) {
    const TestResult r = dependent_exceedance_test(k, 200, 0.99, one, 0.05);
    EXPECT_EQ(r.p_value, 0.0) << "k " << k << " " << r.detail;
    EXPECT_TRUE(r.rejects);
  }
  // All 200 exceed: probability p = 0.01 under perfect dependence (the two-point law), so p-value
  // P(X = n) = 0.01 (relative error: log/exp round trip, a few ulps).
  const TestResult all = dependent_exceedance_test(200, 200, 0.99, one, 0.05);
  EXPECT_NEAR(all.p_value, 0.01, 1e-15) << all.detail;
  EXPECT_TRUE(all.rejects);
}

// With positive dependence (AR(1), rho = 0.8^lag) the count spreads more than a binomial: a count
// the binomial test rejects is acceptable once dependence is accounted for, and the p-value of the
// beta-binomial exceeds the binomial's.
TEST(DependentExceedanceTest, DependenceWidensTheLaw) {
  const auto ar1 = [](std::int64_t lag) { return std::pow(0.8, static_cast<double>(lag)); };
  const std::int64_t n = 1000, k = 20;  // expected 10 at level 0.99
  const TestResult b = binomial_test(k, n, 0.01, 0.01);
  const TestResult d = dependent_exceedance_test(k, n, 0.99, ar1, 0.01);
  EXPECT_TRUE(b.rejects) << show(b.p_value);
  EXPECT_FALSE(d.rejects) << d.detail << " p " << show(d.p_value);
  EXPECT_GT(d.p_value, b.p_value);
  EXPECT_NE(d.name.find("beta-binomial"), std::string::npos) << d.name;
  // At the mode region the p-value is ~1: the beta-binomial probabilities sum to 1 (relative error
  // of the lgamma-based pmf: ~1e-12).
  double best = 0;
  for (std::int64_t c = 0; c <= 20; ++c) best = std::fmax(best, dependent_exceedance_test(c, n, 0.99, ar1, 0.01).p_value);
  EXPECT_NEAR(best, 1.0, 1e-9);
}

TEST(KsTwoSample, HandMadeStatistics) {
  const std::vector<double> a = {1, 2, 3}, b = {4, 5, 6}, c = {3, 1, 5}, d = {6, 2, 4};
  const TestResult apart = ks_two_sample(a, b, 0.05);
  EXPECT_EQ(apart.statistic, 1.0);
  EXPECT_EQ(apart.p_value, 0.1);  // 2 of the C(6, 3) = 20 orders reach D = 1: 2/20, rounded once
  EXPECT_EQ(apart.name, "two-sample Kolmogorov-Smirnov");
  const TestResult interleaved = ks_two_sample(c, d, 0.05);  // unsorted on purpose
  EXPECT_EQ(show(interleaved.statistic), show(1.0 / 3));
  EXPECT_EQ(interleaved.p_value, 1.0);  // D >= 1/3 always: each sample's first step is 1/3
  // Ties across samples: at the shared value 2 both steps are taken before measuring. x = {1,2,2,3},
  // y = {2,2,4}: |F_x - F_y| is 1/4, 1/12, 1/3, 0 at 1, 2, 3, 4 -> D = 1/3 (not 3/4, which a
  // one-at-a-time walk through the x's 2s would report).
  const std::vector<double> x = {2, 1, 3, 2}, y = {4, 2, 2};
  EXPECT_EQ(show(ks_two_sample(x, y, 0.05).statistic), show(4.0 / 12));
  EXPECT_EQ(ks_two_sample(x, x, 0.05).statistic, 0.0);
  EXPECT_EQ(ks_two_sample(x, x, 0.05).p_value, 1.0);
}

// The exact p-value is the enumeration's: samples made of ranks, compared with brute force over
// all C(n+m, n) orders.
TEST(KsTwoSample, ExactPValueMatchesEnumeration) {
  const std::vector<double> x = {0.1, 0.4, 0.5, 0.9, 1.3}, y = {0.2, 0.3, 0.35, 1.1, 1.2, 1.4};
  const TestResult r = ks_two_sample(x, y, 0.05);
  const int n = 5, m = 6;
  // D n m for the data: walk the pooled order.
  std::int64_t observed = static_cast<std::int64_t>(std::llround(r.statistic * n * m));
  std::int64_t count = 0, total = 0;
  for (unsigned mask = 0; mask < (1u << (n + m)); ++mask) {
    if (__builtin_popcount(mask) != n) continue;
    std::int64_t i = 0, j = 0, dmax = 0;
    for (int bit = 0; bit < n + m; ++bit) {
      ((mask >> bit) & 1) ? ++i : ++j;
      dmax = std::max<std::int64_t>(dmax, std::abs(i * m - j * n));
    }
    ++total;
    count += dmax >= observed;
  }
  EXPECT_EQ(observed, 9);  // n m (F_x - F_y) is -9 after 0.35 and +9 after 0.9, never more in size
  EXPECT_EQ(show(r.p_value), show(static_cast<double>(count) / static_cast<double>(total)));
  EXPECT_NE(r.detail.find("exact"), std::string::npos);
}

// Large samples use Stephens' corrected limit law; seeded uniform samples from one law do not reject
// (probability 0.001 of a false rejection; fixed seed), shifted by 1 (D ~ 0.5, lambda ~ 5) they do.
TEST(KsTwoSample, AsymptoticPathAndPower) {
  const CounterRng rng(77, 1);
  std::vector<double> a, b, shifted;
  for (std::uint64_t i = 0; i < 200; ++i) {
    a.push_back(rng.uniform_dyadic(i));
    b.push_back(rng.uniform_dyadic(1000 + i));
    shifted.push_back(rng.uniform_dyadic(2000 + i) + 1);
  }
  const TestResult same = ks_two_sample(a, b, 0.001);
  EXPECT_FALSE(same.rejects) << same.detail;
  const double root = std::sqrt(100.0);
  EXPECT_EQ(show(same.p_value), show(kolmogorov_survival((root + 0.12 + 0.11 / root) * same.statistic)));
  EXPECT_NE(same.detail.find("asymptotic"), std::string::npos);
  const TestResult moved = ks_two_sample(a, shifted, 0.001);
  EXPECT_TRUE(moved.rejects) << moved.detail;
}

TEST(KsTwoSample, BadSamplesAreInputErrors) {
  const std::vector<double> empty, some = {1, 2}, with_nan = {1, std::nan("")};
  EXPECT_THROW((void)ks_two_sample(empty, some, 0.05), InputError);
  EXPECT_THROW((void)ks_two_sample(some, empty, 0.05), InputError);
  EXPECT_THROW((void)ks_two_sample(some, with_nan, 0.05), InputError);
}

// sum w = 0 exactly (w_r = -w_{n-1-r}, each correctly rounded), and sum w r = 1 up to the weights'
// rounding: |sum w r - 1| <= 2^-53 sum |w_r| r, evaluated exactly in MPFR.
void expect_slope_weights(std::int64_t n) {
  const std::vector<double> w = slope_weights(n);
  ASSERT_EQ(static_cast<std::int64_t>(w.size()), n);
  ExactSum sum;
  mpfr_t swr, bound, t;
  mpfr_inits2(4096, swr, bound, t, nullptr);
  mpfr_set_zero(swr, 1);
  mpfr_set_zero(bound, 1);
  for (std::int64_t r = 0; r < n; ++r) {
    const double wr = w[static_cast<std::size_t>(r)];
    EXPECT_EQ(wr, -w[static_cast<std::size_t>(n - 1 - r)]) << "r " << r << ": " << show(wr);
    sum.add(wr);
    mpfr_set_d(t, wr, MPFR_RNDN);
    mpfr_mul_si(t, t, static_cast<long>(r), MPFR_RNDN);  // exact at 4096 bits
    mpfr_add(swr, swr, t, MPFR_RNDN);
    mpfr_abs(t, t, MPFR_RNDN);
    mpfr_add(bound, bound, t, MPFR_RNDN);
  }
  EXPECT_EQ(sum.to_text(), "0") << "n " << n;
  mpfr_sub_ui(swr, swr, 1, MPFR_RNDN);
  mpfr_abs(swr, swr, MPFR_RNDN);
  mpfr_div_2ui(bound, bound, 53, MPFR_RNDN);
  EXPECT_LE(mpfr_cmp(swr, bound), 0) << "n " << n << ": |sum w r - 1| = " << mpfr_get_d(swr, MPFR_RNDN);
  mpfr_clears(swr, bound, t, nullptr);
}

TEST(SlopeWeights, DefiningSums) {
  EXPECT_EQ(slope_weights(2), (std::vector<double>{-1, 1}));
  EXPECT_EQ(slope_weights(3), (std::vector<double>{-0.5, 0, 0.5}));
  for (const std::int64_t n : {2, 3, 4, 7, 100, 5001}) expect_slope_weights(n);
  expect_slope_weights(210000);  // n (n^2 - 1) > 2^53: the MPFR path
  EXPECT_THROW((void)slope_weights(1), InputError);
}

}  // namespace
}  // namespace ropecheck::statistics

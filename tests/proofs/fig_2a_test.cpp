#include "proofs/fig-2a.h"

#include <gtest/gtest.h>

#include <cmath>

#include "io/input_error.h"
#include "numeric/decimal.h"
#include "numeric/interval_series.h"
#include "numeric/precision.h"
#include "spectrum/frequencies.h"
#include "tests/support/show.h"

namespace ropecheck::proofs {
namespace {

// f(r) = (2/d) sum_k cos(r g_k) straight from MPFR's cos at 600 bits (no addition formulas, no
// intervals): within ~r 2^-590 of the exact value, far inside the 257-bit enclosures.
Real reference_f(const Spectrum& sp, long long r) {
  ScopedPrecision p(600);
  const std::vector<Real> g = frequencies<Real>(sp);
  Real sum(0);
  for (const Real& gk : g) sum += cos(Real(Real(r) * gk));
  return Real(sum * 2 / sp.dim());
}

// The same sum in binary64. The exponent -2k/d is exact (d a power of 2) and pow is within 1 ulp, so
// g carries a relative error <= 1.1e-16 and the product r g another: the angle is off by
// <= r g 2.2e-16 <= 5000 * 2.2e-16 = 1.1e-12 (g <= 1), cos (1-Lipschitz) adds 1.1e-16, and the sum of
// <= 128 terms of size <= 1 rounds by <= 128 * 128 * 1.1e-16 = 1.8e-12 before the factor 2/d:
// |error| < 1.2e-12 + 2e-14 < 3e-12.
std::vector<double> double_f(int d, long long N) {
  std::vector<double> f(static_cast<std::size_t>(N + 1));
  for (long long r = 0; r <= N; ++r) {
    double s = 0;
    for (int k = 0; k < d / 2; ++k) s += std::cos(static_cast<double>(r) * std::pow(10000.0, -2.0 * k / d));
    f[static_cast<std::size_t>(r)] = s * 2 / d;
  }
  return f;
}
constexpr double kDoubleError = 3e-12;

TEST(Fig2a, AllOnesActivationContainsThe600BitSum) {
  for (int d : {128, 256}) {
    const Spectrum sp(d, "10000");
    ScopedPrecision p(256);
    const std::vector<Interval> f = all_ones_activation(frequencies<Interval>(sp), 5000);
    ASSERT_EQ(f.size(), 5001u);
    EXPECT_EQ(lower_of(f[0]), 1);
    EXPECT_EQ(upper_of(f[0]), 1);
    for (long long r : {1LL, 2LL, 17LL, 70LL, 71LL, 1000LL, 1706LL, 1707LL, 2652LL, 2653LL, 4999LL, 5000LL}) {
      const Real ref = reference_f(sp, r);
      EXPECT_TRUE(contains(f[static_cast<std::size_t>(r)], ref))
          << "d=" << d << " r=" << r << " f=" << show(f[static_cast<std::size_t>(r)]) << " ref=" << to_decimal(ref, 30);
      EXPECT_LT(Real(upper_of(f[static_cast<std::size_t>(r)]) - lower_of(f[static_cast<std::size_t>(r)])), Real("1e-65"));
    }
  }
}

TEST(Fig2a, CertifiedFactsAgreeWithABinary64Scan) {
  ClaimOptions o;
  const std::vector<Certificate> certs = check_fig_2a(o);
  ASSERT_EQ(certs.size(), 2u);
  const int dims[] = {128, 256};
  for (int t = 0; t < 2; ++t) {
    const Certificate& c = certs[static_cast<std::size_t>(t)];
    EXPECT_EQ(c.verdict, Verdict::holds) << c.details.dump();
    const std::vector<double> f = double_f(dims[t], 5000);
    // The first negative r: the binary64 values before it are all > kDoubleError, and at it < -kDoubleError.
    long long first = -1;
    for (long long r = 0; r <= 5000 && first < 0; ++r)
      if (f[static_cast<std::size_t>(r)] < 0) first = r;
    for (long long r = 0; r < first; ++r) ASSERT_GT(f[static_cast<std::size_t>(r)], kDoubleError) << r;
    ASSERT_LT(f[static_cast<std::size_t>(first)], -kDoubleError);
    const auto q = std::find_if(c.quantities.begin(), c.quantities.end(), [](const Quantity& x) { return x.name == "first r with f(r) < 0"; });
    ASSERT_NE(q, c.quantities.end());
    EXPECT_EQ(q->lower, std::to_string(first)) << "d=" << dims[t];
    // Certified increases lie between the clear binary64 increases and all non-clear-decreases.
    long long clear_up = 0, maybe_up = 0;
    for (long long r = 0; r < 5000; ++r) {
      const double step = f[static_cast<std::size_t>(r + 1)] - f[static_cast<std::size_t>(r)];
      clear_up += step > 2 * kDoubleError;
      maybe_up += step > -2 * kDoubleError;
    }
    const auto inc = std::find_if(c.quantities.begin(), c.quantities.end(),
                                  [](const Quantity& x) { return x.name.rfind("certified increases", 0) == 0; });
    ASSERT_NE(inc, c.quantities.end());
    EXPECT_GE(std::stoll(inc->lower), clear_up) << "d=" << dims[t];
    EXPECT_LE(std::stoll(inc->lower), maybe_up) << "d=" << dims[t];
    EXPECT_GT(clear_up, 0);
  }
}

TEST(Fig2a, MonotoneDecayIsCertainlyFalse) {
  // Negative case: a check of "f decreases monotonically on 0..5000" must come out false (certified
  // increases exist), not true and not undecided.
  ScopedPrecision p(256);
  const std::vector<Interval> f = all_ones_activation(frequencies<Interval>(Spectrum(128, "10000")), 5000);
  const StepCounts s = count_steps(f, 0, 5000);
  const bool monotone_decay_certified = s.increases == 0 && s.undecided == 0;
  EXPECT_FALSE(monotone_decay_certified);
  EXPECT_GT(s.increases, 0);
  EXPECT_EQ(s.first_increases.front(), 11);  // f(12) > f(11): the first bump, also in binary64
  EXPECT_GT(double_f(128, 12)[12], double_f(128, 12)[11] + 2 * kDoubleError);
}

TEST(Fig2a, AMonotoneCurveAndNoPEDoNotHold) {
  // Frequencies divided by 1000 (linear scaling): every angle r g_k <= 0.1 on 0..100, f is strictly
  // decreasing there, so "not monotone" is certainly false: the check fails rather than holds.
  ClaimOptions o;
  o.spectrum.dim = 4;
  o.spectrum.scaling = Scaling::linear("1000");
  o.max_n = 100;
  const auto mono = check_fig_2a(o);
  ASSERT_EQ(mono.size(), 1u);
  EXPECT_EQ(mono[0].verdict, Verdict::fails) << mono[0].details.dump();
  // NoPE: f = 1 at every r, no decay at all.
  ClaimOptions n;
  n.spectrum.dim = 64;
  n.spectrum.variant = Variant::nope;
  n.max_n = 200;
  const auto nope = check_fig_2a(n);
  EXPECT_EQ(nope[0].verdict, Verdict::fails);
  EXPECT_FALSE(nope[0].as_paper_states());
}

TEST(Fig2a, BadMaxNIsAnInputError) {
  ClaimOptions o;
  o.max_n = 49;
  EXPECT_THROW(check_fig_2a(o), InputError);
}

}  // namespace
}  // namespace ropecheck::proofs

// Tests for statistics/exceedance_count.h: the orthant identity at the correlations where it is known
// in closed form, against a direct numerical integral elsewhere, and the count's variance against a
// seeded simulation of a Gaussian AR(1) sequence.
#include "statistics/exceedance_count.h"
#include "io/printf_string.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>
#include <vector>

#include "io/input_error.h"
#include "random/counter_rng.h"
#include "statistics/moments.h"
#include "tests/support/show.h"

namespace ropecheck::statistics {
namespace {

double upper_tail(double x) { return 0.5 * std::erfc(x / std::numbers::sqrt2); }  // 1 - Phi(x)

TEST(JointExceedance, ClosedFormCorrelations) {
  for (const double z : {0.5, 1.6448536269514722, 3.2905267314918945}) {
    SCOPED_TRACE("z " + show(z));
    const double p = 2 * upper_tail(z);
    // Tolerance: each orthant is Phi(h) - 2 T(h, a), a difference of numbers ~p/2 whose result is
    // ~p^2/4 at rho = 0: with Phi and T each within 10 ulps (Boost documents a few eps for both), the
    // relative error is at most 2 * 10 * 2^-52 * (p/2) / (p^2/4) = 40 * 2^-52 * 2/p.
    const double tolerance = 40 * 0x1p-52 * 2 / p;
    EXPECT_NEAR(joint_exceedance(z, 0.0) / (p * p), 1.0, tolerance);
    EXPECT_NEAR(joint_exceedance(z, 1.0) / p, 1.0, tolerance);
    EXPECT_NEAR(joint_exceedance(z, -1.0) / p, 1.0, tolerance);
    EXPECT_NEAR(joint_exceedance(z, 0.3), joint_exceedance(z, -0.3), 1e-16);  // |Z| ignores the sign
  }
  EXPECT_NEAR(joint_exceedance(0.0, 0.7), 1.0, 40 * 0x1p-52);  // the same bound at p = 1
}

// P(|Z1| > z, |Z2| > z) = int_{|x| > z} phi(x) P(|Z2| > z | x) dx with Z2 | x ~ N(rho x, 1 - rho^2),
// by composite Simpson on [z, 12] (doubled by symmetry) with h = 1e-4: error <= (12 - z) h^4
// max|f''''| / 180 < 1e-16 for these smooth integrands (|f''''| < 100), tail beyond 12 < 1e-32.
// Tolerance 1e-12 absolute covers that and erfc's rounding summed over 1e5 points.
TEST(JointExceedance, AgreesWithNumericalIntegration) {
  for (const double z : {1.0, 2.5758293035489004}) {
    for (const double rho : {0.5, -0.5, 0.9, 0.2}) {
      const double s = std::sqrt(1 - rho * rho);
      const auto f = [&](double x) {
        const double phi = std::exp(-x * x / 2) / std::sqrt(2 * std::numbers::pi);
        return phi * (upper_tail((z - rho * x) / s) + upper_tail((z + rho * x) / s));
      };
      const int steps = static_cast<int>((12 - z) / 1e-4) / 2 * 2;
      const double h = (12 - z) / steps;
      double sum = f(z) + f(12);
      for (int i = 1; i < steps; ++i) sum += (i % 2 ? 4 : 2) * f(z + i * h);
      const double integral = 2 * sum * h / 3;
      EXPECT_NEAR(joint_exceedance(z, rho), integral, 1e-12) << "z " << show(z) << " rho " << show(rho);
    }
  }
}

TEST(JointExceedance, BadArgumentsAreInputErrors) {
  EXPECT_THROW((void)joint_exceedance(-1, 0.5), InputError);
  EXPECT_THROW((void)joint_exceedance(1, 1.5), InputError);
  EXPECT_THROW((void)joint_exceedance(1, std::nan("")), InputError);
}

TEST(ExceedanceCountLaw, IndependentIsBinomialExactly) {
  const ExceedanceCountLaw law = exceedance_count_law(5001, 0.999, [](std::int64_t) { return 0.0; });
  EXPECT_EQ(show(law.variance), show(law.binomial_variance));
  EXPECT_EQ(show(law.mean), show(5001 * (1 - 0.999)));
  EXPECT_NEAR(law.z, 3.2905267314918945, 1e-14);
  // Perfect dependence: the count is 0 or n, variance n^2 p (1 - p) (relative 1e-12: the terms'
  // relative error is 40 * 2^-52 * 2/p ~ 4e-13 at p = 0.05, see above).
  const ExceedanceCountLaw one = exceedance_count_law(100, 0.95, [](std::int64_t) { return 1.0; });
  EXPECT_NEAR(one.variance / (100.0 * 100.0 * 0.05 * 0.95), 1.0, 1e-12);
}

TEST(ExceedanceCountLaw, BadArgumentsAreInputErrors) {
  const auto zero = [](std::int64_t) { return 0.0; };
  EXPECT_THROW((void)exceedance_count_law(0, 0.9, zero), InputError);
  EXPECT_THROW((void)exceedance_count_law(10, 1.0, zero), InputError);
  EXPECT_THROW((void)exceedance_count_law(10, 0.9, [](std::int64_t) { return 2.0; }), InputError);
}

// A stationary Gaussian AR(1) sequence Z_t = phi Z_{t-1} + sqrt(1 - phi^2) e_t has corr = phi^lag.
// 4000 seeded sequences of n = 100 give the count's sample variance and its standard error (delta
// method, from the sample's own fourth moment); the formula must lie within 4.4 standard errors
// (two-sided false-failure probability 1e-5 in the normal approximation; the seed is fixed, so the
// outcome is too), and the binomial variance must not (else the test could not tell them apart).
// Normal deviates: Box-Muller on CounterRng with libm log/cos/sin (test-only data).
TEST(ExceedanceCountLaw, MatchesAnAr1Simulation) {
  constexpr int kN = 100, kReplicates = 4000;
  constexpr double kPhi = 0.7, kLevel = 0.9;
  const ExceedanceCountLaw law = exceedance_count_law(kN, kLevel, [](std::int64_t lag) { return std::pow(kPhi, lag); });
  const CounterRng rng(424242, 17);
  std::uint64_t index = 0;
  const auto normal = [&]() {
    const double u = (static_cast<double>(rng.bits(index++) >> 11) + 1) * 0x1p-53;
    const double t = static_cast<double>(rng.bits(index++) >> 11) * 0x1p-53;
    return std::sqrt(-2 * std::log(u)) * std::cos(2 * std::numbers::pi * t);
  };
  Moments counts;
  const double innovation = std::sqrt(1 - kPhi * kPhi);
  for (int rep = 0; rep < kReplicates; ++rep) {
    double zt = normal();
    int count = 0;
    for (int t = 0; t < kN; ++t) {
      if (t > 0) zt = kPhi * zt + innovation * normal();
      count += std::fabs(zt) > law.z;
    }
    counts.add(count);
  }
  const Summary s = summarize(counts);
  SCOPED_TRACE("simulated variance " + show(s.variance) + " +- " + show(s.variance_standard_error) + ", formula " +
               show(law.variance) + ", binomial " + show(law.binomial_variance));
  EXPECT_LT(std::fabs(s.variance - law.variance), 4.4 * s.variance_standard_error);
  EXPECT_GT(std::fabs(s.variance - law.binomial_variance), 10 * s.variance_standard_error);
  EXPECT_LT(std::fabs(s.mean - law.mean), 4.4 * std::sqrt(law.variance / kReplicates));
}

}  // namespace
}  // namespace ropecheck::statistics

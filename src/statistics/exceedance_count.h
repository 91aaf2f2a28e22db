// File: exceedance_count.h
// The law of a count of dependent Gaussian threshold exceedances: of stationary standard normal
// Z_0..Z_{n-1} with corr(Z_r, Z_s) = rho(|r - s|), how many have |Z_r| > z. This is what "the
// fraction of distances whose confidence interval excludes 0" is when the per-distance estimates
// are correlated (fig9: one q and one k for every distance), so dependent_exceedance_test
// (inference.h) can judge that fraction without assuming independence.
#pragma once

#include <cstdint>
#include <functional>

namespace ropecheck::statistics {

// Returns: P(|Z1| > z, |Z2| > z) for a standard bivariate normal (Z1, Z2) with correlation rho:
//   2 [Phi2(-z, -z; rho) + Phi2(-z, -z; -rho)]
// (the two same-sign quadrants are equal by (Z1, Z2) -> (-Z1, -Z2); an opposite-sign quadrant is a
// same-sign one of (Z1, -Z2), whose correlation is -rho), with Owen's (1956) formula on the diagonal
//   Phi2(h, h; rho) = Phi(h) - 2 T(h, sqrt((1 - rho)/(1 + rho)))
// (T = Owen's T function, boost::math::owens_t; rho = -1 is the limit Phi2(h, h; -1) = max(0,
// 2 Phi(h) - 1)). Checks: rho = 0 gives p^2, rho = +-1 gives p, where p = 2 Phi(-z).
// Boost's normal cdf and owens_t use libm exp/erfc: last bits may differ between libm versions.
// Preconditions: z >= 0, -1 <= rho <= 1 (InputError otherwise).
double joint_exceedance(double z, double rho);

struct ExceedanceCountLaw {
  double p = 0;                  // 1 - level, each event's probability
  double z = 0;                  // the (1 + level)/2 normal quantile
  double mean = 0;               // n p
  double variance = 0;           // sum_{r,s} [P(E_r and E_s) - p^2]
  double binomial_variance = 0;  // n p (1 - p), the independent case
};

// Returns: the count's mean and variance for z the (1 + level)/2 normal quantile:
//   variance = n p (1 - p) + 2 sum_{lag=1}^{n-1} (n - lag) [joint_exceedance(z, rho(lag)) - p^2],
// where a lag with rho(lag) == 0 contributes exactly 0 (so rho = 0 everywhere gives exactly the
// binomial variance). `rho` is called once for every lag in 1..n-1, in order.
// Preconditions: n >= 1, 0 < level < 1, rho(lag) in [-1, 1] (InputError otherwise).
ExceedanceCountLaw exceedance_count_law(std::int64_t n, double level,
                                        const std::function<double(std::int64_t lag)>& rho);

}  // namespace ropecheck::statistics

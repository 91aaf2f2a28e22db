// File: exceedance_count.cpp
#include "statistics/exceedance_count.h"

#include <boost/math/distributions/normal.hpp>
#include <boost/math/special_functions/owens_t.hpp>

#include <cmath>
#include <cstdio>
#include <string>

#include "io/input_error.h"
#include "io/printf_string.h"

namespace ropecheck::statistics {
namespace {

std::string text_of(double x) { return printf_string("%.17g", x); }

// Phi2(h, h; rho) = P(Z1 <= h, Z2 <= h).
double diagonal_orthant(double h, double rho) {
  const boost::math::normal_distribution<double> normal;
  const double phi = boost::math::cdf(normal, h);
  if (rho <= -1) return std::fmax(0.0, 2 * phi - 1);
  const double a = std::sqrt((1 - rho) / (1 + rho));
  return phi - 2 * boost::math::owens_t(h, a);
}

}  // namespace

double joint_exceedance(double z, double rho) {
  if (!(z >= 0) || std::isinf(z)) throw InputError("exceedance threshold z", "a finite number >= 0", text_of(z));
  if (!(rho >= -1 && rho <= 1)) throw InputError("correlation rho", "a number in [-1, 1]", text_of(rho));
  return 2 * (diagonal_orthant(-z, rho) + diagonal_orthant(-z, -rho));
}

ExceedanceCountLaw exceedance_count_law(std::int64_t n, double level,
                                        const std::function<double(std::int64_t lag)>& rho) {
  if (n < 1) throw InputError("exceedance count n", "an integer >= 1", std::to_string(n));
  if (!(level > 0 && level < 1)) throw InputError("confidence level", "a number in (0, 1)", text_of(level));
  ExceedanceCountLaw law;
  law.p = 1 - level;
  // -quantile(p/2) rather than quantile((1 + level)/2): the lower tail keeps p's relative accuracy.
  law.z = -boost::math::quantile(boost::math::normal_distribution<double>(), law.p / 2);
  const double nd = static_cast<double>(n);
  law.mean = nd * law.p;
  law.binomial_variance = nd * law.p * (1 - law.p);
  const double p2 = law.p * law.p;
  double covariance = 0;  // sum over lags of (n - lag) cov(lag); n terms, not n^2
  for (std::int64_t lag = 1; lag < n; ++lag) {
    const double r = rho(lag);
    if (!(r >= -1 && r <= 1)) {
      throw InputError("rho(" + std::to_string(lag) + ")", "a correlation in [-1, 1]", text_of(r));
    }
    if (r == 0) continue;
    covariance += static_cast<double>(n - lag) * (joint_exceedance(law.z, r) - p2);
  }
  law.variance = law.binomial_variance + 2 * covariance;
  return law;
}

}  // namespace ropecheck::statistics

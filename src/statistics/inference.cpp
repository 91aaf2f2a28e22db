// File: inference.cpp
// Every p-value and quantile here comes from Boost.Math (or, for the Kolmogorov law, from libm exp):
// they are reported numbers computed from the final statistics, not inputs of any sampled result,
// so libm is allowed. Their last bits may differ between libm versions; a verdict at alpha could
// only flip if a p-value lay within a few ulps of alpha, which does not happen in practice (the
// reports print the p-values, so a reader can see how far from alpha each one is).
#include "statistics/inference.h"

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <boost/math/special_functions/gamma.hpp>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdlib>
#include <cstdio>
#include <limits>
#include <vector>

#include <gmp.h>
#include <mpfr.h>

#include "io/input_error.h"
#include "io/printf_string.h"
#include "statistics/exceedance_count.h"
#include "statistics/kolmogorov.h"

namespace ropecheck::statistics {
namespace {

void check_alpha(double alpha) {
  if (!(alpha > 0 && alpha < 1)) throw InputError("significance level alpha", "a number in (0, 1)", printf_string("%.17g", alpha));
}

// R's binom.test tolerance: outcomes up to this factor more likely than the observed one still
// count as "no more likely" (it absorbs the rounding of the probabilities being compared).
constexpr double kRelErr = 1 + 1e-7;

// Two-sided exact binomial p-value, as R's binom.test: P(X <= k) plus the far tail of outcomes no
// more likely than k (or the mirror image). The pmf is non-increasing from ceil(n p) up (the mode
// floor((n + 1) p) is at most ceil(n p)) and non-decreasing up to floor(n p), so the far-tail
// outcomes form a suffix (prefix) found by bisection: O(log n) pdf evaluations.
double binomial_two_sided(std::int64_t k, std::int64_t n, double p) {
  const boost::math::binomial_distribution<double> law(static_cast<double>(n), p);
  const double nd = static_cast<double>(n);
  const double m = nd * p;
  const double kd = static_cast<double>(k);
  if (kd == m) return 1.0;
  const double d = boost::math::pdf(law, kd) * kRelErr;
  double pv;
  if (kd < m) {
    // Smallest j in [ceil(m), n + 1] with pdf(i) <= d for every i >= j.
    std::int64_t lo = static_cast<std::int64_t>(std::ceil(m)), hi = n + 1;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (boost::math::pdf(law, static_cast<double>(mid)) <= d) hi = mid;
      else lo = mid + 1;
    }
    // P(X <= k) + P(X >= lo) = P(X <= k) + P(X > lo - 1).
    pv = boost::math::cdf(law, kd) + (lo <= n ? boost::math::cdf(boost::math::complement(law, static_cast<double>(lo - 1))) : 0.0);
  } else {
    // y = the number of i in [0, floor(m)] with pdf(i) <= d: a prefix [0, y).
    std::int64_t lo = 0, hi = static_cast<std::int64_t>(std::floor(m)) + 1;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (boost::math::pdf(law, static_cast<double>(mid)) <= d) lo = mid + 1;
      else hi = mid;
    }
    const std::int64_t y = lo;
    pv = (y > 0 ? boost::math::cdf(law, static_cast<double>(y - 1)) : 0.0) +
         boost::math::cdf(boost::math::complement(law, kd - 1));
  }
  return std::min(1.0, pv);
}

// Two-sided p-value of an arbitrary law on 0..n given by its log pmf (not necessarily unimodal:
// a beta-binomial with a or b < 1 is U-shaped), summing every outcome no more likely than k.
double two_sided_from_log_pmf(std::int64_t k, const std::vector<double>& log_pmf) {
  const double limit = log_pmf[static_cast<std::size_t>(k)] + std::log(kRelErr);
  double pv = 0;
  for (double l : log_pmf) {
    if (l <= limit) pv += std::exp(l);
  }
  return std::min(1.0, pv);
}

}  // namespace

Interval2 mean_interval(const Summary& s, double level) {
  if (!(level > 0 && level < 1)) throw InputError("confidence level", "a number in (0, 1)", printf_string("%.17g", level));
  if (s.n < 2 || s.standard_error == 0) return {s.mean, s.mean};
  const boost::math::students_t_distribution<double> t(static_cast<double>(s.n - 1));
  // The upper tail's quantile from its complement (1 - level)/2, which keeps its relative accuracy.
  const double q = boost::math::quantile(boost::math::complement(t, (1 - level) / 2));
  return {s.mean - q * s.standard_error, s.mean + q * s.standard_error};
}

TestResult binomial_test(std::int64_t k, std::int64_t n, double p, double alpha) {
  if (n < 0) throw InputError("binomial test n", "an integer >= 0", std::to_string(n));
  if (k < 0 || k > n) throw InputError("binomial test count k", "an integer in [0, n = " + std::to_string(n) + "]", std::to_string(k));
  if (!(p >= 0 && p <= 1)) throw InputError("binomial test probability p", "a number in [0, 1]", printf_string("%.17g", p));
  check_alpha(alpha);
  TestResult r;
  r.name = "binomial";
  r.statistic = static_cast<double>(k);
  r.p_value = n == 0 ? 1.0 : binomial_two_sided(k, n, p);
  r.rejects = r.p_value < alpha;
  r.detail = printf_string("n=%lld p=%.6g expected=%.6g observed=%lld", static_cast<long long>(n), p,
                    static_cast<double>(n) * p, static_cast<long long>(k));
  return r;
}

TestResult dependent_exceedance_test(std::int64_t k, std::int64_t n, double level,
                                     const std::function<double(std::int64_t lag)>& rho, double alpha) {
  if (k < 0 || k > n) throw InputError("exceedance count k", "an integer in [0, n = " + std::to_string(n) + "]", std::to_string(k));
  check_alpha(alpha);
  const ExceedanceCountLaw law = exceedance_count_law(n, level, rho);
  TestResult r;
  r.statistic = static_cast<double>(k);
  const double inflation = law.variance / law.binomial_variance;
  const std::string common =
      printf_string("n=%lld p=%.6g expected=%.6g observed=%lld variance=%.6g binomial variance=%.6g inflation=%.6g",
             static_cast<long long>(n), law.p, law.mean, static_cast<long long>(k), law.variance,
             law.binomial_variance, inflation);
  if (!(law.variance > law.binomial_variance) || n == 1) {
    // No positive dependence to account for: the binomial law (beta-binomial needs overdispersion).
    const TestResult b = binomial_test(k, n, law.p, alpha);
    r.name = "dependent exceedance (binomial)";
    r.p_value = b.p_value;
    r.rejects = b.rejects;
    r.detail = common + " law=binomial";
    return r;
  }
  // Beta-binomial(n, a, b) with mean n pi and variance n pi (1 - pi) (1 + (n - 1) c), c = 1/(a + b + 1):
  // pi = p, c = (inflation - 1)/(n - 1). c -> 1 is perfect dependence (the count is 0 or n).
  const double c = (inflation - 1) / static_cast<double>(n - 1);
  const double nd = static_cast<double>(n);
  std::vector<double> log_pmf(static_cast<std::size_t>(n + 1));
  if (c >= 1 - 1e-12) {
    // The two-point limit: at c = 1 - 1e-12 the beta-binomial puts only ~1e-12 on 1..n-1.
    constexpr double kMinusInf = -std::numeric_limits<double>::infinity();
    std::fill(log_pmf.begin(), log_pmf.end(), kMinusInf);
    log_pmf.front() = std::log1p(-law.p);
    log_pmf.back() = std::log(law.p);
    r.name = "dependent exceedance (beta-binomial, perfect dependence)";
    r.detail = common + " law=two-point {0, n}";
  } else {
    const double ab = 1 / c - 1;
    const double a = law.p * ab, b = (1 - law.p) * ab;
    using boost::math::lgamma;
    const double log_beta_ab = lgamma(a) + lgamma(b) - lgamma(ab);
    const double log_n_factorial = lgamma(nd + 1);
    for (std::int64_t i = 0; i <= n; ++i) {
      const double id = static_cast<double>(i);
      log_pmf[static_cast<std::size_t>(i)] = log_n_factorial - lgamma(id + 1) - lgamma(nd - id + 1) +
                                             lgamma(id + a) + lgamma(nd - id + b) - lgamma(nd + ab) - log_beta_ab;
    }
    r.name = "dependent exceedance (beta-binomial)";
    r.detail = common + printf_string(" law=beta-binomial(a=%.6g, b=%.6g)", a, b);
  }
  r.p_value = two_sided_from_log_pmf(k, log_pmf);
  r.rejects = r.p_value < alpha;
  return r;
}

TestResult t_test(const Summary& s, double mu0, double alpha, const std::string& name) {
  check_alpha(alpha);
  if (s.n < 2) throw InputError(name + " sample size", "at least 2 values", std::to_string(s.n));
  TestResult r;
  r.name = name;
  if (s.standard_error == 0) {
    r.statistic = s.mean == mu0 ? 0.0 : std::copysign(std::numeric_limits<double>::infinity(), s.mean - mu0);
    r.p_value = s.mean == mu0 ? 1.0 : 0.0;
  } else {
    r.statistic = (s.mean - mu0) / s.standard_error;
    const boost::math::students_t_distribution<double> t(static_cast<double>(s.n - 1));
    r.p_value = std::isnan(r.statistic) ? std::numeric_limits<double>::quiet_NaN()
                                        : 2 * boost::math::cdf(boost::math::complement(t, std::fabs(r.statistic)));
  }
  r.rejects = r.p_value < alpha;
  r.detail = printf_string("n=%lld mean=%.9g mu0=%.9g se=%.6g t=%.6g df=%lld", static_cast<long long>(s.n), s.mean, mu0,
                    s.standard_error, r.statistic, static_cast<long long>(s.n - 1));
  return r;
}

TestResult ks_two_sample(std::span<const double> x, std::span<const double> y, double alpha) {
  check_alpha(alpha);
  if (x.empty() || y.empty()) {
    throw InputError("Kolmogorov-Smirnov samples", "two non-empty samples",
                     std::to_string(x.size()) + " and " + std::to_string(y.size()) + " values");
  }
  constexpr std::size_t kMaxSize = std::size_t{1} << 31;  // keeps i m - j n inside int64
  if (x.size() >= kMaxSize || y.size() >= kMaxSize) {
    throw InputError("Kolmogorov-Smirnov samples", "fewer than 2^31 values each",
                     std::to_string(x.size()) + " and " + std::to_string(y.size()) + " values");
  }
  std::vector<double> xs(x.begin(), x.end()), ys(y.begin(), y.end());
  const auto is_nan = [](double v) { return std::isnan(v); };
  if (std::any_of(xs.begin(), xs.end(), is_nan) || std::any_of(ys.begin(), ys.end(), is_nan)) {
    throw InputError("Kolmogorov-Smirnov samples", "values that are not NaN", "a NaN");
  }
  std::sort(xs.begin(), xs.end());
  std::sort(ys.begin(), ys.end());
  const std::int64_t n = static_cast<std::int64_t>(xs.size()), m = static_cast<std::int64_t>(ys.size());
  // n m D = max |i m - j n| over the distinct values v, i = #{x <= v}, j = #{y <= v}: stepping past
  // every copy of v in both samples before measuring handles ties across the samples.
  std::int64_t i = 0, j = 0, d = 0;
  while (i < n || j < m) {
    const double v = (j >= m || (i < n && xs[i] <= ys[j])) ? xs[i] : ys[j];
    while (i < n && xs[i] == v) ++i;
    while (j < m && ys[j] == v) ++j;
    d = std::max(d, std::abs(i * m - j * n));
  }
  TestResult r;
  r.name = "two-sample Kolmogorov-Smirnov";
  const double nm = static_cast<double>(n) * static_cast<double>(m);
  r.statistic = static_cast<double>(d) / nm;
  std::string method;
  if (n * m <= 10000) {
    r.p_value = smirnov_exact_survival(n, m, d);
    method = "exact";
  } else {
    const double ne = nm / static_cast<double>(n + m);
    const double root = std::sqrt(ne);
    const double lambda = (root + 0.12 + 0.11 / root) * r.statistic;  // Stephens (1970)
    r.p_value = kolmogorov_survival(lambda);
    method = printf_string("asymptotic, lambda=%.6g", lambda);
  }
  r.rejects = r.p_value < alpha;
  r.detail = printf_string("n=%lld m=%lld D=%.6g (%s)", static_cast<long long>(n), static_cast<long long>(m), r.statistic,
                    method.c_str());
  return r;
}

std::vector<double> slope_weights(std::int64_t n) {
  if (n < 2 || n > (std::int64_t{1} << 32)) {
    throw InputError("regression length n", "an integer in [2, 2^32]", std::to_string(n));
  }
  // w_r = (r - (n-1)/2) / (n (n^2 - 1)/12) = 6 (2r - n + 1) / (n (n^2 - 1)): an integer over an
  // integer, each weight rounded once (a double division when both are exact doubles, else MPFR).
  std::vector<double> w(static_cast<std::size_t>(n));
  const unsigned __int128 den = static_cast<unsigned __int128>(n) * (static_cast<unsigned __int128>(n) * n - 1);
  constexpr unsigned __int128 kExact = static_cast<unsigned __int128>(1) << 53;
  if (den <= kExact && 6 * static_cast<unsigned __int128>(n) <= kExact) {
    const double dd = static_cast<double>(den);
    for (std::int64_t r = 0; r < n; ++r) w[static_cast<std::size_t>(r)] = static_cast<double>(6 * (2 * r - n + 1)) / dd;
    return w;
  }
  mpz_t num, dz;
  mpz_inits(num, dz, nullptr);
  mpz_set_si(dz, static_cast<long>(n));
  mpz_mul(dz, dz, dz);
  mpz_sub_ui(dz, dz, 1);
  mpz_mul_si(dz, dz, static_cast<long>(n));
  mpfr_t q, a;
  mpfr_init2(q, 53);
  mpfr_init2(a, 128);
  for (std::int64_t r = 0; r < n; ++r) {
    mpz_set_si(num, static_cast<long>(2 * r - n + 1));
    mpz_mul_ui(num, num, 6);
    mpfr_set_z(a, num, MPFR_RNDN);  // exact: |6 (2r - n + 1)| < 2^66
    mpfr_div_z(q, a, dz, MPFR_RNDN);
    w[static_cast<std::size_t>(r)] = mpfr_get_d(q, MPFR_RNDN);
  }
  mpfr_clears(q, a, nullptr);
  mpz_clears(num, dz, nullptr);
  return w;
}

}  // namespace ropecheck::statistics

// File: inference.h
// The hypothesis tests and intervals ropecheck's Monte Carlo verdicts rest on, each returning its
// statistic and p-value so a report can say which test decided. Distributions come from
// Boost.Math (students_t, normal, binomial, beta; owens_t), whose results depend only on the
// arguments, never on the machine's libm beyond last-bit differences (documented per function).
// Arguments outside a function's stated range (levels and alpha outside (0, 1), counts outside
// [0, n], a t-test on fewer than 2 values) throw InputError naming the argument and the range.
// The laws behind two of the tests live in their own files: statistics/kolmogorov.h (KS) and
// statistics/exceedance_count.h (the dependent exceedance count).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "statistics/moments.h"

namespace ropecheck::statistics {

struct Interval2 {  // a two-sided confidence interval
  double lo = 0, hi = 0;
};

// Returns: mean +- q * standard_error with q the (1 + level)/2 quantile of Student's t with n - 1
// degrees of freedom (level e.g. 0.999). For n < 2 or standard_error == 0 the interval is
// [mean, mean] (a deterministic value). Preconditions: 0 < level < 1.
Interval2 mean_interval(const Summary& s, double level);

struct TestResult {
  std::string name;        // e.g. "binomial", "slope t-test", "two-sample Kolmogorov-Smirnov"
  double statistic = 0;    // the test's statistic (count, t, D, ...)
  double p_value = 1;      // two-sided unless the name says otherwise; 0 when the data are
                           // deterministic and contradict H0 exactly
  bool rejects = false;    // p_value < alpha
  std::string detail;      // one line: the numbers a reader needs (n, expected, observed, df, ...)
};

// Exact two-sided binomial test of H0: k ~ Binomial(n, p) (the p-value sums the probabilities of
// every outcome no more likely than k, with a relative tolerance of 1e-7 as R's binom.test).
TestResult binomial_test(std::int64_t k, std::int64_t n, double p, double alpha);

// The same question when the n events are dependent: event r is "|Z_r| > z" for standard normal
// Z_0..Z_{n-1} (stationary, corr(Z_r, Z_s) = rho(|r - s|), rho(0) = 1), z = the (1 + level)/2 normal
// quantile (so each event has probability p = 1 - level). The count's mean is n p and its variance
// sum_{r,s} [P(|Z_r| > z, |Z_s| > z) - p^2], with the bivariate-normal tail probability from Owen's
// T function (Phi2(h, h; rho) = Phi(h) - 2 T(h, sqrt((1 - rho)/(1 + rho)))), summed over the lag
// |r - s| (n terms, not n^2). The p-value is from a beta-binomial law with that mean and variance
// (the binomial law when every rho(lag > 0) is 0, so it reduces to binomial_test's distribution).
// `rho` is called for lag = 1..n-1. The detail names the variance inflation over the binomial.
TestResult dependent_exceedance_test(std::int64_t k, std::int64_t n, double level,
                                     const std::function<double(std::int64_t lag)>& rho, double alpha);

// Student t-test of H0: the mean of the law is `mu0`, from the summary of n independent values
// (e.g. per-trial regression slopes). When standard_error == 0 (deterministic), the p-value is 1 if
// mean == mu0 and 0 otherwise.
TestResult t_test(const Summary& s, double mu0, double alpha, const std::string& name);

// Two-sample Kolmogorov-Smirnov test of H0: x and y come from the same continuous law. D is exact
// (ties across samples handled by stepping through equal values together); the p-value is the
// exact distribution of D for small samples (n*m <= 10000, via the Hodges/Kim-Jennrich recursion)
// and otherwise the asymptotic Kolmogorov law at sqrt(n m/(n + m)) D with Stephens' correction.
// Preconditions: x and y non-empty (InputError otherwise); they need not be sorted.
TestResult ks_two_sample(std::span<const double> x, std::span<const double> y, double alpha);

// Returns: the weights w_r of the least-squares slope of values on r = 0..n-1:
// slope = sum_r w_r v_r, w_r = (r - (n-1)/2) / sum_s (s - (n-1)/2)^2. Preconditions: n >= 2.
std::vector<double> slope_weights(std::int64_t n);

}  // namespace ropecheck::statistics

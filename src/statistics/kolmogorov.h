// File: kolmogorov.h
// The two laws of the two-sample Kolmogorov-Smirnov statistic D = sup |F_x - F_y| that
// ks_two_sample (inference.h) needs: the exact law for small samples and Kolmogorov's limit law.
// Boost 1.74 has neither.
#pragma once

#include <cstdint>

namespace ropecheck::statistics {

// Returns: Q(lambda) = P(K > lambda) for Kolmogorov's limit law,
//   Q(lambda) = 2 sum_{j>=1} (-1)^(j-1) exp(-2 j^2 lambda^2)                      (lambda >= 1)
//             = 1 - sqrt(2 pi)/lambda sum_{j>=1} exp(-(2j-1)^2 pi^2 / (8 lambda^2))  (lambda < 1),
// the Jacobi-theta form below 1, where the alternating series converges slowly; each series is summed
// until its terms fall below 2^-60 of the sum. Q(lambda) = 1 for lambda <= 0. Uses libm exp and
// sqrt: the last bits may differ between libm versions (a reported p-value, not a sampled result).
double kolmogorov_survival(double lambda);

// Returns: P(D >= d / (n m)) under H0 (both samples from one continuous law, so no ties) for samples
// of sizes n and m, where d is an integer (n m D always is one: D = |i m - j n| / (n m) at some
// step). Counted exactly (GMP) over the C(n + m, n) equally likely orders of the pooled sample as the
// lattice paths from (0, 0) to (n, m) that reach a point with |i m - j n| >= d, and rounded once to
// binary64 (twice, harmlessly, for probabilities below 2^-1022). Cost O(n m) big-integer
// additions. Preconditions: n, m >= 1 and n m <= 10^7 (InputError otherwise).
double smirnov_exact_survival(std::int64_t n, std::int64_t m, std::int64_t d);

}  // namespace ropecheck::statistics

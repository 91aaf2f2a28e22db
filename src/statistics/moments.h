// File: moments.h
// Raw power sums of a sample, held exactly (numeric/exact_sum.h), and the summary statistics
// computed from them once, in MPFR, each rounded once to binary64. Exact sums are why partial
// results (threads, shards, machines) combine into the very bits of a single-process run; and
// computing the central moments from exact raw sums in high precision has none of the
// cancellation that makes the textbook one-pass variance formula dangerous in floating point.
// The powers are exact too: x^2, x^3 and x^4 are added as exact sums of 2, 4 and 6 doubles (Dekker's
// error-free products). Summing the rounded powers fl(x^k) instead would not do: their absolute
// error 2^-53 x^k is what the cancellation in m2 = S2/n - mean^2 amplifies (for 1e9 + {0, 1, 2}
// the exactly summed fl(x^2) give the variance -1.5 instead of 1). Exactness holds while x^4 neither overflows nor reaches the
// subnormal range; outside it (|x| > 2^150 or 0 < |x| < 2^-150) each power is added as the exact
// expansion truncated at 2^-1074 (absolute error <= 2^-1075 per power), or as +-inf when it
// overflows binary64 (then the sums that need it, and the fields computed from them, are NaN).
#pragma once

#include <cstdint>

#include "numeric/exact_sum.h"

namespace ropecheck::statistics {

struct Moments {
  std::int64_t n = 0;
  ExactSum s1, s2, s3, s4;  // exact sums of x, x^2, x^3, x^4 (see above for the range)

  void add(double x);
  void add(const Moments& other);
  friend bool operator==(const Moments& a, const Moments& b) = default;
};

// Every field rounded once from the exact sums (MPFR at 256 bits + the bits the sums need, so the
// result is the correctly rounded value of the formula applied to the exact sums, up to the
// final rounding of square roots and quotients computed in that precision: < 1 ulp).
struct Summary {
  std::int64_t n = 0;
  double mean = 0;
  double variance = 0;          // unbiased, sum (x - mean)^2 / (n - 1); NaN when n < 2
  double sd = 0;                // sqrt(variance)
  double standard_error = 0;    // sd / sqrt(n)
  double skewness = 0;          // m3 / m2^1.5 (population moments m_k = sum (x - mean)^k / n)
  double kurtosis = 0;          // m4 / m2^2 (not excess: 3 for a normal law); NaN when m2 == 0
  double variance_standard_error = 0;  // sqrt((m4 - m2^2 (n-3)/(n-1)) / n) (delta method); NaN n < 4
  double kurtosis_standard_error = 0;  // sqrt(24 n (n-1)^2 / ((n-3)(n-2)(n+3)(n+5))); NaN n < 4
};

// Returns: the summary of `m`. Preconditions: none (n == 0 gives NaN fields, n == 1 gives the mean).
Summary summarize(const Moments& m);

}  // namespace ropecheck::statistics

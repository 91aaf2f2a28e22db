// File: gap_law.cpp
// Error analysis (u = 2^-53; every integer below is < 2^53, hence exact in binary64):
//  * Start: P(D_r = r) = C(L-r, n-r) / C(L, n) = prod_{i<r} (n - i) / (L - i): per factor one
//    division and one multiplication, 2 roundings, 2r in all.
//  * Step t -> t+1 (L - n steps): num = t (L - t - n + r), den = (t - r + 1)(L - t), ratio = num /
//    den, P *= ratio: at most 4 roundings.
//  * Rescaling by powers of two (frexp/ldexp on a normal mantissa) is exact.
// So P(D_r = t) carries k <= 2r + 4(L - n) roundings: relative error <= k u / (1 - k u), below
// 4 (L + r) u because k <= 4(L + r) - 6r - 4 (n >= r + 1) and k u < 2^-10 for every L <= 2^40
// leaves room for the k^2 u^2 term. The mantissa's exponent stays in [-600, 600] and the true
// exponent is carried apart, so nothing underflows before the final conversion to binary64; that
// conversion is exact for probabilities >= 2^-1022 and, below, rounds once to the subnormal grid
// (absolute error <= 2^-1075).
#include "montecarlo/gap_law.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "io/input_error.h"

namespace ropecheck::montecarlo {
namespace {

void check(std::int64_t n, std::int64_t L, std::int64_t r) {
  // The same checks, in the same order, as random_positions: L first, then n against L.
  if (L < 1 || L > (std::int64_t{1} << 40)) throw InputError("L", "an integer in [1, 2^40]", std::to_string(L));
  if (n < 1 || n > L) throw InputError("n", "an integer in [1, L] = [1, " + std::to_string(L) + "]", std::to_string(n));
  if (r < 0 || r > n - 1) {
    throw InputError("r", "an integer in [0, n - 1] = [0, " + std::to_string(n - 1) + "]", std::to_string(r));
  }
}

// A positive number mantissa * 2^exponent; frexp/ldexp only move the exponent (exact).
struct Scaled {
  double mantissa = 1;
  std::int64_t exponent = 0;
  void multiply(double factor) {
    mantissa *= factor;
    if (mantissa < 0x1p-500 || mantissa > 0x1p500) {
      int e = 0;
      mantissa = std::frexp(mantissa, &e);
      exponent += e;
    }
  }
  double to_double() const {
    // ldexp rounds once (to nearest) only when the result is subnormal; clamp so the int fits.
    const std::int64_t e = std::clamp<std::int64_t>(exponent, -4000, 4000);
    return std::ldexp(mantissa, static_cast<int>(e));
  }
};

}  // namespace

std::vector<double> gap_probabilities(std::int64_t n, std::int64_t L, std::int64_t r) {
  check(n, L, r);
  std::vector<double> p(static_cast<std::size_t>(L) + 1, 0.0);
  if (r == 0) {
    p[0] = 1;  // D_0 = p_j - p_j
    return p;
  }
  Scaled value;
  for (std::int64_t i = 0; i < r; ++i) value.multiply(static_cast<double>(n - i) / static_cast<double>(L - i));
  p[static_cast<std::size_t>(r)] = value.to_double();
  for (std::int64_t t = r; t < L - n + r; ++t) {
    const double num = static_cast<double>(t) * static_cast<double>(L - t - n + r);
    const double den = static_cast<double>(t - r + 1) * static_cast<double>(L - t);
    value.multiply(num / den);
    p[static_cast<std::size_t>(t + 1)] = value.to_double();
  }
  return p;
}

std::vector<double> expected_gap_curve(std::int64_t n, std::int64_t L, const std::vector<double>& f) {
  check(n, L, 0);
  if (f.size() != static_cast<std::size_t>(L) + 1) {
    throw InputError("f", "a curve of L + 1 = " + std::to_string(L + 1) + " values (t = 0..L)",
                     std::to_string(f.size()) + " values");
  }
  // Error of each E f(D_r), with S = sum_t P(t) |f(t)| <= (1 + 4(L + r)u) max|f|:
  //  probabilities 4(L + r)u S (above) + products u S + Neumaier's compensated summation 2u S
  //  (plus O(L^2 u^2) S) + skipped terms (each P < 2^-80 max P <= 2^-80, at most L of them)
  //  L 2^-80 max|f|; in all below 4(L + n) u max|f| + L 2^-80 max|f| since r + 1 <= n.
  std::vector<double> curve(static_cast<std::size_t>(n));
  for (std::int64_t r = 0; r < n; ++r) {
    const std::vector<double> p = gap_probabilities(n, L, r);
    const double cutoff = *std::max_element(p.begin(), p.end()) * 0x1p-80;
    double sum = 0, compensation = 0;
    bool first = true;
    for (std::size_t t = 0; t < p.size(); ++t) {
      if (p[t] == 0 || p[t] < cutoff) continue;
      const double term = p[t] * f[t];
      if (first) {
        sum = term;  // not 0 + term: keeps the sign of a zero, so L == n returns f(r) bit for bit
        first = false;
        continue;
      }
      const double next = sum + term;
      // Neumaier: the rounding error of sum + term, recovered exactly from the larger operand.
      compensation += std::fabs(sum) >= std::fabs(term) ? (sum - next) + term : (term - next) + sum;
      sum = next;
    }
    curve[static_cast<std::size_t>(r)] = compensation == 0 ? sum : sum + compensation;
  }
  return curve;
}

}  // namespace ropecheck::montecarlo

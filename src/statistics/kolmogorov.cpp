// File: kolmogorov.cpp
#include "statistics/kolmogorov.h"

#include <gmp.h>
#include <mpfr.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "io/input_error.h"

namespace ropecheck::statistics {

double kolmogorov_survival(double lambda) {
  if (!(lambda > 0)) return 1.0;
  constexpr double kStop = 0x1p-60;
  if (lambda < 1.0) {
    // Theta form: at lambda = 1 the second term is exp(-9 pi^2/8) ~ 1.5e-5 of the first, so a few
    // terms suffice; for lambda -> 0 the first term already underflows and Q = 1.
    const double c = std::numbers::pi * std::numbers::pi / (8 * lambda * lambda);
    double sum = 0;
    for (int j = 1; j <= 100; ++j) {
      const double k = 2.0 * j - 1;
      const double term = std::exp(-k * k * c);
      sum += term;
      if (term <= kStop * sum) break;
    }
    return 1 - std::sqrt(2 * std::numbers::pi) / lambda * sum;
  }
  // Alternating form: for lambda >= 1 the terms exp(-2 j^2 lambda^2) fall faster than e^-2j^2 and
  // the sum stays within 0.3% of its first term (e^-6 lambda^2 < 0.0025), so there is no cancellation.
  double sum = 0;
  for (int j = 1; j <= 100; ++j) {
    const double term = std::exp(-2.0 * j * j * lambda * lambda);
    sum += (j % 2 == 1) ? term : -term;
    if (term <= kStop * sum) break;
  }
  return 2 * sum;
}

double smirnov_exact_survival(std::int64_t n, std::int64_t m, std::int64_t d) {
  if (n < 1 || m < 1 || n > 10'000'000 / m) {
    throw InputError("Smirnov exact law sample sizes", "n, m >= 1 with n m <= 10^7",
                     std::to_string(n) + " and " + std::to_string(m));
  }
  // row[j] = the number of lattice paths from (0, 0) to (i, j) through points with
  // |i m - j n| < d only; a point outside gets 0, so row[m] at i = n counts the orders with D < d.
  std::vector<mpz_t> row(static_cast<std::size_t>(m + 1));
  for (auto& v : row) mpz_init(v);
  const auto inside = [&](std::int64_t i, std::int64_t j) {
    const std::int64_t gap = i * m - j * n;  // |gap| <= n m <= 10^7: no overflow
    return (gap < 0 ? -gap : gap) < d;
  };
  for (std::int64_t j = 0; j <= m; ++j) {
    if (j == 0) mpz_set_ui(row[0], inside(0, 0) ? 1 : 0);
    else if (inside(0, j)) mpz_set(row[j], row[j - 1]);
    else mpz_set_ui(row[j], 0);
  }
  for (std::int64_t i = 1; i <= n; ++i) {
    if (!inside(i, 0)) mpz_set_ui(row[0], 0);
    for (std::int64_t j = 1; j <= m; ++j) {
      if (inside(i, j)) mpz_add(row[j], row[j], row[j - 1]);
      else mpz_set_ui(row[j], 0);
    }
  }
  mpz_t total, outside;
  mpz_inits(total, outside, nullptr);
  mpz_bin_uiui(total, static_cast<unsigned long>(n + m), static_cast<unsigned long>(n));
  mpz_sub(outside, total, row[static_cast<std::size_t>(m)]);
  // One rounding: the exact quotient rounded to 53 bits, then mpfr_get_d, which is exact unless the
  // probability is below 2^-1022 (possible only when C(n+m, n) > 2^1022; such a p-value is far below
  // any threshold, and there it may be rounded twice).
  mpfr_t num, q;
  mpfr_init2(num, static_cast<mpfr_prec_t>(mpz_sizeinbase(outside, 2) + 1));
  mpfr_init2(q, 53);
  mpfr_set_z(num, outside, MPFR_RNDN);
  mpfr_div_z(q, num, total, MPFR_RNDN);
  const double p = mpfr_get_d(q, MPFR_RNDN);
  mpfr_clears(num, q, nullptr);
  mpz_clears(total, outside, nullptr);
  for (auto& v : row) mpz_clear(v);
  return p;
}

}  // namespace ropecheck::statistics

// Tests for statistics/kolmogorov.h: the limit law against printed values and against its own two
// series where both converge, the exact two-sample law against brute-force enumeration.
#include "statistics/kolmogorov.h"
#include "io/printf_string.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>
#include <vector>

#include "io/input_error.h"
#include "tests/support/show.h"

namespace ropecheck::statistics {
namespace {

TEST(KolmogorovSurvival, PrintedValues) {
  // Tables of Kolmogorov's law (e.g. Smirnov 1948) give Q(1.36) = 0.0495 and the critical values
  // 1.3581 (5%), 1.6276 (1%), with Q(1) = 0.2700, Q(0.5) = 0.9639 to four decimals: tolerance half a
  // unit of the last printed digit.
  EXPECT_NEAR(kolmogorov_survival(1.36), 0.0495, 5e-5) << show(kolmogorov_survival(1.36));
  EXPECT_NEAR(kolmogorov_survival(1.3581), 0.0500, 5e-5);
  EXPECT_NEAR(kolmogorov_survival(1.6276), 0.0100, 5e-5);
  EXPECT_NEAR(kolmogorov_survival(1.0), 0.2700, 5e-5);
  EXPECT_NEAR(kolmogorov_survival(0.5), 0.9639, 5e-5);
  EXPECT_EQ(kolmogorov_survival(0.0), 1.0);
  EXPECT_EQ(kolmogorov_survival(-1.0), 1.0);
  EXPECT_NEAR(kolmogorov_survival(0.1), 1.0, 1e-15);
  // Far tail: only the first term counts, Q(6) = 2 exp(-72) to within exp(-216)/exp(-72).
  EXPECT_NEAR(kolmogorov_survival(6.0) / (2 * std::exp(-72.0)), 1.0, 1e-14);
}

// Both series, summed to 60 terms in long double, agree where both converge (lambda in [0.6, 1.6]);
// the library switches between them at 1. Tolerance: each of its series stops below 2^-60 of the sum
// and each exp term is within an ulp: a few 1e-16 absolute; 1e-14 leaves room for libm.
TEST(KolmogorovSurvival, BothSeriesAgreeAroundTheSwitch) {
  for (double lambda = 0.6; lambda <= 1.6; lambda += 0.05) {
    long double alternating = 0, theta = 0;
    for (int j = 1; j <= 60; ++j) {
      const long double t = std::exp(-2.0L * j * j * lambda * lambda);
      alternating += (j % 2 ? t : -t);
      const long double k = 2.0L * j - 1;
      theta += std::exp(-k * k * std::numbers::pi_v<long double> * std::numbers::pi_v<long double> /
                        (8.0L * lambda * lambda));
    }
    alternating *= 2;
    theta = 1 - std::sqrt(2 * std::numbers::pi_v<long double>) / lambda * theta;
    SCOPED_TRACE("lambda " + show(lambda));
    EXPECT_NEAR(static_cast<double>(alternating), static_cast<double>(theta), 1e-15);
    EXPECT_NEAR(kolmogorov_survival(lambda), static_cast<double>(alternating), 1e-14);
  }
}

// Brute force: every placement of the n x's among the n + m pooled ranks (a bitmask), its D n m,
// and P(D n m >= d) = count / C(n + m, n), one correctly rounded division of exact integers.
TEST(SmirnovExactSurvival, MatchesEnumeration) {
  for (const auto& [n, m] : {std::pair{1, 1}, {1, 5}, {2, 3}, {3, 4}, {4, 4}, {5, 5}, {3, 7}, {6, 6}, {7, 8}}) {
    std::vector<std::int64_t> ds;
    for (unsigned mask = 0; mask < (1u << (n + m)); ++mask) {
      if (__builtin_popcount(mask) != n) continue;
      std::int64_t i = 0, j = 0, d = 0;
      for (int bit = 0; bit < n + m; ++bit) {
        ((mask >> bit) & 1) ? ++i : ++j;
        d = std::max<std::int64_t>(d, std::abs(i * m - j * n));
      }
      ds.push_back(d);
    }
    for (std::int64_t d = 0; d <= n * m + 1; ++d) {
      const auto count = std::count_if(ds.begin(), ds.end(), [d](std::int64_t v) { return v >= d; });
      const double expected = static_cast<double>(count) / static_cast<double>(ds.size());
      EXPECT_EQ(show(smirnov_exact_survival(n, m, d)), show(expected)) << "n=" << n << " m=" << m << " d=" << d;
      EXPECT_EQ(show(smirnov_exact_survival(m, n, d)), show(expected)) << "swapped, n=" << m << " m=" << n << " d=" << d;
    }
  }
}

TEST(SmirnovExactSurvival, BadSizesAreInputErrors) {
  EXPECT_THROW((void)smirnov_exact_survival(0, 3, 1), InputError);
  EXPECT_THROW((void)smirnov_exact_survival(3, -1, 1), InputError);
  EXPECT_THROW((void)smirnov_exact_survival(100000, 1000, 1), InputError);
}

}  // namespace
}  // namespace ropecheck::statistics

#include "montecarlo/gap_law.h"

#include <gmp.h>
#include <gtest/gtest.h>
#include <mpfr.h>

#include <boost/multiprecision/gmp.hpp>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "io/input_error.h"
#include "random/counter_rng.h"

namespace ropecheck::montecarlo {
namespace {

using boost::multiprecision::mpq_rational;

constexpr double kUnit = 0x1p-53;  // binary64's unit roundoff
constexpr long kHalfLeastSubnormalLog2 = -1075;

// gap_law.h's bound on the relative error of each probability.
double probability_bound(std::int64_t L, std::int64_t r) { return 4.0 * static_cast<double>(L + r) * kUnit; }

// Exact rational check of every probability against brute-force enumeration of all C(L, n) subsets
// of {0..L-1}, separately for every start index j (which also checks the exchangeability claim:
// every j must give the same law). Zero-probability gaps must come out exactly 0; the others within
// the stated relative bound, compared in exact rational arithmetic (no tolerance on the test's side).
TEST(GapLaw, MatchesBruteForceEnumeration) {
  for (std::int64_t n = 1; n <= 5; ++n) {
    for (std::int64_t L = n; L <= 12; ++L) {
      std::vector<std::uint32_t> subsets;
      for (std::uint32_t mask = 0; mask < (1u << L); ++mask) {
        if (std::popcount(mask) == n) subsets.push_back(mask);
      }
      for (std::int64_t r = 0; r < n; ++r) {
        const std::vector<double> p = gap_probabilities(n, L, r);
        ASSERT_EQ(static_cast<std::int64_t>(p.size()), L + 1);
        const mpq_rational bound = mpq_rational(probability_bound(L, r));
        for (std::int64_t j = 0; j + r < n; ++j) {
          std::vector<std::int64_t> count(static_cast<std::size_t>(L) + 1, 0);
          for (const std::uint32_t mask : subsets) {
            std::vector<std::int64_t> pos;
            for (std::int64_t b = 0; b < L; ++b) {
              if ((mask >> b) & 1u) pos.push_back(b);
            }
            ++count[static_cast<std::size_t>(pos[static_cast<std::size_t>(j + r)] - pos[static_cast<std::size_t>(j)])];
          }
          for (std::int64_t t = 0; t <= L; ++t) {
            const double got = p[static_cast<std::size_t>(t)];
            const mpq_rational exact(count[static_cast<std::size_t>(t)], static_cast<long>(subsets.size()));
            const mpq_rational error = abs(mpq_rational(got) - exact);
            EXPECT_TRUE(count[static_cast<std::size_t>(t)] == 0 ? got == 0 : error <= bound * exact)
                << "n=" << n << " L=" << L << " r=" << r << " j=" << j << " t=" << t << " got " << std::hexfloat << got
                << " exact " << exact << " = " << static_cast<double>(exact);
          }
        }
      }
    }
  }
}

TEST(GapLaw, SumsToOneWithinTheBound) {
  // Summed with Neumaier's compensated summation, whose own error is below u |sum| + O(L u^2)
  // (= 3u here, generously): |sum - 1| <= 4(L + r)u (the probabilities' bound, as sum P = 1) + 3u.
  // The subnormal probabilities' absolute errors (L 2^-1075 at most) are far below the last bit.
  const std::int64_t n = 1000;
  for (const std::int64_t L : {1000, 2000, 4000, 8000}) {
    for (std::int64_t r = 0; r < n; ++r) {
      const std::vector<double> p = gap_probabilities(n, L, r);
      double sum = 0, compensation = 0;
      for (const double x : p) {
        const double next = sum + x;
        compensation += std::fabs(sum) >= std::fabs(x) ? (sum - next) + x : (x - next) + sum;
        sum = next;
      }
      sum += compensation;
      const double tolerance = probability_bound(L, r) + 3 * kUnit;
      ASSERT_LE(std::fabs(sum - 1), tolerance) << "n=" << n << " L=" << L << " r=" << r << " sum " << std::hexfloat
                                               << sum << " tolerance " << tolerance;
    }
  }
}

TEST(GapLaw, LEqualsNIsTheIndicatorAndTheCurveItself) {
  for (const std::int64_t n : {1, 2, 7, 1000}) {
    for (std::int64_t r = 0; r < n; ++r) {
      const std::vector<double> p = gap_probabilities(n, n, r);
      for (std::int64_t t = 0; t <= n; ++t) {
        ASSERT_EQ(p[static_cast<std::size_t>(t)], t == r ? 1.0 : 0.0) << "n=" << n << " r=" << r << " t=" << t;
      }
    }
    // Any curve (random dyadic values, one signed zero, f(0) = 1) comes back bit for bit.
    std::vector<double> f(static_cast<std::size_t>(n) + 1);
    const CounterRng rng(11, static_cast<std::uint64_t>(n));
    for (std::size_t t = 0; t < f.size(); ++t) f[t] = rng.uniform_dyadic(t);
    f[0] = 1;
    if (n > 2) f[2] = -0.0;
    const std::vector<double> curve = expected_gap_curve(n, n, f);
    ASSERT_EQ(static_cast<std::int64_t>(curve.size()), n);
    for (std::int64_t r = 0; r < n; ++r) {
      const double want = f[static_cast<std::size_t>(r)], got = curve[static_cast<std::size_t>(r)];
      EXPECT_EQ(std::bit_cast<std::uint64_t>(got), std::bit_cast<std::uint64_t>(want))
          << "n=" << n << " r=" << r << " got " << std::hexfloat << got << " want " << want;
    }
  }
}

TEST(GapLaw, DistanceZeroIsGapZero) {
  for (const std::int64_t L : {5, 8000}) {
    const std::vector<double> p = gap_probabilities(5, L, 0);
    EXPECT_EQ(p[0], 1.0);
    for (std::size_t t = 1; t < p.size(); ++t) ASSERT_EQ(p[t], 0.0) << "L=" << L << " t=" << t;
    std::vector<double> f(static_cast<std::size_t>(L) + 1, 0.25);
    f[0] = 0x1.3p-1;
    EXPECT_EQ(expected_gap_curve(5, L, f)[0], 0x1.3p-1);
  }
}

// 256-bit MPFR references. Each value below is a few correctly rounded operations on exact integers,
// so its relative error is below 8 * 2^-256 < 2^-250: added to the tolerances, it changes nothing.
class Mpfr256 {
 public:
  Mpfr256() { mpfr_init2(v, 256); }
  ~Mpfr256() { mpfr_clear(v); }
  Mpfr256(const Mpfr256&) = delete;
  Mpfr256& operator=(const Mpfr256&) = delete;
  mpfr_t v;
};

// P(D_r = t) = C(t-1, r-1) C(L-t, n-r) / C(L, n) from exact binomials (mpz_bin_uiui).
void exact_probability(Mpfr256& out, std::int64_t n, std::int64_t L, std::int64_t r, std::int64_t t) {
  mpz_t a, b, c;
  mpz_inits(a, b, c, nullptr);
  mpz_bin_uiui(a, static_cast<unsigned long>(t - 1), static_cast<unsigned long>(r - 1));
  mpz_bin_uiui(b, static_cast<unsigned long>(L - t), static_cast<unsigned long>(n - r));
  mpz_bin_uiui(c, static_cast<unsigned long>(L), static_cast<unsigned long>(n));
  mpz_mul(a, a, b);
  Mpfr256 den;
  mpfr_set_z(out.v, a, MPFR_RNDN);
  mpfr_set_z(den.v, c, MPFR_RNDN);
  mpfr_div(out.v, out.v, den.v, MPFR_RNDN);
  mpz_clears(a, b, c, nullptr);
}

// Checks |got - exact| <= |exact| * relative + absolute (+ 2^absolute_log2 when given: 2^-1075, half
// the least subnormal, is no binary64 number), in 256-bit arithmetic.
bool within(double got, const Mpfr256& exact, double relative, double absolute, const long* absolute_log2 = nullptr) {
  Mpfr256 diff, allowed;
  mpfr_sub_d(diff.v, exact.v, got, MPFR_RNDN);
  mpfr_abs(diff.v, diff.v, MPFR_RNDN);
  mpfr_abs(allowed.v, exact.v, MPFR_RNDN);
  mpfr_mul_d(allowed.v, allowed.v, relative, MPFR_RNDU);
  mpfr_add_d(allowed.v, allowed.v, absolute, MPFR_RNDU);
  if (absolute_log2 != nullptr) {
    Mpfr256 power;
    mpfr_set_ui_2exp(power.v, 1, *absolute_log2, MPFR_RNDN);
    mpfr_add(allowed.v, allowed.v, power.v, MPFR_RNDU);
  }
  return mpfr_lessequal_p(diff.v, allowed.v) != 0;
}

TEST(GapLaw, MatchesExactBinomialsAtPaperScale) {
  const std::int64_t n = 1000, L = 8000;
  for (const std::int64_t r : {1, 2, 3, 10, 100, 500, 998, 999}) {
    const std::vector<double> p = gap_probabilities(n, L, r);
    const std::int64_t last = L - n + r;
    EXPECT_EQ(p[static_cast<std::size_t>(r - 1)], 0.0) << "r=" << r;
    if (last + 1 <= L) {
      EXPECT_EQ(p[static_cast<std::size_t>(last + 1)], 0.0) << "r=" << r;
    }
    // Both ends of the support (where P(D_r = r) ~ (n/L)^r underflows binary64 for large r),
    // their neighbours, and the bulk around the mean r (L + 1) / (n + 1).
    const std::int64_t mean = r * (L + 1) / (n + 1);
    for (const std::int64_t t : {r, r + 1, mean - 1, mean, mean + 1, last - 1, last}) {
      if (t < r || t > last) continue;
      Mpfr256 exact;
      exact_probability(exact, n, L, r, t);
      // Relative bound of gap_law.h plus the reference's 2^-250; absolute 2^-1075 for results in
      // binary64's subnormal range (and for those below it, which round to 0).
      const double got = p[static_cast<std::size_t>(t)];
      EXPECT_TRUE(within(got, exact, probability_bound(L, r) + 0x1p-250, 0, &kHalfLeastSubnormalLog2))
          << "r=" << r << " t=" << t << " got " << std::hexfloat << got << " exact " << mpfr_get_d(exact.v, MPFR_RNDN)
          << " (exponent 2^" << mpfr_get_exp(exact.v) << ")";
    }
  }
}

TEST(GapLaw, ExpectedCurveMatchesMpfrAtPaperScale) {
  // f: random dyadic values in [-1, 1) with f(0) = 1, so max|f| = 1. Reference: the 256-bit sum of
  // exact-start, 256-bit-recurrence probabilities times f (relative error below 4 L 2^-256 per
  // term, so below 2^-200 in all). Tolerance: expected_gap_curve's stated
  // 4(L + n)u max|f| + L 2^-80 max|f|, plus the reference's 2^-200.
  const std::int64_t n = 1000, L = 8000;
  std::vector<double> f(static_cast<std::size_t>(L) + 1);
  const CounterRng rng(3, 4);
  for (std::size_t t = 0; t < f.size(); ++t) f[t] = rng.uniform_dyadic(t);
  f[0] = 1;
  const std::vector<double> curve = expected_gap_curve(n, L, f);
  ASSERT_EQ(static_cast<std::int64_t>(curve.size()), n);
  const double tolerance = 4.0 * static_cast<double>(L + n) * kUnit + static_cast<double>(L) * 0x1p-80 + 0x1p-200;
  for (const std::int64_t r : {0, 1, 2, 10, 500, 999}) {
    Mpfr256 sum, p, term;
    if (r == 0) {
      mpfr_set_d(sum.v, f[0], MPFR_RNDN);
    } else {
      mpfr_set_zero(sum.v, 1);
      exact_probability(p, n, L, r, r);
      for (std::int64_t t = r; t <= L - n + r; ++t) {
        mpfr_mul_d(term.v, p.v, f[static_cast<std::size_t>(t)], MPFR_RNDN);
        mpfr_add(sum.v, sum.v, term.v, MPFR_RNDN);
        // P(t+1) = P(t) t (L - t - n + r) / ((t - r + 1)(L - t)), every factor an exact integer.
        mpfr_mul_si(p.v, p.v, static_cast<long>(t * (L - t - n + r)), MPFR_RNDN);
        mpfr_div_si(p.v, p.v, static_cast<long>((t - r + 1) * (L - t)), MPFR_RNDN);
      }
    }
    const double got = curve[static_cast<std::size_t>(r)];
    EXPECT_TRUE(within(got, sum, 0, tolerance))
        << "r=" << r << " got " << std::hexfloat << got << " reference " << mpfr_get_d(sum.v, MPFR_RNDN)
        << " tolerance " << tolerance;
  }
}

TEST(GapLaw, BadArgumentsAreInputErrors) {
  const auto input_of = [](auto&& call) -> std::string {
    try {
      call();
    } catch (const InputError& e) {
      return e.input();
    }
    return "no error";
  };
  EXPECT_EQ(input_of([] { gap_probabilities(0, 5, 0); }), "n");
  EXPECT_EQ(input_of([] { gap_probabilities(6, 5, 0); }), "n");
  EXPECT_EQ(input_of([] { gap_probabilities(1, 0, 0); }), "L");
  EXPECT_EQ(input_of([] { gap_probabilities(5, 10, 5); }), "r");
  EXPECT_EQ(input_of([] { gap_probabilities(5, 10, -1); }), "r");
  EXPECT_EQ(input_of([] { expected_gap_curve(5, 10, std::vector<double>(10, 0.0)); }), "f");
  EXPECT_EQ(input_of([] { expected_gap_curve(5, 4, std::vector<double>(5, 0.0)); }), "n");
}

}  // namespace
}  // namespace ropecheck::montecarlo

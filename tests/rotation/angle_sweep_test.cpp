#include "rotation/angle_sweep.h"

#include <gtest/gtest.h>

#include "numeric/decimal.h"
#include "numeric/precision.h"
#include "spectrum/frequencies.h"
#include "tests/support/show.h"

namespace ropecheck {
namespace {

// cos and sin of r g_k at 600 bits, g_k from the decimal theta at 600 bits: within ~r 2^-590 of the
// exact values, far inside 257-bit enclosures (width ~1e-72), so containment is a sharp test.
struct Reference {
  std::vector<Real> c, s;
};
Reference reference(const Spectrum& sp, long long r) {
  ScopedPrecision p(600);
  const std::vector<Real> g = frequencies<Real>(sp);
  Reference out;
  for (const Real& gk : g) {
    Real s, c;
    sin_cos(Real(Real(r) * gk), s, c);
    out.c.push_back(c);
    out.s.push_back(s);
  }
  return out;
}

TEST(AngleSweep, RowsContainThe600BitValuesAndRespectTheWidthBound) {
  const Spectrum sp(256, "10000");
  const long long R = 8192;
  ScopedPrecision p(256);
  const std::vector<Interval> g = frequencies<Interval>(sp);
  const AngleSweep sweep(g, R);
  const Real bound = sweep.width_bound();
  EXPECT_LT(bound, Real("1e-60"));
  std::vector<Interval> c, s, c_only, s_only;
  // 0, both table edges (block = 91), a value needing both tables, the last r.
  for (long long r : {0LL, 1LL, 90LL, 91LL, 92LL, 4567LL, 8190LL, 8191LL, 8192LL}) {
    sweep.row(r, c, s);
    sweep.cos_row(r, c_only);
    sweep.sin_row(r, s_only);
    const Reference ref = reference(sp, r);
    ASSERT_EQ(c.size(), g.size());
    for (std::size_t k = 0; k < g.size(); ++k) {
      EXPECT_TRUE(contains(c[k], ref.c[k])) << "r=" << r << " k=" << k << " c=" << show(c[k]) << " ref=" << to_decimal(ref.c[k], 30);
      EXPECT_TRUE(contains(s[k], ref.s[k])) << "r=" << r << " k=" << k << " s=" << show(s[k]) << " ref=" << to_decimal(ref.s[k], 30);
      EXPECT_TRUE(contains(c_only[k], ref.c[k])) << "r=" << r << " k=" << k;
      EXPECT_TRUE(contains(s_only[k], ref.s[k])) << "r=" << r << " k=" << k << " s=" << show(s_only[k]) << " ref=" << to_decimal(ref.s[k], 30);
      EXPECT_LE(Real(upper_of(s_only[k]) - lower_of(s_only[k])), bound) << "r=" << r << " k=" << k;
      EXPECT_LE(Real(upper_of(c[k]) - lower_of(c[k])), bound) << "r=" << r << " k=" << k << " c=" << show(c[k]);
      EXPECT_LE(Real(upper_of(s[k]) - lower_of(s[k])), bound) << "r=" << r << " k=" << k << " s=" << show(s[k]);
    }
  }
  EXPECT_THROW(sweep.row(R + 1, c, s), std::invalid_argument);
  EXPECT_THROW(sweep.cos_row(-1, c), std::invalid_argument);
  EXPECT_THROW(sweep.sin_row(R + 1, s), std::invalid_argument);
}

TEST(AngleSweep, UnrotatedPairsAreExactlyTheIdentity) {
  ScopedPrecision p(256);
  const AngleSweep sweep(frequencies<Interval>(Spectrum(8, "10000", Variant::nope)), 1000);
  std::vector<Interval> c, s;
  sweep.row(977, c, s);
  for (std::size_t k = 0; k < c.size(); ++k) {
    EXPECT_EQ(lower_of(c[k]), 1);
    EXPECT_EQ(upper_of(c[k]), 1);
    EXPECT_EQ(lower_of(s[k]), 0);
    EXPECT_EQ(upper_of(s[k]), 0);
  }
}

TEST(AngleSweep, AWrongFrequencyIsNotContained) {
  // Negative case: a sweep of g = 1 + 1e-60 gives cos(5000 g) ~ 5000 * 1e-60 * |sin 5000| away from
  // cos(5000), ~1e4 times its width: the reference for g = 1 must fall outside.
  ScopedPrecision p(256);
  const AngleSweep wrong({Interval(Interval(1) + from_decimal<Interval>("1e-60"))}, 5000);
  std::vector<Interval> c;
  wrong.cos_row(5000, c);
  const Reference ref = reference(Spectrum(2, "10000"), 5000);  // d = 2: the single g = 1
  EXPECT_FALSE(contains(c[0], ref.c[0])) << show(c[0]) << " ref=" << to_decimal(ref.c[0], 30);
}

}  // namespace
}  // namespace ropecheck

#include "numeric/scalar.h"

#include <gtest/gtest.h>
#include <mpfr.h>

#include <cmath>

#include "numeric/decimal.h"
#include "numeric/precision.h"
#include "tests/support/show.h"

namespace ropecheck {
namespace {

TEST(Scalar, FromDecimalIntervalEnclosesTheExactDecimal) {
  ScopedPrecision p(256);
  const Interval tenth = from_decimal<Interval>("0.1");
  // 1/10 at 600 bits is within 2^-600 of 0.1, far inside an enclosure of width ~2^-260.
  Real exact;
  mpfr_set_prec(exact.backend().data(), 600);
  mpfr_set_ui(exact.backend().data(), 1, MPFR_RNDN);
  mpfr_div_ui(exact.backend().data(), exact.backend().data(), 10, MPFR_RNDN);
  EXPECT_TRUE(contains(tenth, exact)) << show(tenth);
  // The binary64 0.1 is 5.55e-18 away: an honest enclosure of 1/10 must exclude it.
  EXPECT_FALSE(contains(tenth, Real(0.1))) << show(tenth);
  EXPECT_LT(upper_of(tenth) - lower_of(tenth), Real("1e-70"));
}

TEST(Scalar, FromDecimalRejectsWhatIsNotOneFiniteNumber) {
  for (const char* bad : {"", "abc", "1e4x", "inf", "nan", "1,5", " "}) {
    EXPECT_THROW(from_decimal<double>(bad), std::invalid_argument) << "'" << bad << "'";
    EXPECT_THROW(from_decimal<Interval>(bad), std::invalid_argument) << "'" << bad << "'";
  }
  EXPECT_EQ(from_decimal<double>("1e4"), 1e4);
  EXPECT_EQ(from_decimal<float>("0.75"), 0.75f);
}

// Found by the fuzz target decimal (tests/fuzz/corpus/decimal/crash-mpfr-at-exponent): MPFR reads
// an '@' exponent that strtod does not, so "1@5" was 1e5 as an Interval and 1 as a double; and a
// text with a NUL inside was read as its prefix. Every type must read the same number, or refuse.
TEST(Scalar, FromDecimalRefusesWhatOnlyOneReaderUnderstands) {
  for (const std::string& bad : std::vector<std::string>{"1@5", "1.00000005960464477539062@99", "5@-1", std::string("2\0", 2), std::string("10000\0abc", 9)}) {
    EXPECT_THROW(from_decimal<double>(bad), std::invalid_argument) << "'" << bad << "'";
    EXPECT_THROW(from_decimal<float>(bad), std::invalid_argument) << "'" << bad << "'";
    EXPECT_THROW(from_decimal<Real>(bad), std::invalid_argument) << "'" << bad << "'";
    EXPECT_THROW(from_decimal<Interval>(bad), std::invalid_argument) << "'" << bad << "'";
  }
  // What both read, as before: leading spaces, exponents, a bare point.
  EXPECT_EQ(from_decimal<double>("  2"), 2.0);
  EXPECT_EQ(from_decimal<double>("-12.5e-3"), -12.5e-3);
  EXPECT_EQ(from_decimal<double>("1."), 1.0);
  EXPECT_EQ(from_decimal<double>(".5"), 0.5);
}

TEST(Scalar, PiIntervalContainsPi) {
  ScopedPrecision p(256);
  Real pi_hi;
  mpfr_set_prec(pi_hi.backend().data(), 600);
  mpfr_const_pi(pi_hi.backend().data(), MPFR_RNDN);
  EXPECT_TRUE(contains(pi_value<Interval>(), pi_hi));
  EXPECT_EQ(pi_value<double>(), M_PI);
}

// The interval sin/cos must enclose sin and cos of both endpoints (computed at 3x the precision,
// so the reference error 2^-770 is far below the enclosure's width) and stay narrow.
TEST(Scalar, IntervalSinCosEnclosesEndpointValues) {
  ScopedPrecision p(256);
  const char* centers[] = {"0", "1e-30", "0.5", "1.5707963267948966192313216916397514", "3.14159265358979323846264338327950288",
                           "-2", "710", "1099511627776", "-1099511627775.5", "1e15"};
  for (const char* text : centers) {
    for (const char* radius : {"0", "1e-60", "1e-3", "0.2", "4"}) {
      const Interval mid = from_decimal<Interval>(text);
      const Interval rad = from_decimal<Interval>(radius);
      Interval x;
      mpfi_interv_fr(x.backend().data(), lower_of(Interval(mid - rad)).backend().data(), upper_of(Interval(mid + rad)).backend().data());
      Interval s, c;
      sin_cos(x, s, c);
      for (const Real& end : {lower_of(x), upper_of(x)}) {
        Real es, ec;
        mpfr_set_prec(es.backend().data(), 800);
        mpfr_set_prec(ec.backend().data(), 800);
        mpfr_sin_cos(es.backend().data(), ec.backend().data(), end.backend().data(), MPFR_RNDN);
        EXPECT_TRUE(contains(s, es)) << "x=" << show(x) << " sin=" << show(s);
        EXPECT_TRUE(contains(c, ec)) << "x=" << show(x) << " cos=" << show(c);
      }
      // Width: at most twice the radius plus a few ulps (midpoint-radius), and never more than 2.
      const Real width_s = upper_of(s) - lower_of(s);
      EXPECT_LE(width_s, 2 * (upper_of(x) - lower_of(x)) + Real("1e-70")) << "x=" << show(x);
      EXPECT_LE(width_s, 2);
    }
  }
}

TEST(Scalar, CertainPredicatesNeverDecideOverlaps) {
  ScopedPrecision p(128);
  Interval a, b;
  mpfi_interv_d(a.backend().data(), -1, 1);
  mpfi_interv_d(b.backend().data(), 0, 2);
  EXPECT_FALSE(certainly_positive(a));
  EXPECT_FALSE(certainly_negative(a));
  EXPECT_FALSE(certainly_less(a, b));
  EXPECT_FALSE(certainly_less(b, a));
  EXPECT_TRUE(certainly_less(a, Interval(3)));
  EXPECT_TRUE(overlaps(a, b));
  EXPECT_TRUE(overlaps(b, a));
  EXPECT_FALSE(overlaps(a, Interval(3)));
  EXPECT_TRUE(certainly_positive(Interval(Real("1e-300"))));
}

TEST(Scalar, HullContainsBoth) {
  ScopedPrecision p(128);
  const Interval h = hull_of(Interval(1), Interval(5));
  EXPECT_EQ(lower_of(h), 1);
  EXPECT_EQ(upper_of(h), 5);
}

}  // namespace
}  // namespace ropecheck

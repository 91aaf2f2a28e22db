#include "claims/angle_option.h"

#include <gtest/gtest.h>
#include <mpfr.h>

#include "numeric/decimal.h"
#include "numeric/precision.h"

namespace ropecheck {
namespace {

// k*pi/d at 600 bits: an independent value the 256-bit enclosure must contain.
Real reference(long k, long d) {
  Real x;
  mpfr_set_prec(x.backend().data(), 600);
  mpfr_const_pi(x.backend().data(), MPFR_RNDN);
  mpfr_mul_si(x.backend().data(), x.backend().data(), k, MPFR_RNDN);
  mpfr_div_si(x.backend().data(), x.backend().data(), d, MPFR_RNDN);
  return x;
}

TEST(AngleOption, PiFormsEncloseTheRationalMultipleOfPi) {
  ScopedPrecision p(256);
  struct Case { const char* text; long k; long d; };
  for (const Case c : {Case{"pi", 1, 1}, Case{"pi/2", 1, 2}, Case{"-3*pi/8", -3, 8}, Case{"2*pi/7", 2, 7}, Case{" 5 * pi / 3 ", 5, 3}}) {
    const Interval x = angle_option(std::string(c.text), "0", "--phase", "an angle");
    const Real ref = reference(c.k, c.d);
    EXPECT_TRUE(contains(x, ref)) << c.text << " [" << decimal_bounds(x, 30).lower << ", " << decimal_bounds(x, 30).upper
                                  << "] ref " << to_decimal(ref, 30);
    EXPECT_LT(upper_of(x) - lower_of(x), Real("1e-70")) << c.text;
  }
}

TEST(AngleOption, DecimalsAndFallback) {
  ScopedPrecision p(256);
  EXPECT_TRUE(contains(angle_option(std::string("0.5"), "0", "--phase", "x"), Real("0.5")));
  EXPECT_TRUE(contains(angle_option(std::nullopt, "3", "--phase", "x"), Real(3)));
}

TEST(AngleOption, BadTextIsAnInputErrorNamingTheFlag) {
  ScopedPrecision p(256);
  for (const char* bad : {"pi/0", "0*pi", "2pi", "pi/", "tau", "", "1e"}) {
    try {
      angle_option(std::string(bad), "0", "--phase", "an angle");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const InputError& e) {
      EXPECT_EQ(e.input(), "--phase") << bad;
    }
  }
}

}  // namespace
}  // namespace ropecheck

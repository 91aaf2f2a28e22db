#include "proofs/ledger-expression.h"

#include <gtest/gtest.h>
#include <mpfr.h>

#include "numeric/decimal.h"
#include "numeric/precision.h"

namespace ropecheck::proofs {
namespace {

// The references below are computed independently of the evaluator: MPFR directly, at 600 bits,
// i.e. about 2^-600 relative error, far below the 2^-180 width of the enclosures under test.
// Containment is therefore a sharp test: a wrong rounding direction or operator would miss.
// Width: x^y = exp(y log x) carries an absolute error of a few ulps of y log x (|y log x| <= 10
// here) into a relative error of exp, so at 180 bits the relative width is about 10 * 2^-178
// = 2.6e-53; the bound 1e-50 is the ledger's promise of 50 correct digits, with that margin.
Real reference(const std::function<void(mpfr_ptr)>& f) {
  ScopedPrecision p(600);
  Real r;
  f(r.backend().data());
  return r;
}

void expect_encloses(const std::string& text, const Real& ref, double max_relative_width = 1e-50) {
  ScopedPrecision p(180);
  const Interval x = evaluate_expression(text);
  EXPECT_TRUE(contains(x, ref)) << text << " = [" << decimal_bounds(x, 60).lower << ", " << decimal_bounds(x, 60).upper
                                << "] does not contain the reference " << to_decimal(ref, 60);
  // The enclosure must be tight to 50 digits, not just correct.
  const Real width = Real(upper_of(x) - lower_of(x)) / abs(ref);
  EXPECT_LT(width, max_relative_width) << text << " relative width " << to_decimal(width, 6);
}

TEST(LedgerExpression, ContainsIndependentReferencesAt50Digits) {
  expect_encloses("10000^(-236/256)", reference([](mpfr_ptr r) {
                    mpfr_t e;
                    mpfr_init2(e, 600);
                    mpfr_set_si(e, -236, MPFR_RNDN);
                    mpfr_div_ui(e, e, 256, MPFR_RNDN);  // exact: a dyadic
                    mpfr_ui_pow(r, 10000, e, MPFR_RNDN);
                    mpfr_clear(e);
                  }));
  expect_encloses("10000^(-2*(119-1)/256)", reference([](mpfr_ptr r) {
                    mpfr_set_d(r, -0.921875, MPFR_RNDN);  // -236/256 exactly
                    mpfr_ui_pow(r, 10000, r, MPFR_RNDN);
                  }));
  expect_encloses("pi", reference([](mpfr_ptr r) { mpfr_const_pi(r, MPFR_RNDN); }));
  expect_encloses("128000*10000^-1/(2*pi)", reference([](mpfr_ptr r) {
                    mpfr_const_pi(r, MPFR_RNDN);
                    mpfr_ui_div(r, 64, r, MPFR_RNDN);  // 12.8/(2 pi) = 6.4/pi
                    mpfr_div_ui(r, r, 10, MPFR_RNDN);
                  }));
  expect_encloses("500000^(-40/64)", reference([](mpfr_ptr r) {
                    mpfr_set_d(r, -0.625, MPFR_RNDN);
                    mpfr_ui_pow(r, 500000, r, MPFR_RNDN);
                  }));
  expect_encloses("sqrt(2)*cos(pi/4)", reference([](mpfr_ptr r) { mpfr_set_ui(r, 1, MPFR_RNDN); }));
  expect_encloses("exp(log(7))", reference([](mpfr_ptr r) { mpfr_set_ui(r, 7, MPFR_RNDN); }));
}

TEST(LedgerExpression, IntegersStayExactPoints) {
  ScopedPrecision p(180);
  for (const auto& [text, value] : std::vector<std::pair<std::string, long>>{
           {"128*2", 256}, {"2^10", 1024}, {"-2^2", -4}, {"2^3^2", 512}, {"2*3+4", 10}, {"(2+3)*4", 20},
           {"256/2", 128}, {"10000^(-2*(1-1)/256)", 1}, {"floor(f64(f64(0.75)*256)/2)", 96}, {"abs(-3)", 3}}) {
    const Interval x = evaluate_expression(text);
    EXPECT_EQ(lower_of(x), upper_of(x)) << text << " is not a point: " << decimal_bounds(x, 30).lower << " .. " << decimal_bounds(x, 30).upper;
    EXPECT_TRUE(contains(x, Real(value))) << text << " != " << value;
  }
}

TEST(LedgerExpression, DotProductContainsTheExactRational) {
  ScopedPrecision p(180);
  // -4.1*11.2 + 11.3*(-3.5) = -45.92 - 39.55 = -85.47 exactly, so 100 times it is the integer -8547,
  // which the (outward-rounded) enclosure must contain.
  const Interval x = evaluate_expression("100*dot(-4.1, 11.3; 11.2, -3.5)");
  EXPECT_TRUE(contains(x, Real(-8547))) << decimal_bounds(x, 40).lower << " .. " << decimal_bounds(x, 40).upper;
  const Interval y = evaluate_expression("100*dot(-4.1, 11.3; -2.5, 1.3)");
  EXPECT_TRUE(contains(y, Real(2494))) << decimal_bounds(y, 40).lower << " .. " << decimal_bounds(y, 40).upper;
}

TEST(LedgerExpression, IntervalInputsGiveTheRangeOverTheBox) {
  ScopedPrecision p(180);
  // Each variable occurs once, so interval arithmetic gives the exact range of the dot product:
  // q1 k1 in [-4.15*11.25, -4.05*11.15] = [-46.6875, -45.1575], q2 k2 in [11.35*-3.55, 11.25*-3.45]
  // = [-40.2925, -38.8125]; sum [-86.98, -83.97].
  const Interval x = evaluate_expression("dot(interval(-4.15,-4.05), interval(11.25,11.35); interval(11.15,11.25), interval(-3.55,-3.45))");
  EXPECT_TRUE(contains(x, from_decimal<Real>("-86.98")));
  EXPECT_TRUE(contains(x, from_decimal<Real>("-83.97")));
  EXPECT_FALSE(contains(x, from_decimal<Real>("-86.99")));
  EXPECT_FALSE(contains(x, from_decimal<Real>("-83.96")));
}

TEST(LedgerExpression, F64RoundsLikePython) {
  ScopedPrecision p(180);
  // Python: 0.58*100 = 57.99999999999999, int(0.58*100 // 2) = 28, while exactly 58/2 = 29.
  const Interval binary64 = evaluate_expression("floor(f64(f64(0.58)*100)/2)");
  const Interval exact = evaluate_expression("floor(0.58*100/2)");
  EXPECT_TRUE(contains(binary64, Real(28)));
  EXPECT_EQ(lower_of(binary64), upper_of(binary64));
  EXPECT_TRUE(contains(exact, Real(29)));
  const Interval tenth = evaluate_expression("f64(0.1)");
  EXPECT_EQ(lower_of(tenth), upper_of(tenth));
  EXPECT_EQ(to_double(lower_of(tenth)), 0.1);
}

TEST(LedgerExpression, ExtraFunctionsAreCalled) {
  ScopedPrecision p(180);
  ExpressionFunctions f = {{"twice", [](const std::vector<Interval>& a) { return Interval(2 * a.at(0)); }}};
  EXPECT_TRUE(contains(evaluate_expression("twice(21)", f), Real(42)));
  EXPECT_THROW(evaluate_expression("twice(21)"), ExpressionError);
}

TEST(LedgerExpression, MalformedTextIsAnError) {
  ScopedPrecision p(180);
  for (const char* bad : {"", "1 +", "2 ** 3", "(1", "1)", "foo(1)", "sqrt(-1)", "1/0", "1/(1-1)", "1e", "log(0)",
                          "dot(1,2;3)", "(-8)^(1/3)", "pi(1)", "e", "1,2", "interval(2,1)", "0^-1", "floor(1;2)"}) {
    EXPECT_THROW(evaluate_expression(bad), ExpressionError) << "'" << bad << "' was accepted";
  }
}

}  // namespace
}  // namespace ropecheck::proofs

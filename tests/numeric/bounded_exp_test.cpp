// Tests for numeric/bounded_exp.h: every result is checked against e^x computed by MPFR at 256 bits
// (its own error < 2^-250, far below the 2^-47 under test), on points chosen to stress each step
// of the error budget: the reduction boundaries x = (k + 1/2) ln2 where k changes, the ends of the
// domain, tiny arguments, and random arguments over the whole domain. A failure prints
// x=%a ref=%a got=%a.
#include "numeric/bounded_exp.h"

#include <gtest/gtest.h>
#include <mpfr.h>

#include <cmath>
#include <vector>

#include "random/counter_rng.h"
#include "tests/support/show.h"

namespace ropecheck {
namespace {

// Returns: |got - e^x| / e^x, rounded up, from MPFR at 256 bits.
double relative_error(double x, double got) {
  mpfr_t ref, diff;
  mpfr_init2(ref, 256);
  mpfr_init2(diff, 256);
  mpfr_set_d(ref, x, MPFR_RNDN);
  mpfr_exp(ref, ref, MPFR_RNDN);
  mpfr_sub_d(diff, ref, got, MPFR_RNDN);
  mpfr_div(diff, diff, ref, MPFR_RNDN);
  const double e = std::fabs(mpfr_get_d(diff, MPFR_RNDU));
  mpfr_clear(ref);
  mpfr_clear(diff);
  return e;
}

std::string case_text(double x, double got) {
  mpfr_t ref;
  mpfr_init2(ref, 256);
  mpfr_set_d(ref, x, MPFR_RNDN);
  mpfr_exp(ref, ref, MPFR_RNDN);
  const double r = mpfr_get_d(ref, MPFR_RNDN);
  mpfr_clear(ref);
  return "x=" + show(x) + " ref=" + show(r) + " got=" + show(got);
}

std::vector<double> test_points() {
  std::vector<double> xs = {0.0, -0.0, 1.0, -1.0, 0x1p-1074, -0x1p-1074, 0x1p-30, -0x1p-30, 700.0, -700.0,
                            std::nextafter(700.0, 0.0), std::nextafter(-700.0, 0.0), 0.5, -0.5};
  // Around every reduction boundary (k + 1/2) ln2 in the domain, on both sides.
  for (int k = -1011; k <= 1010; ++k) {
    const double b = (k + 0.5) * 0.69314718055994530942;
    if (std::fabs(b) > kBoundedExpDomain) continue;
    double lo = b, hi = b;
    for (int i = 0; i < 3; ++i) lo = std::nextafter(lo, -1e9), hi = std::nextafter(hi, 1e9);
    for (double x : {b, lo, hi, k * 0.69314718055994530942})
      if (std::fabs(x) <= kBoundedExpDomain) xs.push_back(x);
  }
  const CounterRng rng(20261126, 1);
  for (std::uint64_t i = 0; i < 20000; ++i) xs.push_back(kBoundedExpDomain * rng.uniform_dyadic(i));
  for (std::uint64_t i = 20000; i < 24000; ++i) xs.push_back(rng.uniform_dyadic(i));  // |x| < 1: k in {-1, 0, 1}
  return xs;
}

TEST(BoundedExp, WithinItsProvedBoundEverywhereInTheDomain) {
  double worst = 0, worst_x = 0;
  for (double x : test_points()) {
    const double got = bounded_exp(x);
    ASSERT_TRUE(std::isnormal(got)) << case_text(x, got);
    const double e = relative_error(x, got);
    ASSERT_LE(e, kBoundedExpError) << case_text(x, got) << " relative error " << show(e);
    if (e > worst) worst = e, worst_x = x;
  }
  // Printed for the record: the bound is an upper bound, the measured worst a sample.
  std::printf("bounded_exp: worst sampled relative error %a (x=%a), proved bound %a\n", worst, worst_x, kBoundedExpError);
}

TEST(BoundedExp, NaNOutsideTheDomainSoCertifiedComparisonsFail) {
  for (double x : {700.5, -700.5, 1e300, -1e300, double(INFINITY), -double(INFINITY), double(NAN)}) EXPECT_TRUE(std::isnan(bounded_exp(x))) << "x=" << show(x);
}

}  // namespace
}  // namespace ropecheck

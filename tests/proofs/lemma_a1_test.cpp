#include "proofs/lemma-a1.h"

#include <gtest/gtest.h>
#include <mpfr.h>

#include "numeric/decimal.h"
#include "numeric/precision.h"

namespace ropecheck::proofs {
namespace {

// |n - 2 pi m| at 600 bits (an independent evaluation of the distance for g = 1).
Real distance_g1(long n, long m) {
  Real pi, out;
  mpfr_set_prec(pi.backend().data(), 600);
  mpfr_set_prec(out.backend().data(), 600);
  mpfr_const_pi(pi.backend().data(), MPFR_RNDN);
  mpfr_mul_si(out.backend().data(), pi.backend().data(), 2 * m, MPFR_RNDN);
  mpfr_si_sub(out.backend().data(), n, out.backend().data(), MPFR_RNDN);
  mpfr_abs(out.backend().data(), out.backend().data(), MPFR_RNDN);
  return out;
}

TEST(LemmaA1, ClosestReturnsOfOneRadianAreTheConvergentsOf2Pi) {
  ScopedPrecision p(256);
  struct Case { long long N; long n; long m; };
  // 2 pi ~ 6/1, 44/7, 710/113, 103993/16551: the near-returns the paper's Theorem 5.3 suffers from.
  for (const Case c : {Case{10, 6, 1}, Case{100, 44, 7}, Case{1000, 710, 113}, Case{200000, 103993, 16551}}) {
    const ClosestReturn cr = closest_return(Interval(1), c.N);
    EXPECT_EQ(cr.n_at_lower, c.n) << "N=" << c.N;
    const Real exact = distance_g1(c.n, c.m);
    EXPECT_LE(cr.lower, exact) << "N=" << c.N << " lower=" << to_decimal(cr.lower, 30) << " exact=" << to_decimal(exact, 30);
    EXPECT_GE(cr.upper, exact) << "N=" << c.N << " upper=" << to_decimal(cr.upper, 30) << " exact=" << to_decimal(exact, 30);
    EXPECT_GT(cr.lower, 0);
    EXPECT_LT(cr.upper - cr.lower, Real("1e-60"));
  }
}

TEST(LemmaA1, ARationalMultipleOfPiIsNeverCertified) {
  // g = 2 pi / 7 returns exactly at n = 7: the enclosure must contain 0, so no certificate.
  ScopedPrecision p(256);
  const Interval g = 2 * pi_value<Interval>() / 7;
  const ClosestReturn cr = closest_return(g, 10);
  EXPECT_EQ(cr.lower, 0);
  EXPECT_EQ(cr.n_at_lower, 7);
  EXPECT_LT(cr.upper, Real("1e-70"));
}

TEST(LemmaA1, CheckOnACustomSpectrumAndOnNoPE) {
  ClaimOptions o;
  o.spectrum.dim = 16;
  o.spectrum.context = 500;
  const auto certs = check_lemma_a1(o);
  ASSERT_EQ(certs.size(), 1u);
  EXPECT_EQ(certs[0].verdict, Verdict::holds);
  EXPECT_EQ(certs[0].details["frequencies"].size(), 8u);
  o.spectrum.variant = Variant::nope;
  const auto nope = check_lemma_a1(o);
  EXPECT_EQ(nope[0].details["frequencies"].size(), 0u);
  EXPECT_TRUE(nope[0].details.contains("note"));
}

}  // namespace
}  // namespace ropecheck::proofs

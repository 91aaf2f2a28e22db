#include "proofs/lemma-a2.h"

#include <gtest/gtest.h>
#include <mpfr.h>

#include "io/input_error.h"
#include "numeric/decimal.h"
#include "numeric/precision.h"

namespace ropecheck::proofs {
namespace {

// dist(n*g - phi, 2*pi*Z) for g = 1 and phi = k*pi/d at 600 bits with plain MPFR (fmod-style
// reduction, not the fixed point or the m of orbit_offset): the independent reference.
Real distance_g1(long long n, long k, long d) {
  Real pi, x, two_pi;
  for (Real* v : {&pi, &x, &two_pi}) mpfr_set_prec(v->backend().data(), 600);
  mpfr_const_pi(pi.backend().data(), MPFR_RNDN);
  mpfr_mul_ui(two_pi.backend().data(), pi.backend().data(), 2, MPFR_RNDN);
  mpfr_mul_si(x.backend().data(), pi.backend().data(), k, MPFR_RNDN);
  mpfr_div_si(x.backend().data(), x.backend().data(), d, MPFR_RNDN);
  mpfr_si_sub(x.backend().data(), n, x.backend().data(), MPFR_RNDN);  // n - phi
  mpfr_remainder(x.backend().data(), x.backend().data(), two_pi.backend().data(), MPFR_RNDN);
  mpfr_abs(x.backend().data(), x.backend().data(), MPFR_RNDN);
  return x;
}

TEST(LemmaA2, ContinuedFractionOfOneOverTwoPi) {
  // 2*pi = [6; 3, 1, 1, 7, 2, 146, 3, 6, 1, 1, 2, 7, 5, 5, ...] (OEIS A058291), so 1/(2 pi) has a
  // leading 0 then the same quotients.
  ScopedPrecision p(256);
  const CertifiedContinuedFraction cf = certified_continued_fraction(1 / (2 * pi_value<Interval>()), 1LL << 40);
  const std::vector<long long> expected = {0, 6, 3, 1, 1, 7, 2, 146, 3, 6, 1, 1, 2, 7, 5, 5};
  ASSERT_GE(cf.quotients.size(), expected.size());
  for (size_t k = 0; k < expected.size(); ++k) EXPECT_EQ(cf.quotients[k], expected[k]) << "k=" << k;
  // q_k of 1/(2 pi) are the numerators of 2 pi's convergents: 6, 19, 25, 44, 333, 710, 103993.
  EXPECT_EQ(cf.q[6], 710);
  EXPECT_EQ(cf.q[7], 103993);
}

TEST(LemmaA2, ARationalIsNeverExpandedPastItsEnd) {
  // (2 pi / 7) / (2 pi) encloses 1/7 = [0; 7]; a quotient past that would be invented.
  ScopedPrecision p(256);
  const Interval two_pi = 2 * pi_value<Interval>();
  const CertifiedContinuedFraction cf = certified_continued_fraction(Interval(two_pi / 7) / two_pi, 1LL << 40);
  ASSERT_LE(cf.quotients.size(), 2u);
  const std::vector<long long> prefix = {0, 7};
  for (size_t k = 0; k < cf.quotients.size(); ++k) EXPECT_EQ(cf.quotients[k], prefix[k]);
}

TEST(LemmaA2, WitnessForOneRadianIsCertifiedAndCheckedIndependently) {
  ScopedPrecision p(256);
  struct Case { long k; long d; const char* delta; };
  for (const Case c : {Case{1, 2, "1e-3"}, Case{1, 1, "1e-3"}, Case{1, 2, "1e-6"}, Case{3, 4, "1e-5"}}) {
    const Interval phi = pi_value<Interval>() * c.k / c.d;
    const Interval delta = from_decimal<Interval>(c.delta);
    const DensityWitness w = approach_angle(Interval(1), phi, delta, 1000000000000LL, 1LL << 28);
    ASSERT_TRUE(w.certified) << c.k << "pi/" << c.d << " " << w.reason;
    EXPECT_TRUE(w.constructed);
    EXPECT_LE(w.n, w.a_priori_bound);
    const Real ref = distance_g1(w.n, c.k, c.d);
    EXPECT_LT(ref, Real(c.delta)) << "n=" << w.n << " ref=" << to_decimal(ref, 20);
    EXPECT_TRUE(contains(w.distance, ref)) << "n=" << w.n << " [" << decimal_bounds(w.distance, 20).lower << ", "
                                           << decimal_bounds(w.distance, 20).upper << "] ref " << to_decimal(ref, 20);
    ASSERT_TRUE(w.smallest_known) << w.smallest_note;
    EXPECT_LE(w.smallest, w.n);
    EXPECT_LT(distance_g1(w.smallest, c.k, c.d), Real(c.delta));
  }
}

TEST(LemmaA2, SmallestNAgreesWithABruteForceInMpfr) {
  // delta = 1e-2 keeps the brute force short; every n' below the smallest must be >= delta.
  ScopedPrecision p(256);
  const Interval phi = pi_value<Interval>() * 3 / 4;
  const DensityWitness w = approach_angle(Interval(1), phi, from_decimal<Interval>("1e-2"), 1000000, 1000000);
  ASSERT_TRUE(w.smallest_known) << w.smallest_note;
  long long brute = 0;
  for (long long n = 1; n <= w.n && !brute; ++n)
    if (distance_g1(n, 3, 4) < Real("1e-2")) brute = n;
  EXPECT_EQ(w.smallest, brute);
}

TEST(LemmaA2, ARationalFrequencyOffItsOrbitIsNeverCertified) {
  // g = 2 pi / 7 visits only the 7 angles 2 pi k / 7; phi = 1 is 0.102 away from the nearest.
  ScopedPrecision p(256);
  const Interval g = 2 * pi_value<Interval>() / 7;
  const DensityWitness w = approach_angle(g, Interval(1), from_decimal<Interval>("1e-3"), 1000000, 1000000);
  EXPECT_FALSE(w.certified);
  EXPECT_FALSE(w.constructed);
  EXPECT_FALSE(w.smallest_known);
  EXPECT_NE(w.reason.find("rational"), std::string::npos) << w.reason;
  // On the orbit (phi = 6 pi / 7 = 3 g) the scan finds n = 3, certified: a true witness.
  const DensityWitness on = approach_angle(g, pi_value<Interval>() * 6 / 7, from_decimal<Interval>("1e-3"), 1000000, 1000000);
  EXPECT_TRUE(on.certified);
  EXPECT_TRUE(on.n_by_scan);
  EXPECT_EQ(on.n, 3);
}

TEST(LemmaA2, ConstructionBeyondNIsInconclusiveNotRefuted) {
  ClaimOptions o;
  o.frequency = "1";
  o.phase = "pi/2";
  o.tolerance = "1e-6";
  o.max_n = 1000;
  const auto certs = check_lemma_a2(o);
  ASSERT_EQ(certs.size(), 1u);
  EXPECT_EQ(certs[0].verdict, Verdict::inconclusive);
  EXPECT_TRUE(certs[0].details["targets"][0].contains("reason")) << certs[0].details.dump();
}

TEST(LemmaA2, OneCertificateWhenEveryAxisIsGiven) {
  ClaimOptions o;
  o.frequency = "0.5";
  o.phase = "3";
  o.tolerance = "1e-4";
  const auto certs = check_lemma_a2(o);
  ASSERT_EQ(certs.size(), 1u);
  EXPECT_EQ(certs[0].verdict, Verdict::holds) << certs[0].details.dump();
}

TEST(LemmaA2, BadParametersAreInputErrors) {
  auto expect_error = [](ClaimOptions o, const std::string& flag) {
    try {
      check_lemma_a2(o);
      ADD_FAILURE() << "accepted bad " << flag;
    } catch (const InputError& e) {
      EXPECT_EQ(e.input(), flag);
    }
  };
  ClaimOptions o;
  o.frequency = "1";
  o.phase = "1";
  o.tolerance = "0";
  expect_error(o, "--tolerance");
  o.tolerance = "2";
  expect_error(o, "--tolerance");
  o.tolerance = "1e-3";
  o.frequency = "-1";
  expect_error(o, "--frequency");
  o.frequency = "1";
  o.phase = "x";
  expect_error(o, "--phase");
}

}  // namespace
}  // namespace ropecheck::proofs

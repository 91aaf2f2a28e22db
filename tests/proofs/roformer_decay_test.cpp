#include "proofs/roformer-decay.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <stdexcept>
#include <vector>

#include "io/input_error.h"
#include "numeric/decimal.h"
#include "numeric/interval_series.h"
#include "numeric/precision.h"
#include "proofs/fig-2a.h"
#include "random/counter_rng.h"
#include "spectrum/frequencies.h"
#include "tests/support/show.h"

namespace ropecheck::proofs {
namespace {

// B(r) from MPFR at 600 bits: partial sums of cos and sin, hypot, summed; no addition formulas and
// no intervals. Within ~P^2 r 2^-590 of the exact value, far inside the 257-bit enclosures.
Real reference_B(const Spectrum& sp, long long r) {
  ScopedPrecision p(600);
  const std::vector<Real> g = frequencies<Real>(sp);
  Real re(0), im(0), total(0);
  for (const Real& gk : g) {
    re += cos(Real(Real(r) * gk));
    im += sin(Real(Real(r) * gk));
    total += sqrt(Real(re * re + im * im));
  }
  return Real(total / sp.pairs());
}

TEST(RoformerDecay, BoundContainsThe600BitValue) {
  const Spectrum sp(128, "10000");
  ScopedPrecision p(256);
  const std::vector<Interval> B = roformer_bound(frequencies<Interval>(sp), 5000);
  for (long long r : {1LL, 2LL, 18LL, 19LL, 236LL, 256LL, 4861LL, 5000LL}) {
    const Real ref = reference_B(sp, r);
    EXPECT_TRUE(contains(B[static_cast<std::size_t>(r)], ref))
        << "r=" << r << " B=" << show(B[static_cast<std::size_t>(r)]) << " ref=" << to_decimal(ref, 30);
  }
}

TEST(RoformerDecay, BAtZeroIsExactlyHalfOfPairsPlusOne) {
  // S_j(0) = j, so B(0) = (1/P) * P(P+1)/2 = (P+1)/2: the point value, not just an enclosure of it.
  ScopedPrecision p(256);
  for (int d : {2, 8, 128, 256}) {
    const std::vector<Interval> B = roformer_bound(frequencies<Interval>(Spectrum(d, "10000")), 0);
    const double exact = (d / 2 + 1) / 2.0;
    EXPECT_EQ(lower_of(B[0]), exact) << "d=" << d << " B(0)=" << show(B[0]);
    EXPECT_EQ(upper_of(B[0]), exact) << "d=" << d << " B(0)=" << show(B[0]);
  }
}

TEST(RoformerDecay, AbelBoundHoldsForRandomChunksNotOnlyAllOnes) {
  // The inequality behind the curve, |sum_k h_k e^(i r g_k)| <= max_k |h_{k+1} - h_k| * P * B(r)
  // (h_P = 0), for seeded random complex h. binary64 sums of <= 16 terms of size <= 2 at angles
  // <= 300 carry errors < 1e-12 on each side, so a slack of 1e-9 absorbs rounding and nothing else.
  const int d = 32, P = d / 2;
  const Spectrum sp(d, "10000");
  std::vector<Interval> Bi;
  {
    ScopedPrecision p(256);
    Bi = roformer_bound(frequencies<Interval>(sp), 300);
  }
  const CounterRng rng(3, 77);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<std::complex<double>> h(P + 1, 0.0);
    for (int k = 0; k < P; ++k)
      h[k] = {rng.uniform_dyadic(static_cast<std::uint64_t>(trial * 100 + 2 * k)),
              rng.uniform_dyadic(static_cast<std::uint64_t>(trial * 100 + 2 * k + 1))};
    double maxdiff = 0;
    for (int k = 0; k < P; ++k) maxdiff = std::max(maxdiff, std::abs(h[k + 1] - h[k]));
    for (long long r = 0; r <= 300; r += 7) {
      std::complex<double> sum = 0;
      for (int k = 0; k < P; ++k) sum += h[k] * std::polar(1.0, static_cast<double>(r) * std::pow(10000.0, -2.0 * k / d));
      const double bound = maxdiff * P * to_double(Bi[static_cast<std::size_t>(r)]);
      EXPECT_LE(std::abs(sum), bound + 1e-9) << "trial=" << trial << " r=" << r;
    }
  }
}

TEST(RoformerDecay, DefaultCheckHoldsAndIsNotMonotone) {
  const auto certs = check_roformer_decay(ClaimOptions{});
  ASSERT_EQ(certs.size(), 1u);
  EXPECT_EQ(certs[0].verdict, Verdict::holds) << certs[0].details.dump();
  // The first certified increases against a binary64 scan of B with a clear margin: B(19) > B(18)
  // by ~0.04 in binary64, far above its ~1e-12 rounding.
  const auto first = certs[0].details.at("first_increases_r").get<std::vector<long long>>();
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(first.front(), 18);
  ScopedPrecision p(256);
  const std::vector<Interval> B = roformer_bound(frequencies<Interval>(Spectrum(128, "10000")), 256);
  const StepCounts s = count_steps(B, 0, 256);
  EXPECT_GT(s.increases, 0);  // negative case: "B decreases monotonically" is certainly false
  EXPECT_FALSE(s.increases == 0 && s.undecided == 0);
  const std::vector<Interval> f = all_ones_activation(frequencies<Interval>(Spectrum(128, "10000")), 256);
  for (long long r = 0; r <= 256; ++r)
    EXPECT_TRUE(certainly_less(Interval(abs(f[static_cast<std::size_t>(r)])), B[static_cast<std::size_t>(r)])) << r;
}

TEST(RoformerDecay, NoPEDoesNotDecay) {
  // S_j(r) = j for every r: B is constant (P+1)/2, so "decays on average" is certainly false.
  ClaimOptions o;
  o.spectrum.dim = 16;
  o.spectrum.variant = Variant::nope;
  o.max_n = 40;
  const auto certs = check_roformer_decay(o);
  EXPECT_EQ(certs[0].verdict, Verdict::fails) << certs[0].details.dump();
}

TEST(RoformerDecay, BadMaxNIsAnInputError) {
  ClaimOptions o;
  o.max_n = 7;
  EXPECT_THROW(check_roformer_decay(o), InputError);
}

// The envelope decision per r, on hand-made enclosures: a tie is certified (non-strict), an
// overlap undecided, |f| above B violated; the sign of f does not matter.
TEST(RoformerDecay, EnvelopeCountsEachDistanceThreeWays) {
  ScopedPrecision p(128);
  const std::vector<Interval> B = {Interval(1), Interval(2), Interval(2), hull_of(Interval(1), Interval(3)), Interval(1)};
  const std::vector<Interval> f = {Interval(1), Interval(-1.5), Interval(-3), Interval(2), Interval(4)};
  const EnvelopeCounts e = roformer_envelope(B, f);
  EXPECT_EQ(e.certified, 2);  // r = 0 (tie), r = 1
  EXPECT_EQ(e.violated, 2);   // r = 2 (|f| = 3 > 2), r = 4
  EXPECT_EQ(e.undecided, 1);  // r = 3
  EXPECT_EQ(e.first_violation, 2);
  EXPECT_EQ(roformer_envelope({Interval(1)}, {Interval(0)}).first_violation, -1);
  EXPECT_THROW(roformer_envelope(B, {Interval(1)}), std::invalid_argument);
}

}  // namespace
}  // namespace ropecheck::proofs

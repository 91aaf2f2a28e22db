#include "proofs/semantic-channel.h"

#include <gtest/gtest.h>

#include "io/input_error.h"
#include "numeric/decimal.h"
#include "numeric/precision.h"
#include "spectrum/frequencies.h"
#include "spectrum/request.h"

namespace ropecheck::proofs {
namespace {

// The generic channel at 24.94 / 85.47 strength and phase phi, as TwoTypeChannel.
TwoTypeChannel family(const Interval& g, const Interval& phi) {
  Vector<Interval> q(2), kt(2), ko(2);
  q[0] = Interval(1), q[1] = Interval(0);
  Interval s, c;
  sin_cos(phi, s, c);
  const Interval A = from_decimal<Interval>("24.94"), B = from_decimal<Interval>("85.47");
  kt[0] = A * c, kt[1] = A * s, ko[0] = -B * c, ko[1] = -B * s;
  return {g, pair_products(q, kt), pair_products(q, ko)};
}

// alpha_L(s) of the family from the closed form A cos(s g - phi) at 300 bits in MPFR (no pair
// products, no library softmax): the independent reference.
Real family_alpha(const Real& g, const Real& phi, long long L, long long s) {
  const Real A("24.94"), B("85.47");
  Real num = exp(A * cos(Real(s) * g - phi)), den = num;
  for (long long t = 0; t <= L; ++t)
    if (t != s) den += exp(-B * cos(Real(t) * g - phi));
  return num / den;
}

TEST(SemanticChannel, ChannelActivationIsTheRotatedDotProduct) {
  ScopedPrecision p(256);
  Vector<Interval> q(2), k(2);
  q[0] = from_decimal<Interval>("-4.1"), q[1] = from_decimal<Interval>("11.3");
  k[0] = from_decimal<Interval>("11.2"), k[1] = from_decimal<Interval>("-3.5");
  const Interval g = from_decimal<Interval>("0.37");
  for (long long s : {0LL, 1LL, 17LL, 12345LL}) {
    const Interval a = channel_activation(pair_products(q, k), g, s);
    // Reference: rotate the query to position s and the key to position 0, then dot (absolute form).
    const Interval ref = absolute_activation<Interval>(q, s, k, 0, {g});
    EXPECT_TRUE(overlaps(a, ref)) << "s=" << s << " a=" << decimal_bounds(a).lower << " ref=" << decimal_bounds(ref).lower;
  }
}

TEST(SemanticChannel, ShortestBreakingContextAtOneRadianMatchesABruteForce) {
  const Real half("0.5");
  for (const char* phase : {"0", "0.3", "-1"}) {
    BreakingSwap b;
    {
      ScopedPrecision p(256);
      b = shortest_breaking_context(family(Interval(1), from_decimal<Interval>(phase)), from_decimal<Interval>("0.1"), 1000);
    }
    ASSERT_TRUE(b.found) << phase << " " << b.note;
    ScopedPrecision p(300);
    const Real g(1), phi(phase);
    // Brute force over every context up to L_break and every target distance.
    for (long long L = 1; L <= b.L; ++L) {
      Real best = 1;
      for (long long s = 1; s <= L; ++s) best = std::min(best, Real(family_alpha(g, phi, L, s)));
      if (L < b.L) {
        EXPECT_GT(best, half) << "phase " << phase << " L=" << L << " min alpha " << to_decimal(best, 20);
      } else {
        EXPECT_LE(best, half) << "phase " << phase << " L=" << L;
      }
    }
    const Real after = family_alpha(g, phi, b.L, b.s_after);
    EXPECT_TRUE(contains(b.alpha_after, after)) << to_decimal(after, 20);
    EXPECT_LE(after, half);
    if (b.attended) {
      const Real before = family_alpha(g, phi, b.L, b.s_before);
      EXPECT_TRUE(contains(b.alpha_before, before)) << to_decimal(before, 20);
      EXPECT_GT(before, Real("0.9"));
    } else {
      // "Not attended" must be true of every distance, not only of the one the scan picked.
      for (long long s = 1; s <= b.L; ++s) EXPECT_LE(family_alpha(g, phi, b.L, s), Real("0.9")) << "phase " << phase << " s=" << s;
    }
  }
  {
    // At phase 0 the fast channel is attended and broken at the same context: the swap is shown.
    ScopedPrecision p(256);
    const BreakingSwap b = shortest_breaking_context(family(Interval(1), Interval(0)), from_decimal<Interval>("0.1"), 1000);
    EXPECT_TRUE(b.found && b.attended) << b.note;
  }
}

TEST(SemanticChannel, SlowChannelBreaksNearTheSignFlipAndTheBoundariesAreExact) {
  ScopedPrecision p(256);
  const Interval g = frequencies<Interval>(resolve(SpectrumRequest{}, std::string("gemma-7b")).spectrum)[118];
  const TwoTypeChannel ch = family(g, Interval(0));
  const BreakingSwap b = shortest_breaking_context(ch, from_decimal<Interval>("0.1"), 1 << 20);
  ASSERT_TRUE(b.found && b.attended) << b.note;
  // The sign flip is at (pi/2)/g ~ 7649; the softmax mass of the near-zero distractors breaks it
  // earlier, but not absurdly so.
  EXPECT_LT(b.L, 7650);
  EXPECT_GT(b.L, 6000);
  // Spot check with the reference softmax: the breaking distance and its neighbours do not break
  // one context earlier (the exhaustive version of this is the one-radian test above).
  ScopedPrecision hp(300);
  const Real gr = midpoint(g);  // 256-bit g; the reference only needs to resolve the margins below
  for (long long s = std::max(1LL, b.s_after - 1); s <= std::min(b.L - 1, b.s_after + 1); ++s) {
    EXPECT_GT(family_alpha(gr, Real(0), b.L - 1, s), Real("0.5")) << "s=" << s;
  }
  EXPECT_LE(family_alpha(gr, Real(0), b.L, b.s_after), Real("0.5"));
}

TEST(SemanticChannel, ApostropheChannelFirstBreakMatchesAnMpfrReference) {
  SinkBreak r;
  Interval g;
  {
    ScopedPrecision p(256);
    g = frequencies<Interval>(resolve(SpectrumRequest{}, std::string("gemma-7b")).spectrum)[118];
    Vector<Interval> q(2), kb(2), kx(2);
    q[0] = from_decimal<Interval>("-4.1"), q[1] = from_decimal<Interval>("11.3");
    kb[0] = from_decimal<Interval>("-2.5"), kb[1] = from_decimal<Interval>("1.3");
    kx[0] = from_decimal<Interval>("11.2"), kx[1] = from_decimal<Interval>("-3.5");
    r = sink_channel_break({g, pair_products(q, kb), pair_products(q, kx)}, from_decimal<Interval>("0.1"), 8192, 1 << 20);
  }
  ASSERT_TRUE(r.decided());
  // Reference: rho(-s g) k written out, dot with q, at 200 bits; ratio sum/e^{a_b} against 1.
  ScopedPrecision p(200);
  const Real gr = midpoint(g);
  auto act = [&](const Real& k1, const Real& k2, long long s) {
    const Real c = cos(Real(s) * gr), sn = sin(Real(s) * gr);
    return Real(Real("-4.1") * (c * k1 + sn * k2) + Real("11.3") * (-sn * k1 + c * k2));
  };
  Real S = 0;
  long long first_half = 0;
  for (long long L = 1; !first_half; ++L) {
    S += exp(act(Real("11.2"), Real("-3.5"), L - 1));
    if (exp(act(Real("-2.5"), Real("1.3"), L)) <= S) first_half = L;
  }
  EXPECT_EQ(r.first_half_hi, first_half);
  EXPECT_GT(r.first_sharp_hi, 8192);
  EXPECT_LE(r.first_sharp_hi, r.first_half_hi);
}

TEST(SemanticChannel, ApostropheChannelHoldsThePrintedVectorsAndItsBoxContainsThem) {
  ScopedPrecision p(256);
  const Interval g = from_decimal<Interval>("0.37");
  Vector<Interval> q(2), kb(2), kx(2);
  for (int i = 0; i < 2; ++i) {
    q[i] = from_decimal<Interval>(kApostropheQuery[i]);
    kb[i] = from_decimal<Interval>(kApostropheSinkKey[i]);
    kx[i] = from_decimal<Interval>(kApostropheOtherKey[i]);
  }
  const SinkChannel point = apostrophe_channel(g), box = apostrophe_channel_box(g, "0.05");
  for (long long s : {0LL, 1LL, 100LL}) {
    const Interval ab = channel_activation(point.sink, g, s), ao = channel_activation(point.other, g, s);
    EXPECT_TRUE(overlaps(ab, channel_activation(pair_products(q, kb), g, s))) << "s=" << s;
    EXPECT_TRUE(overlaps(ao, channel_activation(pair_products(q, kx), g, s))) << "s=" << s;
    // The box holds the printed point: its activations enclose the point's.
    const Interval bb = channel_activation(box.sink, g, s), bo = channel_activation(box.other, g, s);
    EXPECT_TRUE(lower_of(bb) <= lower_of(ab) && upper_of(ab) <= upper_of(bb)) << "s=" << s;
    EXPECT_TRUE(lower_of(bo) <= lower_of(ao) && upper_of(ao) <= upper_of(bo)) << "s=" << s;
    EXPECT_GT(upper_of(bb) - lower_of(bb), Real("0.1")) << "s=" << s << ": the box is not a point";
  }
}

TEST(SemanticChannel, AChannelWithoutRotationNeverBreaks) {
  // Negative case: g = 0 (p-RoPE's unrotated pair). No context may certify a break.
  ScopedPrecision p(256);
  const BreakingSwap b = shortest_breaking_context(family(Interval(0), Interval(0)), from_decimal<Interval>("0.1"), 3000);
  EXPECT_TRUE(b.decided);
  EXPECT_FALSE(b.found);
}

TEST(SemanticChannel, LemmaA3ContextBoundIsTwoCeilTwoPiOverGPlusTwo) {
  ScopedPrecision p(256);
  // 2 pi = 6.283..., 2 pi / 0.5 = 12.566..., 2 pi / 3 = 2.094...: ceilings 7, 13, 3.
  EXPECT_EQ(lemma_a3_context_bound(Interval(1)), 16);
  EXPECT_EQ(lemma_a3_context_bound(from_decimal<Interval>("0.5")), 28);
  EXPECT_EQ(lemma_a3_context_bound(Interval(3)), 8);
  // g = pi/2 exactly has 2 pi / g = 4, but no enclosure of pi/2 is a point: the upper endpoint of
  // 2 pi / g lies above 4, so the ceiling is 5 (the bound may only err upward).
  EXPECT_EQ(lemma_a3_context_bound(Interval(pi_value<Interval>() / 2)), 12);
  EXPECT_THROW(lemma_a3_context_bound(Interval(0)), InputError);
  EXPECT_THROW(lemma_a3_context_bound(Interval(4)), InputError);
  EXPECT_THROW(lemma_a3_context_bound(Interval(pi_value<Interval>())), InputError);
  Interval straddles_zero(-1, 1);
  EXPECT_THROW(lemma_a3_context_bound(straddles_zero), InputError);
  EXPECT_THROW(lemma_a3_context_bound(from_decimal<Interval>("1e-30")), InputError);  // bound > 2^62
}

// The bound's claim checked against the closed form a_x(s) = A_x cos(s g - phi_x) at 300 bits in
// MPFR, independently of the pair-product code: at L = the bound, min over s' in 1..L of alpha_L(s')
// is below 1/2 for amplitudes and phases chosen at the proof's edges (one amplitude zero, tiny or
// large amplitudes, g near pi, phases that put the maxima at the ends of the ranges).
TEST(SemanticChannel, LemmaA3ContextBoundBreaksEveryChannelOfAGrid) {
  struct Channel { const char *g, *at, *pt, *ao, *po; };
  const Channel grid[] = {{"1", "24.94", "0", "85.47", "3.14159"}, {"1", "0", "0", "0.001", "1"},
                          {"1", "0.001", "2", "0", "0"},           {"3", "50", "-1.5", "50", "1.5"},
                          {"3.1", "1000", "0.5", "1", "0.5"},      {"0.05", "7", "1", "700", "-2"},
                          {"0.01", "300", "-3", "0.5", "0"}};
  for (const Channel& c : grid) {
    long long L = 0;
    {
      ScopedPrecision p(128);
      L = lemma_a3_context_bound(from_decimal<Interval>(c.g));
    }
    ScopedPrecision p(300);
    const Real g(c.g), at(c.at), pt(c.pt), ao(c.ao), po(c.po);
    std::vector<Real> eo(static_cast<size_t>(L + 1));
    Real total = 0;
    for (long long s = 0; s <= L; ++s) total += eo[static_cast<size_t>(s)] = exp(ao * cos(Real(s) * g - po));
    Real best = 1;
    for (long long s = 1; s <= L; ++s) {
      const Real et = exp(at * cos(Real(s) * g - pt));
      const Real alpha = et / (et + total - eo[static_cast<size_t>(s)]);
      if (alpha < best) best = alpha;
    }
    EXPECT_LT(best, Real("0.5")) << "g=" << c.g << " A_t=" << c.at << " phi_t=" << c.pt << " A_o=" << c.ao << " phi_o=" << c.po
                                 << " L=" << L << " min alpha=" << best.str(20);
  }
}

}  // namespace
}  // namespace ropecheck::proofs

#include "proofs/positional-heads.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "numeric/decimal.h"
#include "numeric/precision.h"
#include "spectrum/frequencies.h"

namespace ropecheck::proofs {
namespace {

std::string dec(const Real& x) { return to_decimal(x, 25); }

// Gaps of a single pair of frequency g carrying all the norm.
std::vector<Interval> single_pair_gaps(const Interval& g, long long M) { return alignment_gaps({g}, {Interval(1)}, M); }

void expect_brackets(const NormBracket& b, const Real& exact, const std::string& what) {
  ASSERT_TRUE(b.certified) << what << ": " << b.note;
  EXPECT_LE(b.s_lo, exact) << what << " s_lo=" << dec(b.s_lo) << " exact=" << dec(exact) << " s_hi=" << dec(b.s_hi);
  EXPECT_GE(b.s_hi, exact) << what << " s_lo=" << dec(b.s_lo) << " exact=" << dec(exact) << " s_hi=" << dec(b.s_hi);
  EXPECT_LE(b.s_hi, b.s_lo * (1 + Real(1e-6))) << what << " bracket wider than the tolerance";
}

TEST(PositionalHeads, BracketContainsTheClosedFormsForTwoAndThreePositions) {
  // One pair, g = 1. Row 2 of either head has the single off-target offset m = 1: e^(-s d1) = t, so
  // s* = ln(1/t) / (1 - cos 1). Row 3 of the previous-token head has m = 1 twice (the key after the
  // target and the one before it): s* = ln(2/t) / (1 - cos 1). Reference in MPFR at 600 bits.
  for (const char* e : {"0.1", "0.01", "0.3"}) {
    NormBracket diag2, prev2, prev3;
    {
      ScopedPrecision p(256);
      const auto gaps = single_pair_gaps(Interval(1), 3);
      const Interval eps = from_decimal<Interval>(e);
      diag2 = minimal_norm(gaps, PositionalHead::diagonal, 2, eps, 1e-6);
      prev2 = minimal_norm(gaps, PositionalHead::previous_token, 2, eps, 1e-6);
      prev3 = minimal_norm(gaps, PositionalHead::previous_token, 3, eps, 1e-6);
    }
    ScopedPrecision p(600);
    const Real eps = from_decimal<Real>(e), t = eps / (1 - eps), d1 = 1 - cos(Real(1));
    expect_brackets(diag2, Real(log(1 / t) / d1), std::string("diagonal N=2 eps=") + e);
    expect_brackets(prev2, Real(log(1 / t) / d1), std::string("previous-token N=2 eps=") + e);
    expect_brackets(prev3, Real(log(2 / t) / d1), std::string("previous-token N=3 eps=") + e);
  }
}

// The smallest s for which every row i <= N of the construction, built on explicit vectors and
// pushed through causal_activations / causal_attention in MPFR at 600 bits, has its target above
// 1 - eps: a bisection that never uses the c(m) formula nor the "row N is the worst" reduction.
// Returns [a, b] with a failing and b working, b - a < 2^-200 (b0 - a0).
std::pair<Real, Real> brute_force_minimal_norm(const Spectrum& spectrum, const std::vector<double>& weights, PositionalHead head,
                                               long long N, const std::string& epsilon) {
  ScopedPrecision p(600);
  const std::vector<Real> g = frequencies<Real>(spectrum);
  std::vector<Real> w(weights.begin(), weights.end());
  const Real bar = 1 - from_decimal<Real>(epsilon);
  auto works = [&](const Real& s) {
    const Matrix<Real> alpha = construction_attention(construction_query(w, s), g, head, N);
    for (long long i = head == PositionalHead::diagonal ? 1 : 2; i <= N; ++i) {
      const long long target = head == PositionalHead::diagonal ? i : i - 1;
      if (!(alpha(i - 1, target - 1) > bar)) return false;
    }
    return true;
  };
  Real a(0), b(1e6);
  EXPECT_FALSE(works(a));
  EXPECT_TRUE(works(b));
  for (int it = 0; it < 200; ++it) {
    const Real mid = (a + b) / 2;
    (works(mid) ? b : a) = mid;
  }
  return {a, b};
}

TEST(PositionalHeads, BracketContainsTheBruteForceSoftmaxOnExplicitVectors) {
  const Spectrum spectrum(4, "10");  // g = 1 and 10^-1/2, the norm split 1/2, 1/2
  for (PositionalHead head : {PositionalHead::diagonal, PositionalHead::previous_token}) {
    for (long long N : {3LL, 6LL, 9LL}) {
      for (const char* e : {"0.1", "0.01"}) {
        NormBracket b;
        {
          ScopedPrecision p(256);
          b = minimal_norm(spectrum, fastest_pairs_weights(spectrum, 2), head, N, from_decimal<Interval>(e), 1e-6);
        }
        const auto [lo, hi] = brute_force_minimal_norm(spectrum, {0.5, 0.5}, head, N, e);
        const std::string what = head_name(head) + " N=" + std::to_string(N) + " eps=" + e;
        ASSERT_TRUE(b.certified) << what << ": " << b.note;
        // s* is in [lo, hi] (width ~1e-54) and in [s_lo, s_hi]: the two must overlap.
        EXPECT_LE(b.s_lo, hi) << what << " s_lo=" << dec(b.s_lo) << " brute force [" << dec(lo) << ", " << dec(hi) << "]";
        EXPECT_GE(b.s_hi, lo) << what << " s_hi=" << dec(b.s_hi) << " brute force [" << dec(lo) << ", " << dec(hi) << "]";
      }
    }
  }
}

TEST(PositionalHeads, ExplicitVectorsAgreeWithTheBracketEnds) {
  // k = R psi through causal_attention in MPFI: at s_hi every row's target is certainly above
  // 1 - eps; at s_lo row N's is certainly not. Same for the diagonal head.
  ScopedPrecision p(256);
  const Spectrum spectrum(16, "10000");
  const std::vector<Interval> g = frequencies<Interval>(spectrum);
  const std::vector<Interval> w = fastest_pairs_weights(spectrum, 8);
  const Interval eps = from_decimal<Interval>("0.01");
  const Interval bar = 1 - eps;
  const long long N = 40;
  for (PositionalHead head : {PositionalHead::diagonal, PositionalHead::previous_token}) {
    const NormBracket b = minimal_norm(spectrum, w, head, N, eps, 1e-6);
    ASSERT_TRUE(b.certified) << b.note;
    const long long first = head == PositionalHead::diagonal ? 1 : 2, shift = head == PositionalHead::diagonal ? 0 : 1;
    const Matrix<Interval> at_hi = construction_attention(construction_query(w, Interval(b.s_hi)), g, head, N);
    for (long long i = first; i <= N; ++i) {
      const Interval& a = at_hi(i - 1, i - 1 - shift);
      EXPECT_TRUE(certainly_less(bar, a)) << head_name(head) << " i=" << i << " alpha in [" << dec(lower_of(a)) << ", "
                                          << dec(upper_of(a)) << "] at s_hi=" << dec(b.s_hi);
    }
    const Matrix<Interval> at_lo = construction_attention(construction_query(w, Interval(b.s_lo)), g, head, N);
    const Interval& a = at_lo(N - 1, N - 1 - shift);
    EXPECT_LE(upper_of(a), lower_of(bar)) << head_name(head) << " alpha_N in [" << dec(lower_of(a)) << ", " << dec(upper_of(a))
                                          << "] at s_lo=" << dec(b.s_lo);
    EXPECT_TRUE(overlaps(a, b.attention_at_lo)) << head_name(head);
  }
}

TEST(PositionalHeads, EveryRowHoldsAtTheUpperEndByTheFullSum) {
  ScopedPrecision p(256);
  const Spectrum spectrum(32, "10000");
  const std::vector<Interval> gaps = even_spread_gaps(spectrum, {16}, 300)[0];
  const Interval eps = from_decimal<Interval>("0.05");
  for (PositionalHead head : {PositionalHead::diagonal, PositionalHead::previous_token}) {
    const NormBracket b = minimal_norm(gaps, head, 300, eps, 1e-6);
    ASSERT_TRUE(b.certified) << b.note;
    for (long long i = head == PositionalHead::diagonal ? 1 : 2; i <= 300; ++i) {
      const Interval a = target_attention(gaps, head, i, Interval(b.s_hi));
      EXPECT_GT(lower_of(a), upper_of(Interval(1 - eps))) << head_name(head) << " i=" << i;
    }
    EXPECT_LE(upper_of(target_attention(gaps, head, 300, Interval(b.s_lo))), lower_of(Interval(1 - eps))) << head_name(head);
  }
}

TEST(PositionalHeads, AReturningFrequencyIsNeverCertified) {
  // g = 2 pi / 7 returns exactly at m = 7: 1 - c(7) = 0, that term is e^0 = 1 > t for every s.
  ScopedPrecision p(256);
  const std::vector<Interval> gaps = single_pair_gaps(2 * pi_value<Interval>() / 7, 12);
  const Interval eps = from_decimal<Interval>("0.01");
  const NormBracket diag8 = minimal_norm(gaps, PositionalHead::diagonal, 8, eps, 1e-6);
  EXPECT_FALSE(diag8.certified);
  EXPECT_EQ(diag8.min_gap_offset, 7);
  EXPECT_EQ(diag8.min_gap_lower, 0);
  EXPECT_FALSE(diag8.note.empty());
  const NormBracket prev9 = minimal_norm(gaps, PositionalHead::previous_token, 9, eps, 1e-6);
  EXPECT_FALSE(prev9.certified);
  // Positive controls: before the return reaches row N's offsets (m <= 6) the construction works.
  EXPECT_TRUE(minimal_norm(gaps, PositionalHead::diagonal, 7, eps, 1e-6).certified);
  EXPECT_TRUE(minimal_norm(gaps, PositionalHead::previous_token, 8, eps, 1e-6).certified);
}

TEST(PositionalHeads, GapsContainTheDirectCosineSum) {
  // alignment_gaps (angle addition, sin^2 form) and even_spread_gaps against 1 - sum w cos(m g)
  // evaluated directly in MPFR at 600 bits (whose cancellation costs < 40 of its 600 bits).
  const Spectrum spectrum(256, "10000");
  const long long M = 8191;
  std::vector<Interval> by_weights;
  std::vector<std::vector<Interval>> spread;
  {
    ScopedPrecision p(256);
    by_weights = alignment_gaps(frequencies<Interval>(spectrum), fastest_pairs_weights(spectrum, 16), M);
    spread = even_spread_gaps(spectrum, {1, 16}, M);
  }
  ScopedPrecision p(600);
  const std::vector<Real> g = frequencies<Real>(spectrum);
  for (long long m : {0LL, 1LL, 2LL, 44LL, 710LL, 5000LL, 8191LL}) {
    Real c16(0);
    for (int k = 0; k < 16; ++k) c16 += cos(Real(m * g[k])) / 16;
    const Real ref16 = 1 - c16, ref1 = 1 - cos(Real(m));
    EXPECT_TRUE(contains(by_weights[m], ref16)) << "m=" << m << " ref=" << dec(ref16) << " gap in [" << dec(lower_of(by_weights[m]))
                                                << ", " << dec(upper_of(by_weights[m])) << "]";
    EXPECT_TRUE(contains(spread[1][m], ref16)) << "m=" << m;
    EXPECT_TRUE(contains(spread[0][m], ref1)) << "m=" << m << " ref=" << dec(ref1);
    if (m > 0) {
      EXPECT_LT(upper_of(spread[0][m]) - lower_of(spread[0][m]), Real(1e-60) * ref1) << "m=" << m;
    }
  }
}

TEST(PositionalHeads, WeightsSkipUnrotatedPairs) {
  ScopedPrecision p(256);
  const Spectrum quarter(256, "10000", Variant::p_rope, "0.25");  // pairs 1..32 rotate
  const std::vector<Interval> w = fastest_pairs_weights(quarter, 32);
  for (int k = 0; k < 128; ++k) EXPECT_EQ(lower_of(w[k]) > 0, k < 32) << "k=" << k;
  EXPECT_THROW(fastest_pairs_weights(quarter, 33), std::invalid_argument);
  EXPECT_THROW(fastest_pairs_weights(quarter, 0), std::invalid_argument);
  const Spectrum reversed(8, "10000", Variant::reversed, "0.5");  // pairs 3, 4 rotate; 3 is faster
  const std::vector<Interval> r = fastest_pairs_weights(reversed, 1);
  EXPECT_GT(lower_of(r[2]), 0);
  EXPECT_EQ(Real(upper_of(r[0]) + upper_of(r[1]) + upper_of(r[3])), 0);
  // Norm on p-RoPE's kept pairs builds the heads just as on RoPE's fastest pairs.
  EXPECT_TRUE(minimal_norm(quarter, fastest_pairs_weights(quarter, 16), PositionalHead::previous_token, 500,
                           from_decimal<Interval>("0.01"), 1e-6)
                  .certified);
}

}  // namespace
}  // namespace ropecheck::proofs

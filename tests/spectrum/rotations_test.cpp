#include "spectrum/rotations.h"

#include <gtest/gtest.h>

#include <mpfr.h>

#include <string>

#include "numeric/decimal.h"
#include "numeric/precision.h"
#include "spectrum/config.h"
#include "spectrum/frequencies.h"
#include "tests/support/show.h"

namespace ropecheck {
namespace {

// The predicate at its boundary, on enclosures of the number of turns. A wavelength equal to the
// context is exactly one turn: the pair completes a full rotation, so it is not semantic ("no").
TEST(Rotations, PredicateAtTheOneTurnBoundary) {
  ScopedPrecision p(128);
  EXPECT_EQ(semantic_pair(true, Interval(1)), Decision::no) << "exactly one turn";
  Real below(1);
  mpfr_nextbelow(below.backend().data());
  EXPECT_EQ(semantic_pair(true, Interval(below)), Decision::yes) << "one ulp below one turn: " << below.str(50);
  EXPECT_EQ(semantic_pair(true, Interval(2)), Decision::no);
  EXPECT_EQ(semantic_pair(true, Interval(0.25)), Decision::yes);
  // An enclosure that reaches 1 (or straddles it) cannot decide: undecided, never yes.
  EXPECT_EQ(semantic_pair(true, hull_of(Interval(0.5), Interval(1))), Decision::undecided);
  EXPECT_EQ(semantic_pair(true, hull_of(Interval(below), Interval(2))), Decision::undecided);
  // Pairs that do not rotate are not rotating pairs, whatever their (zero) turns.
  EXPECT_EQ(semantic_pair(false, Interval(0)), Decision::no);
}

TEST(Rotations, RotationsAreGTimesContextOverTwoPi) {
  ScopedPrecision p(256);
  const Spectrum s(256, "10000");
  const std::vector<PairTurns> turns = pair_turns(s, 8192);
  const std::vector<Interval> g = frequencies<Interval>(s);
  ASSERT_EQ(turns.size(), 128u);
  ScopedPrecision hp(600);
  const Real two_pi = 2 * pi_value<Real>(), c(8192);
  for (int k : {0, 99, 100, 118, 127}) {
    const PairTurns& t = turns[static_cast<size_t>(k)];
    EXPECT_EQ(t.pair, k + 1);
    EXPECT_TRUE(t.rotated);
    EXPECT_EQ(lower_of(t.g), lower_of(g[static_cast<size_t>(k)])) << "pair " << k + 1;
    EXPECT_EQ(upper_of(t.g), upper_of(g[static_cast<size_t>(k)])) << "pair " << k + 1;
    // Reference: the exact frequency 1e4^(-2k/256) at 600 bits, times C / (2 pi).
    const Real ref = pow(Real(10000), Real(Real(-2 * k) / 256)) * c / two_pi;
    EXPECT_TRUE(contains(t.rotations, ref)) << "pair " << k + 1 << " rotations " << show(t.rotations) << " ref " << ref.str(80);
    EXPECT_TRUE(contains(rotations_over_context(t.g, 8192), ref)) << "pair " << k + 1;
    EXPECT_EQ(t.semantic, ref < 1 ? Decision::yes : Decision::no) << "pair " << k + 1 << " ref " << ref.str(30);
  }
  // gemma-7b: pairs 101-128 turn less than once over 8192 tokens; pair 119 (the paper's apostrophe
  // channel) turns ~1.68 rad = 0.27 turns there, more than a quarter turn (pi/2 rad) but less than one.
  const SemanticPairs sp = semantic_pairs(turns);
  ASSERT_EQ(sp.pairs.size(), 28u);
  EXPECT_EQ(sp.pairs.front(), 101);
  EXPECT_EQ(sp.pairs.back(), 128);
  EXPECT_TRUE(sp.undecided.empty());
  EXPECT_GT(lower_of(turns[118].rotations), Real(0.25));
  EXPECT_LT(upper_of(turns[118].rotations), Real(0.5));
  EXPECT_THROW(pair_turns(s, -1), std::invalid_argument);
}

TEST(Rotations, RemovedPairsAreNeverSemantic) {
  ScopedPrecision p(128);
  // p-RoPE 0.75 on gemma-7b removes pairs 97-128, which hold every semantic pair of RoPE.
  const std::vector<PairTurns> turns = pair_turns(Spectrum(256, "10000", Variant::p_rope, "0.75"), 8192);
  for (const PairTurns& t : turns) {
    EXPECT_EQ(t.rotated, t.pair <= 96) << "pair " << t.pair;
    if (!t.rotated) {
      EXPECT_EQ(t.semantic, Decision::no) << "pair " << t.pair;
    }
  }
  EXPECT_TRUE(semantic_pairs(turns).pairs.empty());
  EXPECT_TRUE(semantic_pairs(pair_turns(Spectrum(8, "10000", Variant::nope), 1000)).pairs.empty());
}

// A pair whose wavelength is within 1e-44 (relative) of the context: theta = (C / (2 pi))^2 rounded
// up to 46 digits makes pair 2 of a d = 4 head (g = theta^(-1/2)) turn just less than once over C.
// (No spectrum has a wavelength of exactly C tokens: theta^(-e/D) is algebraic, 2 pi / C is not.)
// At 53 bits the enclosure of the turns contains 1: undecided, counted neither way; at 256 bits it
// is decided, yes. Rounded down instead, the pair turns just more than once: no at 256 bits.
TEST(Rotations, AWavelengthWithinRoundingOfTheContextIsUndecidedAtLowPrecision) {
  const long long C = 8192;
  std::string theta_up, theta_down;
  {
    ScopedPrecision p(600);
    const Real two_pi = 2 * pi_value<Real>();
    const Real exact = pow(Real(C) / two_pi, 2);
    theta_up = to_decimal(exact, 46, Rounding::up);
    theta_down = to_decimal(exact, 46, Rounding::down);
  }
  for (const auto& [theta, high] : {std::pair{theta_up, Decision::yes}, std::pair{theta_down, Decision::no}}) {
    const Spectrum s(4, theta);
    {
      ScopedPrecision p(53);
      const std::vector<PairTurns> t = pair_turns(s, C);
      EXPECT_EQ(t[1].semantic, Decision::undecided) << "theta " << theta << " turns " << show(t[1].rotations);
      const SemanticPairs sp = semantic_pairs(t);
      EXPECT_TRUE(sp.pairs.empty()) << "theta " << theta;
      EXPECT_EQ(sp.undecided, std::vector<int>{2}) << "theta " << theta;
    }
    ScopedPrecision p(256);
    const std::vector<PairTurns> t = pair_turns(s, C);
    EXPECT_EQ(t[1].semantic, high) << "theta " << theta << " turns " << show(t[1].rotations);
    EXPECT_EQ(t[0].semantic, Decision::no) << "g = 1 turns 1303.8 times";
  }
}

}  // namespace
}  // namespace ropecheck

// File: rotations.h
// How far each pair of a spectrum turns over a context of C tokens, and the one definition of a
// semantic pair, shared by `ropecheck spectrum` (spectrum/table.h) and `ropecheck report` (its
// spectrum section).
//
//   rotations_k = g_k * (C / (2 pi))   full turns of pair k over the context, an MPFI enclosure at
//                                      the current precision, always in this operation order
//                                      (C / (2 pi) first, then the product) so every caller gets
//                                      the same bits.
//
// Semantic pair: a rotating pair (g_k != 0) that turns less than one full rotation over the
// context, rotations_k < 1, i.e. wavelength 2 pi / g_k > C. Decided on the enclosure of rotations_k:
//   yes        the enclosure is certainly below 1;
//   no         it is certainly >= 1 (a pair whose wavelength equals the context completes a full
//              turn: no), or the pair does not rotate (g = 0: p-RoPE's removed pairs, NoPE; those
//              are position-free by construction, not rotating pairs);
//   undecided  the enclosure contains 1: not counted either way (more precision decides it).
// Why one full turn and not a quarter turn (the quarter-turn horizon stays a column of the table):
// the paper's own semantic channel, gemma-7b's pair 119 at its 8192 context (Appendix E.1), turns
// ~1.68 rad there, more than a quarter turn but less than one; and the paper's Llama 3 argument
// counts full rotations (theta 1e4 "will complete about 2.04 rotations" at 128k).
#pragma once

#include <vector>

#include "numeric/decision.h"
#include "numeric/scalar.h"
#include "spectrum/spectrum.h"

namespace ropecheck {

// The definition above in one line, as `ropecheck spectrum --json` prints it.
inline constexpr const char* kSemanticPairDefinition =
    "rotating pairs that turn less than one full rotation over the context (wavelength 2 pi / g > context), "
    "decided in interval arithmetic; a pair the enclosure cannot decide is undecided and not counted";

// Returns: an enclosure of g * (context / (2 pi)) at the current precision.
// Throws std::invalid_argument when context < 0.
Interval rotations_over_context(const Interval& g, long long context);

// Returns: the semantic-pair predicate above for a pair that rotates (`rotated`) with `rotations`
// full turns over the context.
Decision semantic_pair(bool rotated, const Interval& rotations);

// One pair of a spectrum over a context.
struct PairTurns {
  int pair = 0;          // 1-based, 1 = fastest (the paper's numbering: "pair 119" is index 118)
  bool rotated = false;  // Spectrum::rotated
  Interval g;            // frequencies<Interval>(spectrum)[pair - 1]
  Interval rotations;    // rotations_over_context(g, context)
  Decision semantic = Decision::no;
};

// Returns: one entry per pair of `s`, in pair order, at the current precision. Deterministic.
// Throws std::invalid_argument when context < 0.
std::vector<PairTurns> pair_turns(const Spectrum& s, long long context);

// The semantic pairs of a spectrum over a context (1-based pair numbers, increasing).
struct SemanticPairs {
  std::vector<int> pairs;      // predicate yes: the count is pairs.size()
  std::vector<int> undecided;  // predicate undecided: counted neither way
};
SemanticPairs semantic_pairs(const std::vector<PairTurns>& turns);

}  // namespace ropecheck

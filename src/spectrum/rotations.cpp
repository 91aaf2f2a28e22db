#include "spectrum/rotations.h"

#include <stdexcept>

#include "spectrum/frequencies.h"

namespace ropecheck {
namespace {

// C / (2 pi): the factor every pair's rotations share (computed once per spectrum).
Interval turns_per_radian(long long context) {
  if (context < 0) throw std::invalid_argument("rotations over a context: context must be >= 0");
  return Interval(Interval(context) / Interval(2 * pi_value<Interval>()));
}

}  // namespace

Interval rotations_over_context(const Interval& g, long long context) { return Interval(g * turns_per_radian(context)); }

Decision semantic_pair(bool rotated, const Interval& rotations) {
  if (!rotated) return Decision::no;
  return decide_less(rotations, Interval(1));
}

std::vector<PairTurns> pair_turns(const Spectrum& s, long long context) {
  const Interval per_radian = turns_per_radian(context);
  const std::vector<Interval> g = frequencies<Interval>(s);
  std::vector<PairTurns> out;
  out.reserve(g.size());
  for (int k = 0; k < s.pairs(); ++k) {
    PairTurns t;
    t.pair = k + 1;
    t.rotated = s.rotated(k);
    t.g = g[static_cast<size_t>(k)];
    t.rotations = Interval(t.g * per_radian);
    t.semantic = semantic_pair(t.rotated, t.rotations);
    out.push_back(t);
  }
  return out;
}

SemanticPairs semantic_pairs(const std::vector<PairTurns>& turns) {
  SemanticPairs out;
  for (const PairTurns& t : turns) {
    if (t.semantic == Decision::yes) out.pairs.push_back(t.pair);
    else if (t.semantic == Decision::undecided) out.undecided.push_back(t.pair);
  }
  return out;
}

}  // namespace ropecheck

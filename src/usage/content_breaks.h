// File: content_breaks.h
// Theorem 6.1 on a capture's content heads: for a row whose winning key lies far back and holds
// most of the row's attention (a STRONG content match: head_attention.h's ContentMatch, at least
// content_distance back with weight >= strong_match), the certified shortest distance at which
// moving that key (its vector fixed, only its position changed) lets the row's runner-up win
// (adversarial/moved_key.h, interval arithmetic): "found" at a distance, "none" up to the limit,
// or "undecided". Only heads of a content kind (head_kind.h: induction, other) are asked; every
// kept row of such a head is certified, so a head gives a distribution, not one number.
// The certificates are statements about the captured vectors; everything else is a measurement.
// Separated by mechanism (issue 54): the same certificate with only the slow quarter rotating (every
// other pair held still: the theorem's slow semantic channel drifting alone) and with the slow
// quarter held still (p-RoPE 0.75's change: only the faster pairs move the winner). A held-still
// pair adds its unrotated dot product at every distance, as a pass-through channel does.
// The theorem's own notion (issue 54), a CHANNEL: the key holds more than 1 - epsilon of its row.
// With the row's other keys fixed, that is z_key(t) - z_runner > rho + log((1 - epsilon) / epsilon)
// (z = scale * score; rho: head_attention.h's ContentMatch::others, the other keys' log weight over
// the runner-up's), the moved-key certificate with margin m = (rho + log((1-eps)/eps)) / scale,
// known within (others_error + 4u (|rho| + |log((1-eps)/eps)|)) / scale + 2u |m| (times 1.01). So the
// channel certificate is certified given the measured rho and its bound: "found" at the shortest
// distance where the key's share certainly falls to 1 - epsilon or below, "none" when it certainly
// stays above up to the limit, "not-held" when it is not above 1 - epsilon where the key is (found at
// its own distance), "undecided" otherwise. Not computed under a softcap (the threshold is then not
// a constant margin over the runner-up's score) or when the runner-up's weight underflows.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "usage/head_attention.h"
#include "usage/layer_pairs.h"

namespace ropecheck::usage {

// A kept match with the vectors the certificate needs (head_dim each, pre-rotation, as captured)
// and the three tokens' positions.
struct MatchVectors {
  ContentMatch match;
  std::vector<double> query, key, runner;
  long long query_position = 0, key_position = 0, runner_position = 0;
};

// Which pairs rotate as the key moves.
enum class BreakMechanism { all_pairs, slow_only, slow_still };
inline constexpr BreakMechanism kBreakMechanisms[] = {BreakMechanism::all_pairs, BreakMechanism::slow_only, BreakMechanism::slow_still};
const char* break_mechanism_name(BreakMechanism m);  // "all-pairs", "slow-only", "slow-still"

// One mechanism's certificate of a match.
struct MechanismBreak {
  std::string outcome;     // found, none, undecided (the channel: also not-held)
  long long distance = 0;  // found: the shortest losing distance; undecided: where
  long long limit = 0;
};

struct ContentBreak {
  long long sequence = 0, query = 0, key = 0, runner = 0;  // token indices
  long long key_distance = 0, runner_distance = 0;         // position differences to the query
  double weight = 0;                                       // the key's attention in that row
  std::string outcome;                                     // adversarial/moved_key.h: found, none, undecided
  long long distance = 0;                                  // found: the shortest losing distance; undecided: where
  long long limit = 0;                                     // the distances searched: [0, limit]
  long long span = 0;                                      // the layer type's context (or window)
  std::string method;
  std::optional<MechanismBreak> slow_only, slow_still;  // with `mechanisms`
  std::optional<MechanismBreak> channel;                // with a ChannelRule: the 1 - epsilon channel, every pair rotating
};

// The channel certificate's settings: epsilon in (0, 1), the model's score scale (> 0), and whether
// the model softcaps its logits (then no channel certificate is made).
struct ChannelRule {
  double epsilon = 0.5;
  double scale = 1;
  bool softcap = false;
};

// Precondition: pairs.plan (a RoPE layer). `mechanisms`: also certify slow_only and slow_still
// (a layer with fewer than 4 rotating pairs has no slow quarter: they stay empty). `channel`: also
// the 1 - epsilon channel certificate (empty under a softcap).
ContentBreak certify_content_break(const LayerPairs& pairs, const MatchVectors& match, long long span, long long break_limit,
                                   bool mechanisms = false, const std::optional<ChannelRule>& channel = std::nullopt);

// Breaking distances over every certified row of every head: quantiles of the distance with "none"
// rows counted as beyond their limit (censored: a quantile that falls among them is reported as
// none, i.e. > limit); undecided rows are left out and counted.
struct BreakDistribution {
  long long rows = 0, heads = 0;        // rows certified, heads they come from
  long long found = 0, none = 0, undecided = 0, found_within_span = 0;
  long long not_held = 0;               // the channel: rows whose key is not above 1 - epsilon where it is (not in rows)
  long long limit = 0;                  // the largest limit searched
  struct Quantile {
    double level = 0;
    std::optional<long long> distance;  // none: beyond the limit searched
  };
  std::vector<Quantile> quantiles;      // levels 0.1, 0.25, 0.5, 0.75, 0.9 (lower empirical quantile)
};

// The distribution of one mechanism's certificates (all_pairs: the ContentBreak's own outcome).
BreakDistribution break_distribution(const std::vector<std::vector<ContentBreak>>& per_head,
                                     BreakMechanism mechanism = BreakMechanism::all_pairs);
// The same of the channel certificates (rows without one are left out; not-held rows counted apart).
BreakDistribution channel_break_distribution(const std::vector<std::vector<ContentBreak>>& per_head);

}  // namespace ropecheck::usage

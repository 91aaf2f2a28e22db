#include "usage/content_breaks.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "adversarial/moved_key.h"

namespace ropecheck::usage {

const char* break_mechanism_name(BreakMechanism m) {
  switch (m) {
    case BreakMechanism::all_pairs: return "all-pairs";
    case BreakMechanism::slow_only: return "slow-only";
    case BreakMechanism::slow_still: return "slow-still";
  }
  return "?";
}

namespace {

// The moved-key problem of a match: the rotary part per plan block (the query as RN(a^2 q)), the
// pass-through channels and every block pair the mechanism holds still moved to the pass part (a
// zero rotary chunk adds nothing at any distance).
adversarial::MovedKey moved_key_of(const LayerPairs& lp, const MatchVectors& s, BreakMechanism mech, long long key_distance,
                                   long long runner_distance) {
  adversarial::MovedKey mk;
  mk.spectrum = lp.plan->spectrum();
  const int blocks = lp.plan->block_pairs();
  mk.query.assign(static_cast<size_t>(2 * blocks), 0.0);
  mk.key = mk.runner = mk.query;
  const double a2 = lp.attention_factor * lp.attention_factor;  // RN(a^2) q: the head certified is these numbers
  for (const HeadPair& p : lp.pairs) {
    const bool held = p.block >= 0 && ((mech == BreakMechanism::slow_only && p.band != Band::slow) ||
                                       (mech == BreakMechanism::slow_still && p.band == Band::slow));
    if (p.block < 0 || held) {
      // A held block pair's product is a^2 <q, k> unrotated: the pass part with RN(a^2 q).
      const double scale = p.block < 0 ? 1.0 : a2;
      for (int c : {p.first, p.second}) {
        mk.query_pass.push_back(scale * s.query[static_cast<size_t>(c)]);
        mk.key_pass.push_back(s.key[static_cast<size_t>(c)]);
        mk.runner_pass.push_back(s.runner[static_cast<size_t>(c)]);
      }
      continue;
    }
    const size_t i = static_cast<size_t>(2 * p.block);
    mk.query[i] = a2 * s.query[static_cast<size_t>(p.first)];
    mk.query[i + 1] = a2 * s.query[static_cast<size_t>(p.second)];
    mk.key[i] = s.key[static_cast<size_t>(p.first)];
    mk.key[i + 1] = s.key[static_cast<size_t>(p.second)];
    mk.runner[i] = s.runner[static_cast<size_t>(p.first)];
    mk.runner[i + 1] = s.runner[static_cast<size_t>(p.second)];
  }
  mk.runner_distance = runner_distance;
  mk.from_distance = key_distance;
  return mk;
}

}  // namespace

ContentBreak certify_content_break(const LayerPairs& lp, const MatchVectors& s, long long span, long long break_limit, bool mechanisms,
                                   const std::optional<ChannelRule>& channel) {
  const ContentMatch& m = s.match;
  ContentBreak b;
  b.sequence = m.sequence;
  b.query = m.query;
  b.key = m.key;
  b.runner = m.runner;
  b.key_distance = s.query_position - s.key_position;
  b.runner_distance = s.query_position - s.runner_position;
  b.weight = m.weight;
  b.span = span;
  const adversarial::MovedKey mk = moved_key_of(lp, s, BreakMechanism::all_pairs, b.key_distance, b.runner_distance);
  const adversarial::MovedKeyBreak r = adversarial::certify_moved_key_break(mk, std::max(break_limit, b.key_distance));
  b.outcome = adversarial::outcome_name(r.outcome);
  b.distance = r.distance;
  b.limit = r.max_distance;
  b.method = r.method;
  if (channel && !channel->softcap) {
    constexpr double u = 0x1p-53;
    MechanismBreak c{"undecided", b.key_distance, std::max(break_limit, b.key_distance)};
    const double rho = m.others, log_ratio = std::log((1 - channel->epsilon) / channel->epsilon);
    if (std::isfinite(rho) && std::isfinite(m.others_error)) {
      adversarial::MovedKey ck = moved_key_of(lp, s, BreakMechanism::all_pairs, b.key_distance, b.runner_distance);
      const double margin = (rho + log_ratio) / channel->scale;
      const double half = 1.01 * ((m.others_error + 4 * u * (std::fabs(rho) + std::fabs(log_ratio))) / channel->scale + 2 * u * std::fabs(margin));
      ck.margin_low = margin - half;
      ck.margin_high = margin + half;
      const adversarial::MovedKeyBreak x = adversarial::certify_moved_key_break(ck, c.limit);
      c.outcome = adversarial::outcome_name(x.outcome);
      c.distance = x.distance;
      c.limit = x.max_distance;
      if (x.outcome == adversarial::MovedKeyBreak::Outcome::found && x.distance == b.key_distance) c.outcome = "not-held";
    }
    b.channel = c;
  }
  if (mechanisms && lp.quarter > 0)
    for (BreakMechanism mech : {BreakMechanism::slow_only, BreakMechanism::slow_still}) {
      const adversarial::MovedKeyBreak x =
          adversarial::certify_moved_key_break(moved_key_of(lp, s, mech, b.key_distance, b.runner_distance), std::max(break_limit, b.key_distance));
      (mech == BreakMechanism::slow_only ? b.slow_only : b.slow_still) = MechanismBreak{adversarial::outcome_name(x.outcome), x.distance, x.max_distance};
    }
  return b;
}

namespace {

// `pick` gives a row's certificate of the kind asked (empty: the row has none).
template <class Pick>
BreakDistribution distribution_of(const std::vector<std::vector<ContentBreak>>& per_head, Pick pick) {
  BreakDistribution d;
  std::vector<long long> values;  // found distances; none as the largest long long (censored)
  constexpr long long kBeyond = std::numeric_limits<long long>::max();
  for (const std::vector<ContentBreak>& head : per_head) {
    bool any = false;
    for (const ContentBreak& cb : head) {
      const std::optional<MechanismBreak> x = pick(cb);
      if (!x) continue;
      const MechanismBreak& b = *x;
      if (b.outcome == "not-held") {
        d.not_held += 1;
        continue;
      }
      any = true;
      d.rows += 1;
      d.limit = std::max(d.limit, b.limit);
      if (b.outcome == "found") {
        d.found += 1;
        if (b.distance <= cb.span) d.found_within_span += 1;
        values.push_back(b.distance);
      } else if (b.outcome == "none") {
        d.none += 1;
        values.push_back(kBeyond);
      } else {
        d.undecided += 1;
      }
    }
    d.heads += any;
  }
  std::sort(values.begin(), values.end());
  for (double level : {0.1, 0.25, 0.5, 0.75, 0.9}) {
    BreakDistribution::Quantile q{level, std::nullopt};
    if (!values.empty()) {
      // Lower empirical quantile: the k-th smallest, k = ceil(level n) (1-based).
      const size_t k = static_cast<size_t>(std::max(1.0, std::ceil(level * static_cast<double>(values.size()))));
      const long long v = values[k - 1];
      if (v != kBeyond) q.distance = v;
    }
    d.quantiles.push_back(q);
  }
  return d;
}

}  // namespace

BreakDistribution break_distribution(const std::vector<std::vector<ContentBreak>>& per_head, BreakMechanism mech) {
  return distribution_of(per_head, [mech](const ContentBreak& cb) -> std::optional<MechanismBreak> {
    switch (mech) {
      case BreakMechanism::all_pairs: return MechanismBreak{cb.outcome, cb.distance, cb.limit};
      case BreakMechanism::slow_only: return cb.slow_only;
      case BreakMechanism::slow_still: return cb.slow_still;
    }
    return std::nullopt;
  });
}

BreakDistribution channel_break_distribution(const std::vector<std::vector<ContentBreak>>& per_head) {
  return distribution_of(per_head, [](const ContentBreak& cb) { return cb.channel; });
}

}  // namespace ropecheck::usage

#include "usage/positional_ranking.h"

#include <cstdio>
#include <map>

#include "statistics/rank_sum.h"

namespace ropecheck::usage {

PositionalRanking rank_across_heads(const std::vector<RankedHead>& heads) {
  std::vector<double> positional, others;
  for (const RankedHead& h : heads) (h.positional ? positional : others).push_back(h.share);
  PositionalRanking r;
  r.ranked = static_cast<int>(heads.size());
  r.positional = static_cast<int>(positional.size());
  if (!positional.empty() && !others.empty()) {
    const RankSumTest t = rank_sum_test(positional, others);
    r.auc = t.auc;
    r.p_value = t.p_value;
    r.p_method = t.method;
    char line[320];
    std::snprintf(line, sizeof line,
                  "measured on %d heads (%d positional), layers pooled: AUC %.3f that a positional head has the larger fast-quarter share, "
                  "one-sided p = %.3g (%s)",
                  r.ranked, r.positional, t.auc, t.p_value, t.method.c_str());
    r.statement = line;
  } else {
    r.statement = "measured on " + std::to_string(r.ranked) + " heads: " +
                  (positional.empty() ? "no positional head (diagonal, previous-token or offset) found" : "every ranked head is positional") +
                  "; no AUC";
  }
  return r;
}

WithinLayerRanking rank_within_layers(const std::vector<RankedHead>& heads) {
  std::map<int, std::pair<std::vector<const RankedHead*>, std::vector<const RankedHead*>>> by_layer;
  for (const RankedHead& h : heads) (h.positional ? by_layer[h.layer].first : by_layer[h.layer].second).push_back(&h);
  WithinLayerRanking w;
  std::vector<std::vector<double>> groups, rests;
  for (const auto& [layer, split] : by_layer) {
    if (split.first.empty() || split.second.empty()) continue;
    LayerRanking lr;
    lr.layer = layer;
    std::vector<double> g, o;
    for (const RankedHead* h : split.first) {
      lr.positional.push_back(h->head);
      g.push_back(h->share);
    }
    for (const RankedHead* h : split.second) {
      lr.others.push_back(h->head);
      o.push_back(h->share);
    }
    const RankSumTest t = rank_sum_test(g, o);
    lr.auc = t.auc;
    lr.p_value = t.p_value;
    lr.p_method = t.method;
    w.pairs += static_cast<long long>(g.size() * o.size());
    w.layers.push_back(lr);
    groups.push_back(std::move(g));
    rests.push_back(std::move(o));
  }
  if (w.layers.empty()) {
    w.statement = "no layer has both a positional head and another head; no within-layer test";
    return w;
  }
  std::vector<Stratum> strata;
  for (size_t i = 0; i < groups.size(); ++i) strata.push_back({groups[i], rests[i]});
  const RankSumTest t = stratified_rank_sum_test(strata);
  w.auc = t.auc;
  w.p_value = t.p_value;
  w.p_method = t.method;
  char line[320];
  std::snprintf(line, sizeof line,
                "within %zu layers that have both kinds: AUC %.3f over %lld (positional, other) pairs of one layer, stratified one-sided p = %.3g (%s)",
                w.layers.size(), t.auc, w.pairs, t.p_value, t.method.c_str());
  w.statement = line;
  return w;
}

}  // namespace ropecheck::usage

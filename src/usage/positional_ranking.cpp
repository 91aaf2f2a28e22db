#include "usage/positional_ranking.h"

#include <cstdio>
#include <algorithm>
#include <map>
#include <string>

#include "statistics/rank_sum.h"

namespace ropecheck::usage {

PositionalRanking rank_across_heads(const std::vector<RankedHead>& heads, const RankingWords& words) {
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
    char line[480];
    std::snprintf(line, sizeof line, "measured on %d heads (%d %s), layers pooled: AUC %.3f that a %s head has the larger %s, one-sided p = %.3g (%s)",
                  r.ranked, r.positional, words.label.c_str(), t.auc, words.label.c_str(), words.score.c_str(), t.p_value, t.method.c_str());
    r.statement = line;
  } else {
    r.statement = "measured on " + std::to_string(r.ranked) + " heads: " +
                  (positional.empty() ? "no " + words.label + " head found" : "every ranked head is " + words.label) +
                  "; no AUC";
  }
  return r;
}

namespace {

WithinLayerRanking rank_within(const std::vector<RankedHead>& heads, const RankingWords& words, bool by_kv) {
  std::map<std::pair<int, int>, std::pair<std::vector<const RankedHead*>, std::vector<const RankedHead*>>> by_stratum;
  for (const RankedHead& h : heads) {
    auto& split = by_stratum[{h.layer, by_kv ? h.kv_head : -1}];
    (h.positional ? split.first : split.second).push_back(&h);
  }
  const char* stratum = by_kv ? "kv groups" : "layers";
  WithinLayerRanking w;
  std::vector<std::vector<double>> groups, rests;
  for (const auto& [key, split] : by_stratum) {
    if (split.first.empty() || split.second.empty()) continue;
    LayerRanking lr;
    lr.layer = key.first;
    lr.kv_head = key.second;
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
    w.statement = std::string("no ") + (by_kv ? "kv group" : "layer") + " has both a " + words.label + " head and another head; no test within " +
                  stratum;
    return w;
  }
  std::vector<Stratum> strata;
  for (size_t i = 0; i < groups.size(); ++i) strata.push_back({groups[i], rests[i]});
  const RankSumTest t = stratified_rank_sum_test(strata);
  w.auc = t.auc;
  w.p_value = t.p_value;
  w.p_method = t.method;
  char line[480];
  std::snprintf(line, sizeof line, "within %zu %s that have both: AUC %.3f by %s over %lld (%s, other) pairs of one stratum, stratified one-sided p = %.3g (%s)",
                w.layers.size(), stratum, t.auc, words.score.c_str(), w.pairs, words.label.c_str(), t.p_value, t.method.c_str());
  w.statement = line;
  return w;
}

}  // namespace

WithinLayerRanking rank_within_layers(const std::vector<RankedHead>& heads, const RankingWords& words) { return rank_within(heads, words, false); }

WithinLayerRanking rank_within_kv_groups(const std::vector<RankedHead>& heads, const RankingWords& words) { return rank_within(heads, words, true); }

CutQuality misclassified_at(const std::vector<RankedHead>& heads, double cut) {
  CutQuality q{cut, 0, static_cast<long long>(heads.size())};
  for (const RankedHead& h : heads) q.misclassified += h.positional != (h.share >= cut);
  return q;
}

CutQuality best_cut(const std::vector<RankedHead>& heads) {
  // Candidate cuts: every score, and one above the largest (nothing labelled); ties to the lower cut.
  std::vector<double> cuts;
  for (const RankedHead& h : heads) cuts.push_back(h.share);
  std::sort(cuts.begin(), cuts.end());
  if (cuts.empty()) return {0, 0, 0};
  CutQuality best = misclassified_at(heads, cuts.back() + 1);
  for (double c : cuts) {
    const CutQuality q = misclassified_at(heads, c);
    if (q.misclassified < best.misclassified) best = q;
  }
  return best;
}

}  // namespace ropecheck::usage

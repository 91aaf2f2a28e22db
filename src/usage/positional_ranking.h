// File: positional_ranking.h
// The paper's Section 5 on a capture: do the positional heads (head_kind.h: diagonal,
// previous-token, offset) have the largest share of their query and key norm on the fastest
// quarter of pairs? Two tests (statistics/rank_sum.h), both MEASUREMENTS on the capture:
//   across heads   every head with a share ranked together (layers pooled): AUC and one-sided p.
//                  Confounded by layer when layers differ in their shares (a toy's layer 0 heads all
//                  hold 0.45-0.50 on the fast quarter, its layer 1 heads 0.14).
//   within layers  each layer with both positional and other heads alone (AUC, exact p), and the
//                  stratified test with layer as the stratum (labels permuted within layers only),
//                  which is what answers the question free of the layer effect.
// p-values are one-sided and not corrected across layers (the stratified one is the single test).
// The same tests rank any per-head score against any label (issue 54: the attention change under
// removal of the fast quarter against the positional-component test), and within kv groups
// (layer, kv head): heads that read the same keys, so only their queries differ.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ropecheck::usage {

struct RankedHead {
  int layer = 0, head = 0;
  double share = 0;         // the score ranked: fast-quarter share of q + k norm unless said otherwise
  bool positional = false;  // the label
  int kv_head = 0;          // its kv head (rank_within_kv_groups' stratum with the layer)
};

// What is ranked, for the statements: the score's name and the label's (e.g. "fast-quarter share",
// "positional").
struct RankingWords {
  std::string score = "fast-quarter share";
  std::string label = "positional";
};

struct PositionalRanking {
  int ranked = 0, positional = 0;  // heads with a share; positional ones among them
  std::optional<double> auc;       // P(a positional head's share > another head's), ties 1/2
  std::optional<double> p_value;   // one-sided, rank-sum
  std::string p_method;
  std::string statement;           // one line: the measured claim with its numbers
};

struct LayerRanking {
  int layer = 0;
  int kv_head = -1;                     // rank_within_kv_groups: the group's kv head
  std::vector<int> positional, others;  // head indices
  double auc = 0, p_value = 1;          // this layer alone, one-sided
  std::string p_method;
};

struct WithinLayerRanking {
  std::vector<LayerRanking> layers;  // layers with at least one positional and one other head
  long long pairs = 0;               // (positional, other) pairs compared within a layer
  std::optional<double> auc, p_value;  // stratified by layer
  std::string p_method;
  std::string statement;
};

PositionalRanking rank_across_heads(const std::vector<RankedHead>& heads, const RankingWords& words = {});
WithinLayerRanking rank_within_layers(const std::vector<RankedHead>& heads, const RankingWords& words = {});
// The stratified test with (layer, kv head) as the stratum.
WithinLayerRanking rank_within_kv_groups(const std::vector<RankedHead>& heads, const RankingWords& words = {});

// How well the score separates the label at a cut: heads labelled but below it plus heads not
// labelled at or above it. `best` picks the cut that misclassifies the fewest (in-sample, so
// optimistic: say so).
struct CutQuality {
  double cut = 0;
  long long misclassified = 0, heads = 0;
};
CutQuality misclassified_at(const std::vector<RankedHead>& heads, double cut);
CutQuality best_cut(const std::vector<RankedHead>& heads);

}  // namespace ropecheck::usage

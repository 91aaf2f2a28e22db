// File: usage_compare.h
// Two captures side by side (the paper's Fig. 19: the same usage pattern across domains; also two
// lengths or two models of one architecture): how alike is their per-pair usage? Each capture's
// usage at (layer l, pair p) is the share u[l][p] = (q_norm + k_norm)[l][p] / sum_p' (q_norm +
// k_norm)[l][p'] (usage.h's layer means; a share, so a capture's overall scale does not count).
//   correlation  Pearson's r over every (layer, pair) point of the two captures' shares: 1 when
//                the patterns coincide; the ONE number
//   per_layer    r within each layer (over its pairs): where they differ
//   max_difference  the largest |u_a - u_b|
//   kinds_agree  the fraction of heads of the same kind (head_kind.h), when both have heads
// A measurement on the two captures (no interval: the captures are the whole sample; their sizes
// are in the statement).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "usage/head_kind.h"
#include "usage/usage.h"

namespace ropecheck::usage {

struct LayerNorms {
  std::vector<double> q_norm, k_norm;  // per pair
  std::vector<HeadKind> kinds;         // per head (head_kind.h); empty when not classified
};

struct UsageSimilarity {
  double correlation = 0;
  std::vector<double> per_layer;       // NaN for a layer whose shares are constant in a capture
  double max_difference = 0;
  long long points = 0;                // layers x pairs compared
  std::optional<double> kinds_agree;
  std::string statement;
};

// kinds_agree is set when every layer of both has kinds and their head counts agree. Throws
// InputError("b", ...) when the layers or their pair counts differ.
UsageSimilarity compare_usage(const std::vector<LayerNorms>& a, const std::vector<LayerNorms>& b);
// The same on two results, the statement naming both captures.
UsageSimilarity compare_usage(const UsageResult& a, const UsageResult& b);

// Returns: the share u[l][p] of each layer (as above).
std::vector<std::vector<double>> usage_shares(const std::vector<LayerNorms>& layers);

}  // namespace ropecheck::usage

// File: pair_attribution.h
// Which pairs carry a head's logit (the paper's Appendix E): per pair p of the layer (layer_pairs.h
// order), the contribution c_p(i, j) = <R_i q_p(i), R_j k_p(j)> (rotary pairs with the attention
// factor, a^2 on the product, as the scores use it; a pass-through pair unrotated) beside its
// Cauchy-Schwarz bound |q_p(i)| |k_p(j)| (a^2 likewise), summed over rows:
//   offsets     j = i - delta for delta = 0 .. max_offset (rows where that key is visible): at a
//               diagonal head the paper finds q close to k (c_p near its bound on the pairs it
//               uses), at a previous-token head q close to R k;
//   first token j = 0, and the mean of c_p over the row's keys, on the rows that see the first
//               token: their difference is the pair's ADVANTAGE for the first token, what makes a
//               sink (the paper: Gemma's BOS logit carried by one slow pair);
//   constancy   per pair, |sum_t q_p(t)| / sum_t |q_p(t)| over tokens (unrotated): 1 when the
//               query's chunk is the same vector at every token.
// Rows are query tokens i >= 1, as head_attention.h's. Sums in row, then sequence order
// (deterministic for any thread count). Binary64; a MEASUREMENT on the capture.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernel/sincos_table.h"
#include "usage/layer_pairs.h"

namespace ropecheck::usage {

struct PairAttribution {
  std::vector<long long> offset_rows;                     // [delta]
  std::vector<std::vector<double>> offset_logit, offset_bound;  // [delta][pair]: sums over rows
  long long first_rows = 0;
  std::vector<double> first_logit, first_bound, mean_logit;     // [pair]: sums over the rows that see key 0
  long long tokens = 0;
  std::vector<double> q_sum_a, q_sum_b, q_norm;                 // [pair]: sums over tokens (unrotated)

  void add(const PairAttribution& o);  // sizes must agree (or this one empty)
};

// One head's attribution as means (per pair, layer_pairs.h order).
struct HeadAttribution {
  std::optional<int> offset;                       // the offset attributed (none: no positional offset)
  std::vector<double> offset_logit, offset_bound;  // mean c_p and mean bound at that offset
  std::vector<double> first_logit, first_advantage;  // mean c_p at the first token; minus its mean over the row's keys
  std::vector<double> q_constancy;                 // |sum q_p| / sum |q_p|
};
HeadAttribution head_attribution(const PairAttribution& sums, std::optional<int> offset);

// Appendix E over a model's heads: where the positional heads' logit at their offset sits (the pair
// with the largest mean contribution: its band, and its alignment c / bound, 1 when q = R k exactly)
// and where the sinks' first-token advantage sits (the pair with the largest advantage: its band,
// its share of the head's positive advantage, its query constancy).
struct AppendixE {
  long long positional_heads = 0;                      // heads with an attributed offset
  std::vector<std::pair<std::string, long long>> positional_top_band;  // band of the top pair: heads
  double positional_alignment_median = 0;              // median over those heads of the top pair's c / bound
  long long sink_heads = 0;                            // heads of kind first-token
  std::vector<std::pair<std::string, long long>> sink_top_band;
  double sink_top_share_median = 0;                    // median share of the top pair in the positive advantage
  double sink_constancy_median = 0;                    // median query constancy of the top pair
  std::string statement;
};

struct AttributedHead {
  const HeadAttribution* attribution = nullptr;
  const LayerPairs* pairs = nullptr;
  bool sink = false;  // a first-token head
};
AppendixE appendix_e(const std::vector<AttributedHead>& heads);

// Adds one sequence of one head: x_q, x_k its query head and kv head (tokens x head_dim, as
// captured, binary64); table: the layer type's sin/cos at the sequence's positions (null without RoPE).
void accumulate_pair_attribution(const LayerPairs& pairs, const kernel::SinCosTable* table, const double* x_q, const double* x_k,
                                 long long tokens, int head_dim, std::optional<long long> window, int max_offset, PairAttribution& into);

}  // namespace ropecheck::usage

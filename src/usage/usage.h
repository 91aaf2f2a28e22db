// File: usage.h
// How a trained model uses its RoPE, measured on a capture of its pre-rotation queries and keys
// (capture.h), the paper's Sections 4-5 (Figs. 3-7, 10, 11) and Theorem 6.1 applied to the heads
// found. Every number is a MEASUREMENT on the capture, with its sample size; only the breaking
// distances are certificates, and they certify a statement about the captured vectors.
//
//  frequency usage  per layer and pair, the mean 2-norm of the query and key chunks over sequences,
//                   tokens and heads (kv heads for keys); the same per head. Rotation keeps a chunk's
//                   norm, so pre- and post-rotation agree (up to the attention factor).
//  head behaviour   per head, over query tokens i >= 1: mean attention on j = i (diagonal), j = i - 1
//                   (previous token), j = 0 (first token); kind = the one whose mean is >= 0.5
//                   (kKindThreshold), else `other` (head_attention.h: the attention computed).
//  Section 5        each head's share of query and key norm on its fastest quarter of rotating pairs
//                   (layer_pairs.h); do the positional heads (diagonal, previous-token) rank highest?
//                   AUC with a one-sided rank-sum p-value (statistics/rank_sum.h), each one's rank.
//  ablations        slow quarter position-free (p-RoPE 0.75) and fast quarter removed: mean
//                   total-variation distance of attention rows to the model's, top-1 agreement.
//  Theorem 6.1      for each `other` head, its strongest content match (head_attention.h) and the
//                   certified shortest distance at which moving that key lets the row's runner-up
//                   win (adversarial/moved_key.h), or "none up to break_limit"; beside the span.
//
// GQA follows transformers' repeat_kv: query head h reads kv head h / (heads / kv_heads). Peak
// memory: one (sequence, layer) block of the capture as stored, plus per thread one head in
// binary64, its rotation, one packed kv head and four 128 x tokens blocks of scores.
// Deterministic: the same bytes for every thread count (per-head sums in token and sequence
// order, combined in head order).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "spectrum/model.h"
#include "usage/capture.h"
#include "usage/head_attention.h"

namespace ropecheck::usage {

inline constexpr double kKindThreshold = 0.5;

struct UsageOptions {
  int threads = 1;                      // 1..cpu/thread_count.h's kMaxThreads
  long long content_distance = 64;      // a content match lies at least this far back
  bool certify_breaks = true;           // Theorem 6.1 per `other` head
  long long break_limit = 1LL << 20;    // distances searched by the certificate, [1, 2^40]
};

struct Ablation {
  double tv = 0;    // mean total-variation distance of rows to the model's attention
  double top1 = 0;  // fraction of rows whose argmax key is unchanged
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
};

struct HeadUsage {
  int head = 0, kv_head = 0;
  std::vector<double> q_norm, k_norm;  // per pair (layer pair order); k_norm is its kv head's
  long long rows = 0;                  // attention rows measured (query tokens i >= 1, all sequences)
  double diagonal = 0, previous_token = 0, first_token = 0;
  std::string kind;                    // diagonal, previous-token, first-token, other
  std::optional<double> high_frequency_share;  // none when the layer has < 4 rotating pairs
  std::optional<int> share_rank;               // 1 = the highest share of every ranked head
  std::optional<Ablation> slow_still, fast_removed;
  std::optional<ContentBreak> breaking;        // `other` heads with a content match, when certified
};

struct LayerUsage {
  int layer = 0;
  std::string layer_type;
  std::vector<double> q_norm, k_norm;  // per pair, mean over sequences, tokens and (kv) heads
  std::vector<HeadUsage> heads;
};

struct PairInfo {
  int index = 0, first = 0, second = 0;  // pair index and its two channels
  std::string band;                      // fast, middle, slow, still
  double frequency = 0;                  // radians per token (0: position-free)
};

struct LayerTypePairs {
  std::string name;
  double attention_factor = 1;
  std::vector<PairInfo> pairs;
};

struct PositionalRanking {
  int ranked = 0, positional = 0;  // heads with a share; positional ones among them
  std::optional<double> auc;       // P(a positional head's share > another head's), ties 1/2
  std::optional<double> p_value;   // one-sided, rank-sum
  std::string p_method;
  std::string statement;           // one line: the measured claim with its numbers
};

struct UsageResult {
  std::string model, capture;
  CaptureGeometry geometry;
  std::string q_dtype, k_dtype;
  std::string scale_text;
  std::optional<double> softcap;
  UsageOptions options;
  std::vector<LayerTypePairs> layer_types;
  std::vector<LayerUsage> layers;
  PositionalRanking ranking;
  double seconds = 0;
};

// Returns: the analyses above. Throws InputError naming the member ("q", "k", "positions") when the
// capture does not fit the model (layer count, heads and kv heads, head_dim) and for bad options.
UsageResult analyse_usage(const ModelDescription& model, CaptureSource& capture, const UsageOptions& options);

}  // namespace ropecheck::usage

namespace ropecheck::usage {

// Returns: the model's attention of (layer, head) on one sequence of the capture (attention_rows:
// the first `limit` tokens), reading the capture until that block. Throws InputError("layer",
// "head", "sequence") out of range.
RowMatrix attention_map(const ModelDescription& model, CaptureSource& capture, int layer, int head, long long sequence, long long limit);

// Returns: attention_map of every query head of `layer` (entry h: head h), bit for bit the same
// matrices, reading the capture until that block once and rotating each kv head once. Throws
// InputError("layer", "sequence") out of range.
std::vector<RowMatrix> attention_maps(const ModelDescription& model, CaptureSource& capture, int layer, long long sequence,
                                      long long limit);

}  // namespace ropecheck::usage

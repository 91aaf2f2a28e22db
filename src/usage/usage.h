// File: usage.h
// How a trained model uses its RoPE, measured on a capture of its pre-rotation queries and keys
// (capture.h), the paper's Sections 4-5 (Figs. 3-7, 10, 11, 19) and Theorem 6.1 applied to the
// heads found. Every number is a MEASUREMENT on the capture, with its sample size; only the breaking
// distances are certificates, and they certify a statement about the captured vectors. Each
// analysis has its own file; this one runs them in one pass over the capture:
//
//  frequency usage  per layer and pair, the mean 2-norm of the query and key chunks over sequences,
//                   tokens and heads (kv heads for keys); the same per head. Rotation keeps a chunk's
//                   norm, so pre- and post-rotation agree (up to the attention factor).
//  head kinds       head_scores.h + head_kind.h: attention mass at offsets 0..K, on the first token
//                   and on induction targets, each against uniform attention with an interval over
//                   rows; the kind by a stated rule, Bonferroni-corrected over every score tested.
//  null             gaussian_capture.h: the same rule on Gaussian captures of the same shapes (and
//                   per-head RMS): its false-positive rate, measured, with an exact upper bound.
//  positional       positional_component.h: the offset mass the rotation adds over the position-free
//  component        null (every pair held still, the same capture), per sequence, with simultaneous
//                   intervals over sequences; its count as a curve over the effect-size cut.
//  Section 5        positional_ranking.h, interventions first: the attention change under removal of
//                   the fast quarter, heads with a positional component against the others, across
//                   heads, within layers and within kv groups; then the paper's proxy, the
//                   fast-quarter share of q + k norm (query only within kv groups), and how many heads
//                   each misclassifies. The kind-labelled share ranking (head_kind.h) is kept beside.
//  Appendix E       pair_attribution.h: which pairs carry the positional heads' logit at their offset
//                   and the sinks' first-token advantage, against the Cauchy-Schwarz bound.
//  semantic head    same_token.h: per head, attention on earlier copies of the query's own token
//                   beyond what its distance profile puts there, over sequences; the semantic head is
//                   the one whose simultaneous interval lies highest above 0 (token ids needed).
//  Section 3        distance_logits.h: the mean logit by distance on the captured vectors, as trained
//                   and position-free, with intervals over sequences.
//  ablations        slow quarter position-free (p-RoPE 0.75), fast quarter removed, slow quarter
//                   removed: mean total-variation distance of attention rows to the model's, top-1
//                   agreement.
//  Theorem 6.1      content_breaks.h: for every kept strong content match of every content head, the
//                   certified shortest distance at which moving that key lets the row's runner-up
//                   win; their distribution over rows; the same by mechanism (slow quarter alone,
//                   slow quarter still) and for the theorem's notion (the key's share of its row
//                   falling to 1 - epsilon, given the row's other keys).
//
// GQA follows transformers' repeat_kv: query head h reads kv head h / (heads / kv_heads). Peak
// memory: one (sequence, layer) block of the capture as stored, plus per thread one head in
// binary64, its rotation, one packed kv head and four 128 x tokens blocks of scores.
// Deterministic: the same bytes for every thread count (per-head sums in token and sequence
// order, combined in head order); the null's seed is printed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "spectrum/model.h"
#include "usage/capture.h"
#include "usage/content_breaks.h"
#include "usage/head_attention.h"
#include "usage/head_kind.h"
#include "usage/distance_logits.h"
#include "usage/pair_attribution.h"
#include "usage/positional_component.h"
#include "usage/positional_ranking.h"
#include "usage/same_token.h"

namespace ropecheck::usage {

struct UsageOptions {
  int threads = 1;                      // 1..cpu/thread_count.h's kMaxThreads
  long long content_distance = 64;      // a content match lies at least this far back
  double strong_match = 0.5;            // ... and holds at least this weight of its row, in (0, 1]
  int break_rows = 8;                   // strong matches certified per content head, in [1, 1024]
  bool certify_breaks = true;           // Theorem 6.1 per content head
  bool break_mechanisms = true;         // ... also with only the slow quarter rotating and with it held still
  bool certify_channel = true;          // ... also the theorem's 1 - epsilon channel (content_breaks.h)
  double channel_epsilon = 0.5;         // its epsilon, in (0, 1): the key must hold more than 1 - epsilon
  long long break_limit = 1LL << 20;    // distances searched by the certificate, [1, 2^40]
  KindRule kind_rule;                   // head_kind.h
  long long null_sequences = -1;        // sequences of the Gaussian null: -1 all, 0 none
  int null_repeats = 1;                 // Gaussian captures, seeds null_seed, null_seed + 1, ...; [1, 1000]
  std::uint64_t null_seed = 0;
};

struct Ablation {
  double tv = 0;    // mean total-variation distance of rows to the model's attention
  double top1 = 0;  // fraction of rows whose argmax key is unchanged
};

struct HeadUsage {
  int head = 0, kv_head = 0;
  std::vector<double> q_norm, k_norm;  // per pair (layer pair order); k_norm is its kv head's
  long long rows = 0;                  // attention rows measured (query tokens i >= 1, all sequences)
  double diagonal = 0, previous_token = 0, first_token = 0;  // mean attention on j = i, i - 1, 0
  HeadClass scores;                    // head_kind.h: every score with its test, and the kind
  HeadComponent component;             // positional_component.h: effects over the position-free null
  HeadAttribution attribution;         // pair_attribution.h, at the positional-component offset (none without one)
  std::vector<DistanceBucket> distance;  // distance_logits.h: Section 3 on this head
  std::optional<SameTokenTest> same_token;  // same_token.h (with token ids): attention on its own token beyond its distance profile
  std::optional<double> high_frequency_share;  // none when the layer has < 4 rotating pairs
  std::optional<double> query_fast_share;      // the query's share alone (kv groups share their keys)
  std::optional<int> share_rank;               // 1 = the highest share of every ranked head
  std::optional<Ablation> slow_still, fast_removed, slow_removed;
  long long strong_matches = 0;                // strong content matches kept (<= break_rows)
  std::vector<ContentBreak> breaks;            // content heads, when certified: strongest match first

  HeadKind kind() const { return scores.kind; }
};

// The rule's false-positive rate on the Gaussian null (gaussian_capture.h).
struct NullCheck {
  bool run = false;
  std::uint64_t seed = 0;
  long long sequences = 0;
  int repeats = 0;                          // Gaussian captures (seeds seed .. seed + repeats - 1)
  long long heads = 0, flagged = 0;         // heads classified, heads given a kind other than `other`
  std::vector<std::pair<std::string, long long>> kinds;  // flagged heads by kind
  double rate = 0;                          // flagged / heads
  double upper95 = 0;                       // one-sided 95% Clopper-Pearson upper bound on the rate
  std::string capture;                      // the first one's description
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
  long long span = 0;  // the keys a query of this type can see: its context, or its window
  std::vector<PairInfo> pairs;
};

// Section 5 with the positional-component test's labels, interventions first.
struct Section5 {
  PositionalRanking fast_removed;              // across heads, by the fast-removed attention change (tv)
  WithinLayerRanking fast_removed_layers, fast_removed_kv_groups;
  PositionalRanking slow_removed;              // the same for the slow quarter's removal (the contrast)
  WithinLayerRanking slow_removed_layers;
  PositionalRanking share;                     // the paper's proxy: fast-quarter share of q + k norm
  WithinLayerRanking share_layers, query_share_kv_groups;  // within kv groups: the query's share alone
  CutQuality share_even_spread;                // the proxy at 0.25 (an even spread over the quarters)
  CutQuality share_best, fast_removed_best;    // each score at its own best cut (in-sample: optimistic)
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
  long long scores_tested = 0;  // heads x scores per head: the Bonferroni family
  double z_critical = 0;
  NullCheck null;
  PositionalRanking ranking;            // by kind (the row rule), kept for comparison
  WithinLayerRanking within_layers;
  ComponentTest components;             // positional_component.h, every head
  std::vector<std::pair<std::string, ComponentTest>> components_by_layer_type;  // the same per layer type (same t quantile)
  Section5 section5;
  AppendixE appendix_e;                 // pair_attribution.h over every head
  std::vector<std::pair<std::string, std::vector<DistanceBucket>>> distance_by_layer_type;  // Section 3 per layer type
  BreakDistribution breaks;
  BreakDistribution breaks_slow_only, breaks_slow_still;  // content_breaks.h's mechanisms (with break_mechanisms)
  std::optional<SemanticHead> semantic_head;                // same_token.h's criterion (with token ids; none when no head passes)
  long long same_token_family = 0;                          // heads in its Bonferroni family
  std::optional<BreakDistribution> breaks_channel;         // the 1 - epsilon channel (with certify_channel, no softcap)
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

// Returns: head_attention.h's pooled_attention_rows of (layer, head) over the whole sequence, in
// cells of `cell` tokens (>= 1). Throws InputError("layer", "head", "sequence", "cell") out of range.
RowMatrix pooled_attention_map(const ModelDescription& model, CaptureSource& capture, int layer, int head, long long sequence,
                               long long cell);

}  // namespace ropecheck::usage

// File: head_attention.h
// One head's causal softmax attention on one captured sequence, with the model's exact RoPE, and
// its two frequency ablations (the mechanism behind the paper's Table 1, on a real head):
//   base      scores = scale * a^2 <R_i q_i, R_j k_j>_rotary + scale * <q_i, k_j>_pass-through
//   slow-still   the slow quarter of rotating pairs made position-free, as p-RoPE 0.75 does
//                (frequency 0: a^2 <q, k> on those pairs, unrotated)
//   fast-removed the fast quarter's contribution removed
//   slow-removed the slow quarter's contribution removed
//   position-free every pair held still (frequency 0, block pairs scaled by a): the same q and k
//                with no position at all, the null of the positional-component test
//                (positional_component.h): the offset mass content alone produces
// (layer_pairs.h defines the quarters). A softcap c gives c tanh(s / c); a sliding window W keeps
// keys i - W < j <= i (transformers' masks). Rows are query tokens i >= 1 (token order, not
// position values); row 0 attends to itself only. Per row it adds the base attention's scores
// against chance (head_scores.h) and keeps the row if it is a strong content match.
//
// Arithmetic: binary64 throughout. The rotation uses the production kernel's table (cos and sin of
// p g within 2^-50, scaled by a: kernel/sincos_table.h); scores are dot products of the rotated
// vectors, fused multiply-adds in channel order (detail/score_product.h: a scalar twin and an
// AVX2+FMA one, chosen by the CPU path like the kernel's, bit-identical). Per score, |error| <= (D + 2) u sum_c |y_q,c y_k,c| + 2^-49 a^2 |q| |k| (u = 2^-53),
// i.e. below 1e-13 * |q| |k| for head_dim <= 512, and a softmax weight moves by at most
// ~2 max|score error| relatively: every mean reported (6 significant digits) is exact to ~1e-12
// for logits up to 1e3. These are measurements on data, not certificates.
#pragma once

#include <optional>
#include <vector>

#include <Eigen/Dense>

#include "kernel/sincos_table.h"
#include "usage/detail/score_product.h"
#include "usage/head_scores.h"
#include "usage/layer_pairs.h"

namespace ropecheck::usage {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// A head's vectors at every token, rotated, split by band into the four products the scores need.
struct RotatedHead {
  RowMatrix fast;        // fast pairs, rotated (2 columns a pair)
  RowMatrix rest;        // middle pairs rotated, then every still pair (block ones scaled by a)
  RowMatrix slow;        // slow pairs, rotated
  RowMatrix slow_still;  // slow pairs unrotated, scaled by a (p-RoPE's frequency 0)
  RowMatrix still;       // every pair unrotated (block pairs scaled by a), pair order: position-free
};

// Writes x (tokens x head_dim, row-major) rotated into `out` (reusing its storage). `table`: the
// layer type's plan at this sequence's positions (unused, may be null, for a layer without RoPE).
void rotate_head(const LayerPairs& pairs, const kernel::SinCosTable* table, const double* x, long long tokens, int head_dim, RotatedHead& out);
RotatedHead rotate_head(const LayerPairs& pairs, const kernel::SinCosTable* table, const double* x, long long tokens, int head_dim);
// Every pair in pair order (2 columns a pair), rotated as rotate_head rotates (`still`: unrotated,
// block pairs scaled by a). pair_attribution.h's per-pair products read it.
RowMatrix pairs_in_order(const LayerPairs& pairs, const kernel::SinCosTable* table, const double* x, long long tokens, int head_dim, bool still);

// A rotated key head packed for the score products, once per kv head (shared by its query heads).
struct KeyPanels {
  detail::PackedKeys fast, rest, slow, slow_still, still;
  std::vector<double> norm;  // per token, the rotated key's 2-norm (fast, rest, slow together)
};
KeyPanels prepare_keys(const RotatedHead& k);

// One worker's buffers, reused from head to head (no allocation per head or per block).
struct AttentionWorkspace {
  RowMatrix s_fast, s_rest, s_slow, s_still, s_free;  // 128 query rows x tokens
  Eigen::ArrayXd base, slow_still, fast_removed, slow_removed, position_free;
};

struct AttentionSettings {
  double scale = 1;                  // the model's (AttentionShape::scale)
  std::optional<double> softcap;
  std::optional<long long> window;
  long long content_distance = 64;   // a content match is a row's winning key at i - j >= this
  int max_offset = 16;               // head_scores.h: offsets 0 .. max_offset
  double strong_match = 0.5;         // a content match is kept when its key holds >= this weight
  int keep_matches = 8;              // the strongest matches kept per head
  double attention_factor = 1;       // the layer's a (layer_pairs.h), for the bound on ContentMatch::others
  bool position_free = true;         // also the position-free attention and the distance sums (the
                                     // Gaussian null needs neither: its scan skips their cost)
};

// A content match: a row whose winning key (argmax of base) lies >= content_distance back and
// holds >= strong_match of the row's attention; its runner-up is the row's second highest score.
// `others` is the rest of the row as a threshold for content_breaks.h's channel certificate:
//   rho = log sum_{j != key} exp(z_j - z_runner)   (z = the softmax's inputs: scale * score, softcapped),
// the log of the other keys' total weight over the runner-up's, in [0, log(keys - 1)]. Computed from
// the row's binary64 weights p_j as log(sum_{j != key} p_j / p_runner), |error| <= others_error:
// each z_j is off by at most scale (D + 2.01) u |y_q| |y_k,j| (the score bound above) plus the
// rounding of scale * score and of z - max (2u |z| each), exp is faithful (2u) and the division by
// the row's sum cancels in the ratio but for its rounding (u): a ratio p_j / p_r is off relatively
// by at most 2 Lambda c + 10u with Lambda = scale |y_q| max_j |y_k,j| (|z| <= Lambda when no
// softcap; a softcap only lowers |z|) and c = (D + 2.01) u + 2^-49 max(1, a^2) + 4u (a^2 |q| |k| <=
// max(1, a^2) |y_q| |y_k|: rotary chunks carry a, pass-through ones do not); the n-term sum adds n u,
// the log u |rho|. others_error = 1.01 (2 Lambda c + (n + 12) u) + u |rho|.
struct ContentMatch {
  double weight = 0;
  long long sequence = 0, query = 0, key = 0, runner = 0;  // token indices
  double others = 0, others_error = 0;                     // rho and its bound, as above
};

// Distance buckets: 0 is distance 0, bucket b >= 1 holds distances [2^(b-1), 2^b).
inline int distance_buckets(long long tokens) {
  int b = 1;
  while ((1LL << (b - 1)) < tokens) ++b;
  return b;  // buckets 0 .. b - 1 cover distances 0 .. tokens - 1
}

// Inserts m into `kept` (strongest first; on equal weight the one already there first), keeping at
// most `keep` entries.
void keep_match(std::vector<ContentMatch>& kept, const ContentMatch& m, int keep);

// Sums over rows, so sequences and threads add up (integers and sums in a fixed order).
struct HeadAttention {
  long long rows = 0;
  HeadScores scores;                                 // head_scores.h
  HeadScores position_free;                          // the same scores of the position-free attention
  double tv_slow_still = 0, tv_fast_removed = 0, tv_slow_removed = 0;  // sums of the total-variation distances to base
  long long top1_slow_still = 0, top1_fast_removed = 0, top1_slow_removed = 0;  // rows whose argmax key is unchanged
  std::vector<ContentMatch> matches;                 // the strongest content matches, strongest first
  // Section 3 on the captured vectors: sums over rows of the raw score (before the scale and any
  // softcap) over the keys at each distance bucket (distance_bucket), as trained and position-free,
  // and how many (row, key) terms each holds.
  std::vector<double> distance_logit, distance_free;
  std::vector<long long> distance_terms;
  // same_token.h, with token ids: over the rows with a same-token key, the sums of their mass on
  // those keys and of what the head's distance profile on this sequence puts at the same distances.
  double same_mass = 0, same_expected = 0;
  long long same_rows = 0;

  void add(const HeadAttention& other, int keep);    // sums; merges the matches (keep_match order)
};

// Adds the rows i >= 1 of one sequence. q and k: the rotated query head and its kv head; targets:
// the sequence's induction targets (empty: no token ids, no induction score).
void accumulate_attention(const RotatedHead& q, const KeyPanels& k, const AttentionSettings& settings, long long sequence,
                          const InductionTargets& targets, HeadAttention& into, AttentionWorkspace& workspace);

// Returns: the base attention of the first `limit` query tokens (rows) over keys [0, limit): row
// i holds the softmax over keys j <= i (the window applied), zeros above the diagonal. For figures.
RowMatrix attention_rows(const RotatedHead& q, const RotatedHead& k, const AttentionSettings& settings, long long limit);
// Returns: the base attention of the whole sequence pooled into cells of `cell` >= 1 tokens: entry
// (I, J) is the mean over the query rows i in cell I (row 0 attends to itself only) of the row's
// attention mass on the keys in cell J, so each row of the result sums to 1 (up to rounding); the
// last cell may be shorter. cell = 1 is attention_rows over every token, bit for bit. Memory: three
// 128 x tokens score blocks and the cells, never tokens x tokens. For figures of long sequences.
RowMatrix pooled_attention_rows(const RotatedHead& q, const RotatedHead& k, const AttentionSettings& settings, long long cell);

}  // namespace ropecheck::usage

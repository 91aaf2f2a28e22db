// File: distance_logits.h
// The paper's Section 3 on the captured vectors: does the attention logit decay with distance? The
// paper shows RoPE does not make E[<R_i q, R_j k>] decay for Gaussian q and k; this measures the
// mean logit scale * <R_i q_i, R_j k_j> (before any softcap) of real heads by distance bucket
// (head_attention.h's distance_buckets: 0, [1, 2), [2, 4), ...), as trained and position-free (every
// pair held still: content alone), and their difference, the part the rotation makes.
// Per sequence the mean over its (row, key) terms of the bucket; then the mean over sequences with
// a two-sided 95% Student t interval (pointwise, not simultaneous), per head and per layer type
// (per sequence the mean over the type's heads first). A MEASUREMENT on the capture; with one
// sequence the intervals are unbounded.
#pragma once

#include <string>
#include <vector>

namespace ropecheck::usage {

// One sequence's mean logits per bucket (NaN where the bucket holds no term).
struct SequenceDistanceLogits {
  std::vector<double> logit, position_free;
};

struct MeanWithInterval {
  long long n = 0;
  double mean = 0, lo = 0, hi = 0;  // lo, hi: +-inf with n < 2
};

struct DistanceBucket {
  long long from = 0, to = 0;  // distances [from, to)
  MeanWithInterval logit, position_free, difference;
};

// Returns: the buckets over sequences (every entry of per_sequence has the same bucket count).
std::vector<DistanceBucket> distance_logits(const std::vector<SequenceDistanceLogits>& per_sequence);

// Returns: per sequence, the mean over `heads` (each per_sequence list of one head) bucket by bucket.
std::vector<SequenceDistanceLogits> mean_over_heads(const std::vector<const std::vector<SequenceDistanceLogits>*>& heads);

}  // namespace ropecheck::usage

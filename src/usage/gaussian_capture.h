// File: gaussian_capture.h
// The null for head kinds (head_kind.h): a capture with another capture's shapes, positions and
// token ids whose queries and keys are independent Gaussian noise, each head at the RMS of the
// same head in the real capture (so its logits are as large and its random attention as peaked).
// Entry (s, l, h, t, c) of q is float32(q_rms[l][h] * z) with z = normal_deviate(seed, stream,
// t * head_dim + c) (random/normal_sampler.h), stream = (s * layers + l) * (heads + kv_heads) + h;
// k's kv head g uses stream ... + heads + g. Deterministic: the same bytes for a seed on every
// machine, path and thread count. With RoPE and no structure in q and k, no head should attend to a
// fixed offset, the first token or induction targets beyond chance (the paper's Section 3).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "usage/capture.h"

namespace ropecheck::usage {

struct GaussianCaptureSpec {
  CaptureGeometry geometry;
  std::vector<double> q_rms, k_rms;                  // [layers * heads], [layers * kv_heads], each finite and >= 0
  std::vector<std::vector<long long>> positions;     // one per sequence (geometry.sequences)
  std::vector<std::vector<long long>> token_ids;     // one per sequence, or empty
  std::uint64_t seed = 0;
};

// Preconditions: the sizes above (std::invalid_argument otherwise).
std::unique_ptr<CaptureSource> gaussian_capture(GaussianCaptureSpec spec);

}  // namespace ropecheck::usage

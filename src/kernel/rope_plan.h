// File: rope_plan.h
// What the kernel needs from a spectrum, computed once: for every pair, its exact frequency as a
// 128-bit fixed-point number of turns per token, and which array elements form the pair.
//
// Layouts (which elements of a head vector x[0..d) form pair k):
//   interleaved  (x[2k], x[2k+1])           RoFormer, GPT-J, Meta's reference, llama.cpp NORM.
//   half         (x[k], x[k + R])           GPT-NeoX, Hugging Face rotate_half, the paper's
//                                           apply_p_rope; R = d/2 for rope/nope/p-rope/reversed.
// The rotating block is the first 2R elements, R = the number of pairs the variant rotates as a
// block: d/2 for every variant except `partial F`, whose block is the first 2m channels (GPT-NeoX
// rotary_pct / rotary_dim: m = floor(F*d/2) pairs, half layout pairs (k, k + m)); elements
// [2R, d) pass through unchanged. Inside the block, a pair whose frequency is 0 (nope, the removed
// pairs of p-rope and reversed) is an identity: its two elements are copied bit for bit, never
// multiplied by cos 0 = 1 (which would turn -0 into +0 or inf into NaN).
//
// Turns: pair k rotates by the angle p * g_k at integer position p. The plan stores
// G_k = round(2^128 * g_k / (2 pi)) (g_k / 2pi < 1/(2pi), so G_k < 2^126), computed from the exact
// real g_k (theta^(-e/D) with scaling, spectrum/frequencies.h) in MPFR at 320 bits, so
// |G_k / 2^128 - g_k / (2 pi)| <= 2^-129 (1 + 2^-180). This is the "exact range reduction" of the
// kernel: frac(p * g_k / 2pi) is then p * G_k mod 2^128 computed in integer arithmetic, with an
// error of at most |p| * 2^-129 turns (2^-89 turns for |p| < 2^40, 2^-66 for any int64).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spectrum/layout.h"
#include "spectrum/spectrum.h"

namespace ropecheck::kernel {

// The pair layouts (spectrum/layout.h), under the kernel's names too.
using ropecheck::Layout;
using ropecheck::layout_name;
using ropecheck::parse_layout;

class RopePlan {
 public:
  // Throws InputError if the spectrum's dim exceeds 65536 (the kernel's row buffers are sized by it).
  RopePlan(const Spectrum& spectrum, Layout layout);

  const Spectrum& spectrum() const { return spectrum_; }
  Layout layout() const { return layout_; }
  int dim() const { return spectrum_.dim(); }
  // R: the pairs of the rotating block (elements [0, 2R)); elements [2R, dim) pass through.
  int block_pairs() const { return block_pairs_; }
  // Returns: the element indices (a, b) of block pair k in a head vector, 0 <= k < block_pairs().
  int first_element(int k) const { return layout_ == Layout::interleaved ? 2 * k : k; }
  int second_element(int k) const { return layout_ == Layout::interleaved ? 2 * k + 1 : k + block_pairs_; }
  // Returns: true when block pair k has frequency 0 and is copied, not rotated.
  bool identity(int k) const { return identity_[static_cast<size_t>(k)] != 0; }
  bool any_identity() const { return any_identity_; }
  bool all_identity() const { return all_identity_; }
  // The spectrum pair (its index in Spectrum / frequencies()) that block pair k carries.
  int spectrum_pair(int k) const { return k; }

  // G_k as 32-bit limbs, least significant first: G_k = sum_i limb(i)[k] * 2^(32 i). Each limb is
  // stored in a 64-bit lane (the layout the SIMD multipliers VPMULUDQ read).
  const std::uint64_t* limb(int i) const { return limbs_[static_cast<size_t>(i)].data(); }
  const std::uint8_t* identity_flags() const { return identity_.data(); }

  // Returns: e.g. "rope, d=128, theta=10000, scaling none; layout half (block 64 pairs)".
  std::string describe() const;

 private:
  Spectrum spectrum_;
  Layout layout_;
  int block_pairs_;
  std::vector<std::uint64_t> limbs_[4];
  std::vector<std::uint8_t> identity_;
  bool any_identity_ = false;
  bool all_identity_ = false;
};

}  // namespace ropecheck::kernel

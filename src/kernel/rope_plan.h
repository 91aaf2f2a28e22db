// File: rope_plan.h
// What the kernel needs from a layer's RoPE, computed once: for every pair, its exact frequency as
// a fixed-point number of turns per token, which array elements form the pair, the attention
// factor, and the accurate path's data (exact_rotation.h).
//
// Geometry. A head vector x[0..head_dim) holds the rotary part x[o .. o + 2R) (o = rotary_offset,
// R = block pairs) and pass-through channels everywhere else, copied bit for bit. Inside the
// rotary part, block pair k is (layout, spectrum/layout.h):
//   interleaved  (x[o + 2k], x[o + 2k + 1])     RoFormer, GPT-J, Meta's reference, llama.cpp NORM,
//                                               GLM (interleaved pairs in the first half).
//   half         (x[o + k], x[o + k + R])       GPT-NeoX, Hugging Face rotate_half, DeepSeek's MLA
//                                               rope part (o = qk_nope_head_dim).
// From a model's layer type (spectrum/model.h): head_dim, rotary_offset, rotary_dims = 2R, its
// layout and its spectrum (over the rotary part). From a bare spectrum: head_dim = its dim, o = 0,
// R = d/2, except `partial F`, whose block is the first 2m channels (GPT-NeoX rotary_pct:
// m = floor(F*d/2) pairs). A block pair of frequency 0 (nope, the removed pairs of p-rope and
// reversed) with attention factor 1 is an identity: copied bit for bit, never multiplied by
// cos 0 = 1 (which would turn inf into NaN via inf * 0).
//
// Attention factor a (spectrum/attention_factor.h; yarn and longrope): every rotary output is
// a (x_a cos - x_b sin), a (x_a sin + x_b cos), zero-frequency pairs included (they are scaled by
// a, as transformers' cos and sin are); pass-through channels are not scaled. The kernel's table
// holds RN(RN(a) cos~), RN(RN(a) sin~) (sincos_table.h).
//
// Turns: pair k rotates by the angle p * g_k at integer position p. The plan stores
// G_k = round(2^128 * g_k / (2 pi)) (g_k / 2pi < 1/(2pi), so G_k < 2^126), computed from the exact
// real g_k (theta^(-e/D) with scaling, spectrum/frequencies.h) in MPFR at 320 bits, so
// |G_k / 2^128 - g_k / (2 pi)| <= 2^-129 (1 + 2^-180). This is the "exact range reduction" of the
// kernel: frac(p * g_k / 2pi) is then p * G_k mod 2^128 computed in integer arithmetic, with an
// error of at most |p| * 2^-129 turns (2^-89 turns for |p| < 2^40, 2^-66 for any int64). The
// accurate path's turns have 256 bits (exact_rotation.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "spectrum/layout.h"
#include "spectrum/model.h"
#include "spectrum/request.h"
#include "spectrum/spectrum.h"

namespace ropecheck::kernel {

class ExactRotation;  // exact_rotation.h

// The pair layouts (spectrum/layout.h), under the kernel's names too.
using ropecheck::Layout;
using ropecheck::layout_name;
using ropecheck::parse_layout;

class RopePlan {
 public:
  // A bare spectrum over the whole head (head_dim = spectrum.dim(), offset 0).
  // Throws InputError if the spectrum's dim exceeds 65536 (the kernel's row buffers are sized by it).
  RopePlan(const Spectrum& spectrum, Layout layout);
  // A rotary part of rotary.dim() channels at channel rotary_offset of a head_dim-wide head.
  // Throws InputError("head_dim", ...) when head_dim is outside [2, 65536] or odd,
  // InputError("rotary_offset", ...) when the rotary part does not fit inside the head, and
  // InputError("attention factor", ...) when the factor is outside [2^-64, 2^64) (NaN, 0, negative, huge).
  RopePlan(const Spectrum& rotary, Layout layout, int head_dim, int rotary_offset);
  // A model's layer type (its geometry, layout and spectrum). Throws InputError("layer_type", ...)
  // for a layer type without RoPE.
  explicit RopePlan(const LayerType& layer);

  const Spectrum& spectrum() const { return spectrum_; }
  Layout layout() const { return layout_; }
  int dim() const { return head_dim_; }                  // head_dim: the width of a head vector
  int rotary_offset() const { return offset_; }
  // R: the pairs of the rotating block (elements [o, o + 2R)); every other element passes through.
  int block_pairs() const { return block_pairs_; }
  // Returns: the element indices (a, b) of block pair k in a head vector, 0 <= k < block_pairs().
  int first_element(int k) const { return offset_ + (layout_ == Layout::interleaved ? 2 * k : k); }
  int second_element(int k) const { return offset_ + (layout_ == Layout::interleaved ? 2 * k + 1 : k + block_pairs_); }
  // Returns: true when block pair k is copied, not rotated (frequency 0 and attention factor 1).
  bool identity(int k) const { return identity_[static_cast<size_t>(k)] != 0; }
  bool any_identity() const { return any_identity_; }
  bool all_identity() const { return all_identity_; }
  // The spectrum pair (its index in Spectrum / frequencies()) that block pair k carries.
  int spectrum_pair(int k) const { return k; }
  // The attention factor rounded to double (exactly 1 for a rotation).
  double attention_factor() const { return factor_; }

  // G_k as 32-bit limbs, least significant first: G_k = sum_i limb(i)[k] * 2^(32 i). Each limb is
  // stored in a 64-bit lane (the layout the SIMD multipliers VPMULUDQ read).
  const std::uint64_t* limb(int i) const { return limbs_[static_cast<size_t>(i)].data(); }
  const std::uint8_t* identity_flags() const { return identity_.data(); }
  // The accurate path (exact_rotation.h), shared by copies of the plan.
  const ExactRotation& exact() const { return *exact_; }

  // Returns: e.g. "rope, d=128, theta=10000, scaling none; layout half (block 64 pairs)", with the
  // geometry ("; rotary 64 of 192 at channel 128") when the rotary part is not the whole head.
  std::string describe() const;

 private:
  Spectrum spectrum_;
  Layout layout_;
  int head_dim_;
  int offset_;
  int block_pairs_;
  double factor_ = 1;
  std::vector<std::uint64_t> limbs_[4];
  std::vector<std::uint8_t> identity_;
  bool any_identity_ = false;
  bool all_identity_ = false;
  std::shared_ptr<const ExactRotation> exact_;
};

// Returns: the plan a resolved request names: a model's layer type (its geometry, layout and
// factor; `layout`, when given, must be the model's own) or a bare spectrum in `layout` (required
// then). Throws InputError(layout_param, ...) for a missing or contradicting layout.
RopePlan plan_for(const ResolvedSpectrum& rs, std::optional<Layout> layout, const std::string& layout_param = "layout");

}  // namespace ropecheck::kernel

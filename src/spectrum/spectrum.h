// File: spectrum.h
// The RoPE spectrum of one attention head: which 2-d chunk (pair) rotates at which frequency.
//
// Chunk k = 1..d/2 (0-based index k-1 here) rotates by g_k radians per token. The variant names
// mean exactly this (P and F are decimal fractions in [0, 1]; counts use the paper's float formula
// floor(fl(P*d)/2), which is Python's int(P * head_dim // 2) in Appendix D's apply_p_rope):
//
//   rope        g_k = theta^(-2(k-1)/d) for every pair (Su et al.; the paper's Section 2.1).
//   nope        every g_k = 0: no positional encoding.
//   p-rope P    the paper's apply_p_rope: the m = floor(P*d/2) highest frequencies are kept with
//               their RoPE values g_k = theta^(-2(k-1)/d), k = 1..m (exponent over the full d);
//               pairs m+1..d/2 get frequency 0. p-rope 1 = rope, p-rope 0 = nope.
//   reversed P  the paper's "0.75-RoPE_reversed": the m = floor(P*d/2) lowest frequencies are kept
//               with their RoPE values, pairs 1..d/2-m (the highest) get frequency 0.
//   partial F   GPT-NeoX rotary_pct: the first m = floor(F*d/2) pairs rotate, with frequencies
//               recomputed over the 2m rotated dims, g_k = theta^(-2(k-1)/(2m)); the rest are 0.
//               Unlike p-rope, partial keeps the slowest rotated pair at ~1/theta, not ~theta^(-2m/d).
//
// Which array positions form a pair (interleaved 2i,2i+1 or half i,i+d/2) is a kernel layout
// question and does not change any activation; the math here works on chunks.
// A Scaling (scaling.h) is applied after the variant.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "spectrum/scaling.h"
#include "spectrum/variant.h"

namespace ropecheck {

class Spectrum {
 public:
  // dim: even, >= 2. theta: a decimal > 1 (kept as text so every precision parses it exactly).
  // fraction: P or F in [0, 1] (ignored by rope and nope). scaling: check_scaling() passes for
  // rotary_width()/2 pairs, and dynamic needs rotary_width() > 2. Throws InputError naming the
  // parameter ("dim", "theta", "fraction", "scaling.*"; io/input_error.h).
  Spectrum(int dim, std::string theta, Variant variant = Variant::rope, std::string fraction = "1",
           Scaling scaling = {});

  int dim() const { return dim_; }
  int pairs() const { return dim_ / 2; }
  const std::string& theta() const { return theta_; }
  Variant variant() const { return variant_; }
  const std::string& fraction() const { return fraction_; }
  const Scaling& scaling() const { return scaling_; }

  // Returns: true when pair k (0-based) rotates (its frequency is non-zero).
  bool rotated(int k) const;
  // Returns: the number of rotating pairs.
  int rotated_pairs() const;
  // Returns: for a rotating pair k, the numerator e and denominator D of its exponent:
  // g = theta^(-e/D) before scaling. Preconditions: rotated(k).
  void exponent(int k, long long& numerator, long long& denominator) const;
  // Returns: D, the width the exponents are taken over (transformers' d = int(head_dim *
  // partial_rotary_factor)): 2m for partial, dim otherwise. The scaling rules' d.
  int rotary_width() const;

  // Returns: e.g. "p-rope 0.75, d=256, theta=10000, scaling none".
  std::string describe() const;

  // Returns: the same dim, theta, variant and fraction with another scaling (checked as by the
  // constructor).
  Spectrum with_scaling(Scaling scaling) const { return Spectrum(dim_, theta_, variant_, fraction_, std::move(scaling)); }

 private:
  int dim_;
  std::string theta_;
  Variant variant_;
  std::string fraction_;
  Scaling scaling_;
  int kept_;  // pairs m selected by the variant's fraction (d/2 for rope, 0 for nope)
};

}  // namespace ropecheck

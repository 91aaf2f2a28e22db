// File: attention_factor.h
// The attention factor a of a scaling: the kernel outputs a*(x cos - y sin, x sin + y cos), so a
// rotated pair's norm grows by a and q.k over the rotated pairs by a^2 (pass-through channels are
// not scaled). The map is a rotation only when a = 1. Rules (transformers v5, read as reals; f is
// the scaling's factor):
//   yarn      attention_factor when given; else, when mscale and mscale_all_dim are both given and
//             non-zero (Python truthiness), m(f, mscale) / m(f, mscale_all_dim); else m(f, 1),
//             with m(f, k) = 1 for f <= 1, else 0.1 k ln f + 1 (DeepSeek's softmax correction
//             m(f, mscale_all_dim)^2 is outside RoPE and not part of a).
//   longrope  attention_factor when given; else f = factor, or M/C when factor is "" (Phi-3's
//             config: max_position_embeddings over original_max_position_embeddings); a = 1 for
//             f <= 1, else sqrt(1 + ln f / ln C).
//   others    1.
// The comparisons f <= 1 are decided exactly on the decimal (or integer ratio) inputs. The rules
// are written in spectrum/scaling/yarn.cpp and longrope.cpp.
#pragma once

#include <optional>
#include <string>

#include "numeric/scalar.h"
#include "spectrum/scaling.h"
#include "spectrum/scaling_registry.h"
#include "spectrum/scaling_rules.h"
#include "spectrum/spectrum.h"

namespace ropecheck {

// Returns: the attention factor of s in T (exactly 1 for the kinds without one: none, linear,
// llama3, dynamic); each kind's rule is in its file, spectrum/scaling/<kind>.cpp (scaling_rules.h).
template <Scalar T>
T attention_factor(const Scaling& s) {
  const AttentionFactorRule<T> rule = scaling_rule(s.kind).formulas->template attention_factor<T>();
  return rule ? rule(s) : T(1);
}

// Returns: the decimal the attention factor is exactly, when the config states it (yarn's and
// longrope's attention_factor); nullopt when a rule computes it (0.1 ln f + 1, a square root: 1 or
// irrational).
std::optional<std::string> stated_attention_factor(const Scaling& s);

// Returns: true when the scaling's attention factor is exactly 1 (the map is a rotation).
bool unit_attention_factor(const Scaling& s);

// Returns: the spectrum's rotation alone: the same frequencies with attention factor 1 (an explicit
// attention_factor "1" where the rule would give another). For what multiplies activations by a^2
// exactly and must not be applied twice, or cannot be (the kernel plan refuses a factor).
Spectrum rotation_only(const Spectrum& s);

// Returns: the attention factor as a 17-digit decimal (the midpoint of its enclosure), "1" when it
// is exactly 1.
std::string attention_factor_text(const Scaling& s);

}  // namespace ropecheck

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
// The comparisons f <= 1 are decided exactly on the decimal (or integer ratio) inputs.
#pragma once

#include <optional>
#include <string>

#include "numeric/scalar.h"
#include "spectrum/scaling.h"
#include "spectrum/spectrum.h"

namespace ropecheck {

namespace attention_detail {

// Decides x <= 1 for an exact decimal, or for M/C.
inline bool at_most_one(const std::string& decimal) {
  return !certainly_less(Interval(1), from_decimal<Interval>(decimal));
}
inline bool nonzero(const std::string& decimal) {
  const Interval x = from_decimal<Interval>(decimal);
  return certainly_positive(x) || certainly_negative(x);
}

template <Scalar T>
T mscale(const std::string& f, const T& k) {
  if (at_most_one(f)) return T(1);
  return T(T(T(1) / 10) * k * log(from_decimal<T>(f)) + 1);
}

}  // namespace attention_detail

// Returns: the attention factor of s (exactly 1 for none, linear, llama3, dynamic).
template <Scalar T>
T attention_factor(const Scaling& s) {
  using namespace attention_detail;
  if (s.kind == Scaling::Kind::yarn) {
    if (s.attention_factor) return from_decimal<T>(*s.attention_factor);
    if (s.mscale && s.mscale_all_dim && nonzero(*s.mscale) && nonzero(*s.mscale_all_dim)) {
      // Equal decimals (DeepSeek-V3: 1 and 1) give exactly 1, whatever f is.
      const Interval m = from_decimal<Interval>(*s.mscale), m_all = from_decimal<Interval>(*s.mscale_all_dim);
      if (lower_of(m) == lower_of(m_all) && upper_of(m) == upper_of(m_all)) return T(1);
      return T(mscale<T>(s.factor, from_decimal<T>(*s.mscale)) / mscale<T>(s.factor, from_decimal<T>(*s.mscale_all_dim)));
    }
    return mscale<T>(s.factor, T(1));
  }
  if (s.kind == Scaling::Kind::longrope) {
    if (s.attention_factor) return from_decimal<T>(*s.attention_factor);
    const bool ratio = s.factor.empty();
    if (ratio ? s.max_position <= s.original_context : at_most_one(s.factor)) return T(1);
    const T f = ratio ? T(T(s.max_position) / T(s.original_context)) : from_decimal<T>(s.factor);
    return T(sqrt(T(1 + log(f) / log(T(s.original_context)))));
  }
  return T(1);
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

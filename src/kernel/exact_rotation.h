// File: exact_rotation.h
// The kernel's accurate path: one output component of the exact map of a plan (rope_plan.h)
//     y_a = a (x_a cos(p g_k) - x_b sin(p g_k)),   y_b = a (x_a sin(p g_k) + x_b cos(p g_k)),
// a the attention factor and g_k the exact real frequency, correctly rounded (to nearest, ties to
// even, subnormals rounded, overflow to infinity) to a kernel dtype (binary32, bfloat16, binary16). The fast path
// (detail/ops.h) calls it only for a component whose rounding test fails.
//
// Ziv's strategy, with explicit precisions (thread-safe: no Boost default precision below level
// 4). Level 1 is double-double (detail/double_double_level.h: error a S (delta + 2^-101.2), its
// own rounding test), from level 2's angle rounded to double-doubles. The levels after it are MPFR.
// At level (B, W) the turn is T = p G mod 2^B, G = round(2^B g_k / 2pi) (exact integer
// arithmetic: |T/2^B - frac(p g_k / 2pi)| <= (|p| + 1) 2^-B), the angle 2pi T/2^B and its cos and
// sin are formed at W bits, the component at W + 40 bits, and the error bound
//     E = a S 8 ((|p| + 1) 2^-B + 2^-W) + |y~| (2^-(W+38) + r_a),   S = |x_a| + |x_b|,
// (r_a: the factor's relative error) is evaluated upward. If y~ - E and y~ + E round to the same
// value, that is the correctly rounded y (rounding is monotone). Levels 2 and 3: (256, 128) and
// (256, 256) from the plan's turns; then (B, B - 64) for B = 512, 1024, 2048 with g_k and a
// recomputed at B + 64 bits. At p = 0 or for a zero-frequency pair the angle is exactly 0 (cos 1,
// sin 0), and the component is a x_a or a x_b: when the config states a as a decimal
// (stated_attention_factor) that product is rounded exactly in rational arithmetic, since it can
// be an exact tie; otherwise the MPFR levels decide it (level 1 is skipped).
//
// Why it stops: a component is decided at the first level whose E is below its distance to the
// nearest rounding boundary (a midpoint, or the overflow threshold). That distance is never zero
// for p != 0 when g_k and a are algebraic (theta an integer, the scalings' rational parameters:
// x_a cos t - x_b sin t = m with m rational and t != 0 algebraic would make e^{it} algebraic, against
// Lindemann-Weierstrass); at angle 0 a rule's factor is 1 or transcendental (0.1 ln f + 1) or a
// square root sqrt(1 + ln f / ln C), irrational unless 1 + ln f / ln C is a rational square (f a
// rational power of C, e.g. f = C^(5/4): no model's; such a tie would be counted unresolved). The
// distance has no a-priori lower bound, so the loop is capped at B = 2048
// (a distance below ~2^-1900 S). A component still undecided there is rounded from the last
// level's value and counted as unresolved (KernelStats): never observed, never hidden.
//
// Inputs: finite, not both zero (the caller keeps the fast path's IEEE result for those).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include <mpfr.h>

#include "numeric/dtype.h"
#include "spectrum/spectrum.h"

namespace ropecheck::kernel {

class ExactRotation {
 public:
  // `rotary`: the plan's spectrum; `turns[k]`: the four 64-bit limbs (least significant first) of
  // round(2^256 g_k / 2pi) for block pair k, computed from g_k at >= 320 bits, zero for a
  // zero-frequency pair; `zero_frequency[k]`; `factor`: the attention factor computed at >= 320
  // bits (attention_factor<Real> of the spectrum's scaling; copied, rounded to 320 bits).
  ExactRotation(const Spectrum& rotary, std::vector<std::array<std::uint64_t, 4>> turns,
                std::vector<std::uint8_t> zero_frequency, mpfr_srcptr factor);
  ~ExactRotation();
  ExactRotation(const ExactRotation&) = delete;
  ExactRotation& operator=(const ExactRotation&) = delete;

  struct Rounded {
    double value = 0;       // exactly representable in the format
    int level = 0;          // 1-based level that decided (0: unresolved)
    bool resolved = true;
  };
  // Returns: component b (second) or a of block pair k at position p, correctly rounded to `format`
  // (a kernel dtype). Preconditions: x_a, x_b finite values of that format, not both zero; 0 <= k < pairs().
  // Thread-safe; each thread keeps its last angle per pair (exact_rotation.cpp), which changes no bit.
  // Requires round to nearest (the default mode; apply_rope sets it for its calls).
  Rounded round(Dtype format, int k, std::int64_t p, double x_a, double x_b, bool second) const;

  int pairs() const { return static_cast<int>(turns_.size()); }

 private:
  struct Factor;
  Spectrum rotary_;
  std::vector<std::array<std::uint64_t, 4>> turns_;
  std::vector<std::uint8_t> zero_frequency_;
  std::unique_ptr<Factor> factor_;  // a at 320 bits
  std::uint64_t id_;                // unique per object: the key of exact_rotation.cpp's angle cache
};

}  // namespace ropecheck::kernel

// File: detail/retry.h
// Level 2 of ops.h for one component whose fast test failed, then level 3 (slow_f32 / slow_16,
// slow_path.cpp) when level 2 fails too. Included only by the path files (scalar.cpp, avx2.cpp,
// avx512.cpp), inside their anonymous namespace, so each compiles it with its own flags: the SIMD
// paths' fma is one instruction (scalar.cpp's, built without -m flags, is libm's fma; the same
// correctly rounded value). The same arithmetic everywhere, so the same lanes reach level 3 on
// every path.
//   retry_f32  float32: slow_f32 with `fast` = canonical(RN32(y)), y recomputed by the binary64
//              formula from c = c~[k], s = s~[k] (the bits the vector lane had).
//   retry_16   bfloat16 and float16: the binary64 formula and level-2 test of ops.h from c, s; the
//              output when it passes, else slow_16 with `fast` the binary64 formula rounded once.
//   level1_16  bfloat16 and float16: ops.h's binary32 test (level 1) of one component y with error
//              scale e and sum S (a zero pair: e = S = 0); on success *out = RN16(y_exact). The
//              scalar twin of the SIMD level 1 (scalar.cpp, and avx2.cpp's pairs past the last step).
// bf16_magnitude is level 2's bfloat16 rounding by the bits; the SIMD level 2 of bfloat16
// (avx2.cpp, avx512.cpp: a failed step redone whole in binary64) reproduces it for |v| >= 2^-126
// and leaves the rest to retry_16.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernel/detail/ops.h"

namespace ropecheck::kernel::detail {
namespace {

inline float retry_f32(const SlowPath& slow, int k, float x_a, float x_b, bool second, double c, double s) {
  const double a = x_a, b = x_b;
  const double y = second ? std::fma(b, c, a * s) : std::fma(a, c, -(b * s));
  const float fast = std::isnan(y) ? std::bit_cast<float>(kCanonicalNaNF32) : static_cast<float>(y);
  return slow_f32(slow, k, x_a, x_b, second, fast);
}

// round16(v) is the path's RN16 of a binary32 value (bf16_from_float's or f16_from_float's
// rounding, written in each path file so that no inline library function is shared between them).
inline bool level1_range(float e) { return e >= 0x1p-100f && e <= 0x1p100f; }
template <typename E, typename Round16>
inline bool level1_16(float y, float e, float s, E* out, Round16 round16) {
  if constexpr (kFloor) return *out = round16(y), true;  // bench only: detail/floor.h
  const float lo = y - e, hi = y + e;
  bool same;
  if constexpr (std::is_same_v<E, Bf16Bits>) {
    // The half-up keys: one sign, and one magnitude rounded half up, by the bits (ops.h).
    auto key = [](float v) { return (__builtin_bit_cast(std::uint32_t, v) + 0x8000u) >> 16; };
    const std::uint32_t k = key(lo);
    *out = Bf16Bits{static_cast<std::uint16_t>(k)};
    same = k == key(hi);
  } else {
    *out = round16(lo);
    same = *out == round16(hi);
  }
  return (level1_range(e) && same) || (e == 0 && s == 0);
}

// The bf16 bit pattern of |v| rounded half up (infinity from 2^128 - 2^119 on): a non-decreasing
// function of |v| that steps exactly at the bf16 midpoints. From 2^-126 on, by the bits of the
// binary64 |v|: floor((u + 2^44) / 2^45) rounds to 8 significant bits and keeps binary64's exponent,
// minus kBf16KeyBias it is the pattern. Below, the subnormal grid 2^-133: t = |v| 2^133 (exact)
// rounded half up by its exact fraction t - floor(t); 128 is the smallest normal's pattern.
inline constexpr std::uint64_t kBf16KeyBias = (1023 - 127) << 7;
inline std::uint32_t bf16_magnitude(double v) {
  const double m = std::fabs(v);
  if (m >= 0x1p-126) {
    const std::uint64_t key = (std::bit_cast<std::uint64_t>(m) + (std::uint64_t{1} << 44)) >> 45;
    return key >= kBf16KeyBias + 0x7F80 ? 0x7F80u : static_cast<std::uint32_t>(key - kBf16KeyBias);
  }
  const double t = m * 0x1p133, f = std::floor(t);
  return static_cast<std::uint32_t>(f) + (t - f >= 0.5 ? 1u : 0u);
}

inline Bf16Bits retry_16(const RowShape& shape, const SlowPath& slow, int k, Bf16Bits x_a, Bf16Bits x_b, bool second, double c,
                         double s) {
  const double a = to_float(x_a), b = to_float(x_b);
  const double y = second ? std::fma(b, c, a * s) : std::fma(a, c, -(b * s));
  const double e = shape.err_scale * std::fmax(std::fabs(a), std::fabs(b));
  const double lo = y - e, hi = y + e;
  // ops.h's binary64 test for bfloat16: lo and hi of one sign and one rounded magnitude (no bf16
  // midpoint in (lo, hi]); y_exact lies strictly inside, so it rounds to that value.
  if (std::isfinite(a) && std::isfinite(b) && std::signbit(lo) == std::signbit(hi)) {
    const std::uint32_t magnitude = bf16_magnitude(lo);
    if (magnitude == bf16_magnitude(hi)) return Bf16Bits{static_cast<std::uint16_t>((std::signbit(lo) ? 0x8000u : 0u) | magnitude)};
  }
  // IEEE arithmetic of the formula for non-finite or all-zero inputs (slow_16 keeps it).
  return slow_16(slow, k, x_a, x_b, second, bf16_from_float(static_cast<float>(y)));
}

inline F16Bits retry_16(const RowShape& shape, const SlowPath& slow, int k, F16Bits x_a, F16Bits x_b, bool second, double c,
                        double s) {
  const double a = to_double(x_a), b = to_double(x_b);
  const double y = second ? std::fma(b, c, a * s) : std::fma(a, c, -(b * s));
  const double e = shape.err_scale * std::fmax(std::fabs(a), std::fabs(b));
  // ops.h's binary64 test for float16: both ends round to the same binary16 (a zero pair: e = 0).
  const F16Bits lo = f16_from_double(y - e);
  if (std::isfinite(a) && std::isfinite(b) && lo == f16_from_double(y + e)) return lo;
  // IEEE arithmetic of the formula for non-finite or all-zero inputs (slow_16 keeps it): y is the
  // binary64 formula, rounded once.
  return slow_16(slow, k, x_a, x_b, second, f16_from_double(y));
}

}  // namespace
}  // namespace ropecheck::kernel::detail

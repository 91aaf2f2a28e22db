// File: sample_values.h
// Input values that exercise the kernel, for every kernel dtype: finite bit patterns, activation-like
// moderate values and the edge values of each format. The one source of sample inputs for
// `kernel-check` (kernel_check.cpp), the kernel fuzz (kernel_candidates.cpp), the kernel's
// properties (properties/) and the kernel benchmark (bench/), so all of them sample the same kinds
// of inputs from random words.
// Contract: every function is a pure function of its arguments (same word, same value on every
// machine); finite_pattern never returns an infinity or NaN; every value is exactly representable
// in its element type. Each template has one branch per kernel dtype and does not compile for an
// element type without one (a new format adds its branch here).
#pragma once

#include <bit>
#include <cfloat>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "numeric/small_floats.h"

namespace ropecheck::accuracy {

// Returns: the low 32 bits as a float, an inf/NaN pattern turned into a finite one (every finite
// float, subnormals and the largest included, is reachable).
inline float finite_f32(std::uint64_t b) {
  auto u = static_cast<std::uint32_t>(b);
  if ((u & 0x7F800000u) == 0x7F800000u) u &= ~0x40000000u;
  return std::bit_cast<float>(u);
}

// Returns: the low 16 bits as a finite bf16 / f16 pattern (the same rule).
inline Bf16Bits finite_bf16(std::uint64_t b) {
  auto u = static_cast<std::uint16_t>(b);
  if ((u & 0x7F80u) == 0x7F80u) u = static_cast<std::uint16_t>(u & ~0x4000u);
  return Bf16Bits{u};
}
inline F16Bits finite_f16(std::uint64_t b) {
  auto u = static_cast<std::uint16_t>(b);
  if ((u & 0x7C00u) == 0x7C00u) u = static_cast<std::uint16_t>(u & ~0x4000u);
  return F16Bits{u};
}
// The same for element type E (float, Bf16Bits, F16Bits).
template <typename E>
E finite_pattern(std::uint64_t b) {
  if constexpr (std::is_same_v<E, float>) return finite_f32(b);
  else if constexpr (std::is_same_v<E, Bf16Bits>) return finite_bf16(b);
  else {
    static_assert(std::is_same_v<E, F16Bits>, "finite_pattern: a kernel dtype without its case");
    return finite_f16(b);
  }
}

// Returns: a float with a random sign and significand and an exponent in [-8, 8]: activation-like.
inline float moderate_f32(std::uint64_t b) {
  const auto exponent = static_cast<std::uint32_t>(119 + (b >> 40) % 17);
  return std::bit_cast<float>((static_cast<std::uint32_t>(b) & 0x807FFFFFu) | (exponent << 23));
}

// Signed zeros, the smallest and largest subnormals, the smallest normal, +-1, the largest finite
// values, the largest value below 1, and two far powers of two; kEdgeBf16[i] and kEdgeF16[i] are
// kEdgeF32[i]'s counterparts (f16's far powers of two: 2^-20, a subnormal, and 2^15).
inline constexpr float kEdgeF32[] = {0.0f, -0.0f, 0x1p-149f, -0x1p-149f, 0x1.fffffcp-127f, 0x1p-126f, -0x1p-126f, 1.0f, -1.0f,
                                     FLT_MAX, -FLT_MAX, 0x1.fffffep-1f, 0x1p-100f, 0x1p100f};
inline constexpr Bf16Bits kEdgeBf16[] = {{0x0000}, {0x8000}, {0x0001}, {0x8001}, {0x007F}, {0x0080}, {0x8080},
                                         {0x3F80}, {0xBF80}, {0x7F7F}, {0xFF7F}, {0x3F7F}, {0x0D80}, {0x7180}};
inline constexpr F16Bits kEdgeF16[] = {{0x0000}, {0x8000}, {0x0001}, {0x8001}, {0x03FF}, {0x0400}, {0x8400},
                                       {0x3C00}, {0xBC00}, {0x7BFF}, {0xFBFF}, {0x3BFF}, {0x0010}, {0x7800}};
inline constexpr std::size_t kEdgeValues = sizeof(kEdgeF32) / sizeof(kEdgeF32[0]);
static_assert(sizeof(kEdgeBf16) / sizeof(kEdgeBf16[0]) == kEdgeValues && sizeof(kEdgeF16) / sizeof(kEdgeF16[0]) == kEdgeValues);
// Returns: edge value i of element type E.
template <typename E>
E edge_value(std::size_t i) {
  if constexpr (std::is_same_v<E, float>) return kEdgeF32[i];
  else if constexpr (std::is_same_v<E, Bf16Bits>) return kEdgeBf16[i];
  else {
    static_assert(std::is_same_v<E, F16Bits>, "edge_value: a kernel dtype without its case");
    return kEdgeF16[i];
  }
}

}  // namespace ropecheck::accuracy

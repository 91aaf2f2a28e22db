// File: detail/sample_values.h
// Input values that exercise the kernel: finite bit patterns, activation-like moderate values and
// the edge values of each format. Shared by `kernel-check` (kernel_check.cpp) and the kernel fuzz
// (accuracy/kernel_candidates.cpp), so both sample the same kinds of inputs from random words.
#pragma once

#include <bit>
#include <cfloat>
#include <cstddef>
#include <cstdint>

namespace ropecheck::accuracy::detail {

// Returns: the low 32 bits as a float, an inf/NaN pattern turned into a finite one (every finite
// float, subnormals and the largest included, is reachable).
inline float finite_f32(std::uint64_t b) {
  auto u = static_cast<std::uint32_t>(b);
  if ((u & 0x7F800000u) == 0x7F800000u) u &= ~0x40000000u;
  return std::bit_cast<float>(u);
}

// Returns: the low 16 bits as a finite bf16 pattern (the same rule).
inline std::uint16_t finite_bf16(std::uint64_t b) {
  auto u = static_cast<std::uint16_t>(b);
  if ((u & 0x7F80u) == 0x7F80u) u = static_cast<std::uint16_t>(u & ~0x4000u);
  return u;
}

// Returns: a float with a random sign and significand and an exponent in [-8, 8]: activation-like.
inline float moderate_f32(std::uint64_t b) {
  const auto exponent = static_cast<std::uint32_t>(119 + (b >> 40) % 17);
  return std::bit_cast<float>((static_cast<std::uint32_t>(b) & 0x807FFFFFu) | (exponent << 23));
}

// Signed zeros, the smallest and largest subnormals, the smallest normal, +-1, the largest finite
// values, the largest value below 1, and two far powers of two; kEdgeBf16[i] is kEdgeF32[i]'s
// counterpart in bf16.
inline constexpr float kEdgeF32[] = {0.0f, -0.0f, 0x1p-149f, -0x1p-149f, 0x1.fffffcp-127f, 0x1p-126f, -0x1p-126f, 1.0f, -1.0f,
                                     FLT_MAX, -FLT_MAX, 0x1.fffffep-1f, 0x1p-100f, 0x1p100f};
inline constexpr std::uint16_t kEdgeBf16[] = {0x0000, 0x8000, 0x0001, 0x8001, 0x007F, 0x0080, 0x8080, 0x3F80, 0xBF80,
                                              0x7F7F, 0xFF7F, 0x3F7F, 0x0D80, 0x7180};
inline constexpr std::size_t kEdgeValues = sizeof(kEdgeF32) / sizeof(kEdgeF32[0]);
static_assert(sizeof(kEdgeBf16) / sizeof(kEdgeBf16[0]) == kEdgeValues);

}  // namespace ropecheck::accuracy::detail

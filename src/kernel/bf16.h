// File: bf16.h
// bfloat16 as raw bits (std::uint16_t) and its scalar conversions. These fix the semantics every
// SIMD path reproduces bit for bit:
//   bf16 -> f32: exact (shift left by 16), subnormals and NaN payloads kept.
//   f32 -> bf16: round to nearest, ties to even, on the f32 value; subnormals are rounded, never
//                flushed (unlike VCVTNEPS2BF16, whose flush the avx512-bf16 path patches); a NaN
//                becomes the canonical quiet NaN 0x7FC0; overflow rounds to infinity.
#pragma once

#include <bit>
#include <cstdint>

namespace ropecheck::kernel {

inline constexpr std::uint16_t kCanonicalNaNBf16 = 0x7FC0;
inline constexpr std::uint32_t kCanonicalNaNF32 = 0x7FC00000u;

inline float bf16_to_f32(std::uint16_t b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16); }

inline std::uint16_t f32_to_bf16_rne(float f) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return kCanonicalNaNBf16;
  // Adding 0x7FFF plus the kept lsb carries into bit 16 exactly when the dropped half is above
  // one half, or equal to it with an odd kept part: ties to even. The carry may ripple into the
  // exponent (rounding up to the next binade, or to infinity from the largest finite values).
  return static_cast<std::uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

}  // namespace ropecheck::kernel

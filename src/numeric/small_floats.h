// File: small_floats.h
// The 16-bit kernel formats as tagged storage types, and their scalar conversions. A tensor of
// bfloat16 is Bf16Bits[], of IEEE binary16 F16Bits[]: the same two bytes, distinct types, so that
// no signature confuses them (both are standard-layout wrappers of one std::uint16_t, the layout of
// a NumPy/PyTorch element). These fix the semantics every SIMD path reproduces bit for bit:
//   widening (to float, to double): exact; subnormals and signed zeros kept; NaN stays NaN.
//   narrowing from float (bf16_from_float, f16_from_float): round to nearest, ties to even, on the
//     float value; subnormals rounded, never flushed (unlike VCVTNEPS2BF16, whose flush the
//     avx512-bf16 path patches; VCVTPS2PH with imm8 0 rounds exactly like f16_from_float); overflow
//     to infinity; a NaN becomes the format's canonical quiet NaN (numeric/dtype.h).
//   f16_from_double: the same from a double, rounded once (no double rounding through float).
// StorageOf<Dtype> names a kernel dtype's element type; dtype_of<E> the reverse.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

#include "numeric/dtype.h"

namespace ropecheck {

struct Bf16Bits {
  std::uint16_t bits = 0;
  friend constexpr bool operator==(Bf16Bits, Bf16Bits) = default;
};
struct F16Bits {
  std::uint16_t bits = 0;
  friend constexpr bool operator==(F16Bits, F16Bits) = default;
};
static_assert(sizeof(Bf16Bits) == 2 && sizeof(F16Bits) == 2 && alignof(F16Bits) == 2);

inline constexpr std::uint32_t kCanonicalNaNF32 = 0x7FC00000u;
inline constexpr Bf16Bits kCanonicalNaNBf16{0x7FC0};
inline constexpr F16Bits kCanonicalNaNF16{0x7E00};

// ---- bfloat16 ---------------------------------------------------------------------------------

constexpr float to_float(Bf16Bits b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b.bits) << 16); }

constexpr Bf16Bits bf16_from_float(float f) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return kCanonicalNaNBf16;
  // Adding 0x7FFF plus the kept lsb carries into bit 16 exactly when the dropped half is above
  // one half, or equal to it with an odd kept part: ties to even. The carry may ripple into the
  // exponent (rounding up to the next binade, or to infinity from the largest finite values).
  return Bf16Bits{static_cast<std::uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16)};
}

// ---- IEEE binary16 ----------------------------------------------------------------------------

constexpr bool is_finite(F16Bits h) { return (h.bits & 0x7C00u) != 0x7C00u; }

// Exact: subnormals m 2^-24, normals (1024 + m) 2^(e - 25); infinities; a NaN as a quiet NaN.
inline double to_double(F16Bits h) {
  const bool negative = (h.bits & 0x8000u) != 0;
  const int exponent = (h.bits >> 10) & 0x1F;
  const int mantissa = h.bits & 0x3FF;
  double magnitude;
  if (exponent == 0x1F) magnitude = mantissa == 0 ? HUGE_VAL : std::nan("");
  else if (exponent == 0) magnitude = std::ldexp(static_cast<double>(mantissa), -24);
  else magnitude = std::ldexp(static_cast<double>(1024 + mantissa), exponent - 25);
  return negative ? -magnitude : magnitude;
}
inline float to_float(F16Bits h) { return static_cast<float>(to_double(h)); }  // exact: 11 bits, in range

// Correct rounding of any double: |d| on the binary16 grid of its binade (2^-24 below 2^-14),
// std::nearbyint under the default mode (ties to even), all scalings exact. From 65520 (the
// midpoint above 65504, whose tie goes to the even infinity) on: infinity.
inline F16Bits f16_from_double(double d) {
  if (std::isnan(d)) return kCanonicalNaNF16;
  const std::uint16_t sign = std::signbit(d) ? 0x8000u : 0u;
  const double m = std::fabs(d);
  if (m >= 65520.0) return F16Bits{static_cast<std::uint16_t>(sign | 0x7C00u)};
  if (m < 0x1p-14) return F16Bits{static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(std::nearbyint(m * 0x1p24)))};
  int e = 0;
  (void)std::frexp(m, &e);  // m in [2^(e-1), 2^e)
  const double q = std::nearbyint(std::ldexp(m, 11 - e));  // in [1024, 2048]
  // (e - 1 + 15) << 10 plus q - 1024; q = 2048 carries into the next binade by the same sum.
  return F16Bits{static_cast<std::uint16_t>(sign | (((e + 14) << 10) + (static_cast<int>(q) - 1024)))};
}
inline F16Bits f16_from_float(float f) { return f16_from_double(f); }  // a float is a double: one rounding

// ---- the kernel dtypes' element types ------------------------------------------------------------

template <Dtype> struct StorageOf;
template <> struct StorageOf<Dtype::f32> { using type = float; };
template <> struct StorageOf<Dtype::bf16> { using type = Bf16Bits; };
template <> struct StorageOf<Dtype::f16> { using type = F16Bits; };
template <Dtype T> using Storage = typename StorageOf<T>::type;

template <typename E> inline constexpr Dtype dtype_of = Dtype::f64;  // not a kernel element type
template <> inline constexpr Dtype dtype_of<float> = Dtype::f32;
template <> inline constexpr Dtype dtype_of<Bf16Bits> = Dtype::bf16;
template <> inline constexpr Dtype dtype_of<F16Bits> = Dtype::f16;

// Widening any kernel element exactly.
inline double widen(float v) { return v; }
inline double widen(Bf16Bits v) { return to_float(v); }
inline double widen(F16Bits v) { return to_double(v); }

// A kernel element's stored bits, zero-extended (what failure messages print).
inline std::uint32_t bits_of(float v) { return std::bit_cast<std::uint32_t>(v); }
inline std::uint32_t bits_of(Bf16Bits v) { return v.bits; }
inline std::uint32_t bits_of(F16Bits v) { return v.bits; }

// Returns: the value of `bits` stored in kernel dtype t (16-bit formats: the low 16 bits), exactly.
double value_of_bits(Dtype t, std::uint32_t bits);
// Returns: the stored bits of v in kernel dtype t: exact when v is a value of t; otherwise v is
// rounded to nearest even (bf16 through binary32); a NaN gives the canonical NaN.
std::uint32_t bits_of_value(Dtype t, double v);

// Calls f(E{}) with E the storage type of kernel dtype t (float, Bf16Bits or F16Bits): the one
// switch from a runtime dtype to code templated on the element type. Throws std::invalid_argument
// for f64.
template <typename F>
decltype(auto) with_storage(Dtype t, F&& f) {
  switch (t) {
    case Dtype::f32: return f(float{});
    case Dtype::bf16: return f(Bf16Bits{});
    case Dtype::f16: return f(F16Bits{});
    case Dtype::f64: break;
  }
  require_kernel_dtype(t, "with_storage");
  return f(float{});
}

}  // namespace ropecheck

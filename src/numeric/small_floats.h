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
//   bf16_from_double, f16_from_double: the same from a double, rounded once (no double rounding
//     through float).
// StorageOf<Dtype> names a kernel dtype's element type and its narrowings; dtype_of<E> the reverse;
// narrow<D> / narrow_to<E> is the narrowing from float every layer above calls, one for all formats,
// and narrow_from_double<D> the one from double.
#pragma once

#include <bit>
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

// ---- rounding a double into a small binary format ----------------------------------------------

namespace small_floats_detail {

// Correct rounding of any finite or infinite double, by bits, into a binary format of P significand
// bits (P <= 24), normals from 2^Emin, largest finite (2 - 2^(1-P)) 2^Emax, stored as
// sign | biased exponent << (P-1) | fraction (bfloat16: 8, -126, 127; binary16: 11, -14, 15).
// Normals are re-biased ((1023 - bias) << 52 off) and rounded at bit 53 - P (adding half - 1 plus
// the kept lsb carries exactly past a half, or at a half onto an odd kept part: ties to even; the
// carry may reach the exponent, and from (2 - 2^-P) 2^Emax on the result is infinity); below 2^Emin
// the 53-bit significand is shifted to the 2^(Emin-P+1) grid with the same rounding; up to
// 2^(Emin-P) (a tie with 0, which is even) zero. Branch-light: the kernel's level 2 calls it on
// every retried float16 output. NaN is the caller's (a > the infinity's bits).
template <int P, int Emin, int Emax>
constexpr std::uint16_t round_double_bits(std::uint64_t u) {
  static_assert(P >= 2 && P <= 24 && Emin < 0 && Emax > 0);
  constexpr int kShift = 53 - P;                                        // bits dropped from a normal's significand
  constexpr std::uint64_t kBias = 1 - Emin, kExponent = std::uint64_t{1} << 52;
  constexpr std::uint64_t kOverflow = (Emax + 1023) * kExponent | (((std::uint64_t{1} << P) - 1) << (52 - P));  // (2 - 2^-P) 2^Emax
  constexpr std::uint64_t kMinNormal = (Emin + 1023) * kExponent, kZero = (Emin - P + 1023) * kExponent;
  constexpr std::uint64_t kInfinity = (Emax + kBias + 1) << (P - 1);
  const auto sign = static_cast<std::uint16_t>((u >> 48) & 0x8000u);
  const std::uint64_t a = u & 0x7FFFFFFFFFFFFFFFull;
  if (a >= kOverflow) return static_cast<std::uint16_t>(sign | kInfinity);
  if (a >= kMinNormal) {
    const std::uint64_t r = a - ((1023 - kBias) << 52);
    return static_cast<std::uint16_t>(sign | ((r + ((std::uint64_t{1} << (kShift - 1)) - 1) + ((r >> kShift) & 1u)) >> kShift));
  }
  if (a <= kZero) return sign;
  const std::uint64_t m = (a & (kExponent - 1)) | kExponent, shift = (1075 + Emin - P + 1) - (a >> 52);  // kShift+1..53
  std::uint64_t q = m >> shift;
  const std::uint64_t rest = m & ((std::uint64_t{1} << shift) - 1), half = std::uint64_t{1} << (shift - 1);
  if (rest > half || (rest == half && (q & 1u) != 0)) ++q;
  return static_cast<std::uint16_t>(sign | q);
}

constexpr bool is_nan_bits(std::uint64_t u) { return (u & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull; }

}  // namespace small_floats_detail

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

// Correct rounding of any double, rounded once (through binary32 a double can round twice onto a
// bfloat16 midpoint): round_double_bits<8, -126, 127>.
constexpr Bf16Bits bf16_from_double(double d) {
  const auto u = std::bit_cast<std::uint64_t>(d);
  return small_floats_detail::is_nan_bits(u) ? kCanonicalNaNBf16 : Bf16Bits{small_floats_detail::round_double_bits<8, -126, 127>(u)};
}

// ---- IEEE binary16 ----------------------------------------------------------------------------

constexpr bool is_finite(F16Bits h) { return (h.bits & 0x7C00u) != 0x7C00u; }

// Exact, by bits (the scalar twin of VCVTPH2PS): normals re-biased (exponent + 112), subnormals
// m 2^-24 (one exact float product), infinities, a NaN as a NaN with the payload shifted in.
constexpr float to_float(F16Bits h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h.bits & 0x8000u) << 16;
  const std::uint32_t exponent = (h.bits >> 10) & 0x1Fu, mantissa = h.bits & 0x3FFu;
  if (exponent == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
  if (exponent == 0) {
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;  // exact: 10 bits times a power of two
    return sign != 0 ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}
constexpr double to_double(F16Bits h) { return to_float(h); }

// Correct rounding of any double into binary16 (round_double_bits<11, -14, 15>).
constexpr F16Bits f16_from_double(double d) {
  const auto u = std::bit_cast<std::uint64_t>(d);
  return small_floats_detail::is_nan_bits(u) ? kCanonicalNaNF16 : F16Bits{small_floats_detail::round_double_bits<11, -14, 15>(u)};
}

// The same from a float, by bits (the scalar twin of VCVTPS2PH imm8 0): normals re-biased and
// rounded at bit 13 (adding 0xFFF plus the kept lsb carries exactly past a half, or at a half onto an
// odd kept part: ties to even; the carry may reach the exponent, and from 65520 = 0x477FF000 on the
// result is infinity); below 2^-14 the 24-bit significand shifted to the 2^-24 grid with the same
// rounding; up to 2^-25 (a tie with 0, which is even) zero.
constexpr F16Bits f16_from_float(float f) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  const auto sign = static_cast<std::uint16_t>((u >> 16) & 0x8000u);
  const std::uint32_t a = u & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return kCanonicalNaNF16;
  if (a >= 0x477FF000u) return F16Bits{static_cast<std::uint16_t>(sign | 0x7C00u)};
  if (a >= 0x38800000u) {
    const std::uint32_t r = a - 0x38000000u;  // exponent - 127 + 15, at bit 23
    return F16Bits{static_cast<std::uint16_t>(sign | ((r + 0xFFFu + ((r >> 13) & 1u)) >> 13))};
  }
  if (a <= 0x33000000u) return F16Bits{sign};
  const std::uint32_t m = (a & 0x7FFFFFu) | 0x800000u, shift = 126 - (a >> 23);  // value m 2^(e-150); grid 2^-24: shift 14..24
  std::uint32_t q = m >> shift;
  const std::uint32_t rest = m & ((1u << shift) - 1), half = 1u << (shift - 1);
  if (rest > half || (rest == half && (q & 1u) != 0)) ++q;
  return F16Bits{static_cast<std::uint16_t>(sign | q)};
}

// ---- the kernel dtypes' element types ------------------------------------------------------------

// StorageOf<D>, one specialization per kernel dtype D: its element type and its narrowings from
// float and from double (the one place a format's rounding is chosen; narrow<D>, narrow_to<E> and
// narrow_from_double<D> call them, so a format without them does not compile).
template <Dtype> struct StorageOf;
template <> struct StorageOf<Dtype::f32> {
  using type = float;
  static constexpr float from_float(float f) { return f != f ? std::bit_cast<float>(kCanonicalNaNF32) : f; }
  // The C++ conversion: round to nearest even in the default floating-point environment.
  static float from_double(double d) { return d != d ? std::bit_cast<float>(kCanonicalNaNF32) : static_cast<float>(d); }
};
template <> struct StorageOf<Dtype::bf16> {
  using type = Bf16Bits;
  static constexpr Bf16Bits from_float(float f) { return bf16_from_float(f); }
  static constexpr Bf16Bits from_double(double d) { return bf16_from_double(d); }
};
template <> struct StorageOf<Dtype::f16> {
  using type = F16Bits;
  static constexpr F16Bits from_float(float f) { return f16_from_float(f); }
  static constexpr F16Bits from_double(double d) { return f16_from_double(d); }
};
template <Dtype T> using Storage = typename StorageOf<T>::type;

template <typename E> inline constexpr Dtype dtype_of = Dtype::f64;  // not a kernel element type
template <> inline constexpr Dtype dtype_of<float> = Dtype::f32;
template <> inline constexpr Dtype dtype_of<Bf16Bits> = Dtype::bf16;
template <> inline constexpr Dtype dtype_of<F16Bits> = Dtype::f16;

// Returns: f narrowed to kernel dtype D (narrow_to: to element type E): rounded to nearest, ties to
// even, on the float value (f32: f itself); overflow to infinity; a NaN becomes D's canonical NaN
// (numeric/dtype.h). Every caller that rounds a float to "the format of E" calls these, never the
// per-format functions above. widen(narrow_to<E>(widen(e))) == widen(e) for every non-NaN e.
template <Dtype D>
constexpr Storage<D> narrow(float f) {
  return StorageOf<D>::from_float(f);
}
template <typename E>
constexpr E narrow_to(float f) {
  return narrow<dtype_of<E>>(f);
}
// Returns: d narrowed to kernel dtype D, rounded once to nearest, ties to even, on the double value;
// overflow to infinity; a NaN becomes D's canonical NaN.
template <Dtype D>
Storage<D> narrow_from_double(double d) {
  return StorageOf<D>::from_double(d);
}

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
// rounded once to nearest even (narrow_from_double); a NaN gives the canonical NaN.
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

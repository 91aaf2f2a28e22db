// The accurate path behind every kernel path's rounding test (ops.h), and the row helpers every
// path shares. Compiled without any -m flag, like scalar.cpp: one implementation for all paths.
#include <bit>
#include <cmath>
#include <cstring>

#include "kernel/detail/ops.h"
#include "kernel/exact_rotation.h"

namespace ropecheck::kernel::detail {
namespace {

// Narrowing a value ExactRotation rounded to E's format: exact.
float narrow(double v, float) { return static_cast<float>(v); }
Bf16Bits narrow(double v, Bf16Bits) { return bf16_from_float(static_cast<float>(v)); }
F16Bits narrow(double v, F16Bits) { return f16_from_double(v); }

template <typename E>
E slow(const SlowPath& slow, int k, E x_a, E x_b, bool second, E fast) {
  const double a = widen(x_a), b = widen(x_b);
  if (!std::isfinite(a) || !std::isfinite(b) || (a == 0 && b == 0)) return fast;
  if (slow.taken != nullptr) ++*slow.taken;
  const ExactRotation::Rounded r = slow.exact->round(dtype_of<E>, k, slow.position, a, b, second);
  if (!r.resolved && slow.unresolved != nullptr) ++*slow.unresolved;
  return narrow(r.value, E{});
}

}  // namespace

float slow_f32(const SlowPath& s, int k, float x_a, float x_b, bool second, float fast) {
  return slow(s, k, x_a, x_b, second, fast);
}
Bf16Bits slow_16(const SlowPath& s, int k, Bf16Bits x_a, Bf16Bits x_b, bool second, Bf16Bits fast) {
  return slow(s, k, x_a, x_b, second, fast);
}
F16Bits slow_16(const SlowPath& s, int k, F16Bits x_a, F16Bits x_b, bool second, F16Bits fast) {
  return slow(s, k, x_a, x_b, second, fast);
}

float retry_f32(const SlowPath& slow, int k, float x_a, float x_b, bool second, double c, double s) {
  const double a = x_a, b = x_b;
  const double y = second ? std::fma(b, c, a * s) : std::fma(a, c, -(b * s));
  const float fast = std::isnan(y) ? std::bit_cast<float>(kCanonicalNaNF32) : static_cast<float>(y);
  return slow_f32(slow, k, x_a, x_b, second, fast);
}

namespace {
// The bf16 bit pattern of |v| rounded half up (infinity from 2^128 - 2^119 on): a non-decreasing
// function of |v| that steps exactly at the bf16 midpoints. From 2^-126 on, by the bits of the
// binary64 |v|: floor((u + 2^44) / 2^45) rounds to 8 significant bits and keeps binary64's exponent,
// minus (1023 - 127) << 7 it is the pattern. Below, the subnormal grid 2^-133: t = |v| 2^133
// (exact) rounded half up by its exact fraction t - floor(t); 128 is the smallest normal's pattern.
std::uint32_t bf16_magnitude(double v) {
  const double m = std::fabs(v);
  if (m >= 0x1p-126) {
    const std::uint64_t key = (std::bit_cast<std::uint64_t>(m) + (std::uint64_t{1} << 44)) >> 45;
    constexpr std::uint64_t kBias = (1023 - 127) << 7;
    return key >= kBias + 0x7F80 ? 0x7F80u : static_cast<std::uint32_t>(key - kBias);
  }
  const double t = m * 0x1p133, f = std::floor(t);
  return static_cast<std::uint32_t>(f) + (t - f >= 0.5 ? 1u : 0u);
}
}  // namespace

Bf16Bits retry_16(const RowShape& shape, const SlowPath& slow, int k, Bf16Bits x_a, Bf16Bits x_b, bool second, double c,
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

F16Bits retry_16(const RowShape& shape, const SlowPath& slow, int k, F16Bits x_a, F16Bits x_b, bool second, double c,
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

template <typename E>
void copy_passthrough_impl(const RowShape& shape, const E* in, E* out) {
  if (in == out) return;
  if (shape.offset > 0) std::memmove(out, in, sizeof(E) * static_cast<size_t>(shape.offset));
  const int end = shape.offset + 2 * shape.block;
  if (shape.dim > end) std::memmove(out + end, in + end, sizeof(E) * static_cast<size_t>(shape.dim - end));
}

void copy_passthrough(const RowShape& shape, const float* in, float* out) { copy_passthrough_impl(shape, in, out); }
void copy_passthrough(const RowShape& shape, const Bf16Bits* in, Bf16Bits* out) { copy_passthrough_impl(shape, in, out); }
void copy_passthrough(const RowShape& shape, const F16Bits* in, F16Bits* out) { copy_passthrough_impl(shape, in, out); }

namespace {
constexpr std::size_t round64(std::size_t n) { return (n + 63) / 64 * 64; }
}  // namespace

std::size_t Scratch::bytes(int block_pairs) {
  const auto r = static_cast<std::size_t>(block_pairs);
  return round64(8 * 4 * (r + 16)) + round64(4 * (r / 8 + 2)) + round64(4 * 2 * r);
}

Scratch Scratch::carve(void* memory, int block_pairs) {
  const auto r = static_cast<std::size_t>(block_pairs);
  auto* base = static_cast<unsigned char*>(memory);
  Scratch s;
  s.table = reinterpret_cast<double*>(base);
  s.fails = reinterpret_cast<std::uint32_t*>(base + round64(8 * 4 * (r + 16)));
  s.copy = base + round64(8 * 4 * (r + 16)) + round64(4 * (r / 8 + 2));
  return s;
}

void scale_row(double a, int n, double* c, double* s) {
  if (a == 1.0) return;
  for (int k = 0; k < n; ++k) {
    c[k] = a * c[k];
    s[k] = a * s[k];
  }
}

}  // namespace ropecheck::kernel::detail

// The scalar path: the reference semantics every SIMD path reproduces bit for bit (see ops.h).
// Compiled without any -m flag and with -ffp-contract=off (CMakeLists.txt), so every fused
// multiply-add is an explicit std::fma and nothing else is fused.
#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "kernel/detail/ops.h"
#include "kernel/detail/retry.h"

namespace ropecheck::kernel::detail {
namespace {

// sincos_table.h, steps 2-5, from the 64-bit fixed-point turn T.
inline void sincos_from_turn(std::uint64_t turn, double* c, double* s) {
  const std::uint64_t t = turn + (std::uint64_t{1} << 61);
  const unsigned q = static_cast<unsigned>(t >> 62);
  const std::int64_t r = static_cast<std::int64_t>(t & ((std::uint64_t{1} << 62) - 1)) - (std::int64_t{1} << 61);
  const double x = static_cast<double>(r) * kTurnToRadian;
  const double z = x * x;
  double sp = std::fma(z, kS6, kS5);
  sp = std::fma(z, sp, kS4);
  sp = std::fma(z, sp, kS3);
  sp = std::fma(z, sp, kS2);
  sp = std::fma(z, sp, kS1);
  const double sin_x = std::fma(x * z, sp, x);
  double cp = std::fma(z, kC6, kC5);
  cp = std::fma(z, cp, kC4);
  cp = std::fma(z, cp, kC3);
  cp = std::fma(z, cp, kC2);
  cp = std::fma(z, cp, kC1);
  const double cos_x = std::fma(z * z, cp, std::fma(-0.5, z, 1.0));
  // Angle 2pi(q/4) + x: quadrant 1 is (-sin x, cos x), 2 is (-cos x, -sin x), 3 is (sin x, -cos x).
  double cv = (q & 1u) ? sin_x : cos_x;
  double sv = (q & 1u) ? cos_x : sin_x;
  if ((q + 1) & 2u) cv = -cv;
  if (q & 2u) sv = -sv;
  *c = cv;
  *s = sv;
}

void sincos_row(const TurnLimbs& g, int n, std::int64_t p, double* c, double* s) {
  // |p| as an unsigned 64-bit integer (exact for INT64_MIN too); frac(-x) = -frac(x) mod 1.
  const std::uint64_t a = p < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(p) : static_cast<std::uint64_t>(p);
  for (int k = 0; k < n; ++k) {
    const std::uint64_t hi = (g.limb[3][k] << 32) | g.limb[2][k];
    const std::uint64_t lo = (g.limb[1][k] << 32) | g.limb[0][k];
    // floor(a G / 2^64) mod 2^64 = a G_hi + floor(a G_lo / 2^64) (mod 2^64), G = G_hi 2^64 + G_lo.
    const unsigned __int128 plo = static_cast<unsigned __int128>(a) * lo;
    const std::uint64_t turn = a * hi + static_cast<std::uint64_t>(plo >> 64);
    sincos_from_turn(p < 0 ? std::uint64_t{0} - turn : turn, c + k, s + k);
  }
}

inline float canonical(float y) { return std::isnan(y) ? std::bit_cast<float>(kCanonicalNaNF32) : y; }

inline int first(const RowShape& sh, int k) { return sh.layout == Layout::interleaved ? 2 * k : k; }
inline int second(const RowShape& sh, int k) { return sh.layout == Layout::interleaved ? 2 * k + 1 : k + sh.block; }

// ops.h's output and rounding test for one component y with error scale e, for finite inputs
// (`finite`; fast path).
inline bool finish(double y, double e, bool finite, float* out) {
  if constexpr (kFloor) return *out = static_cast<float>(y), true;  // bench only: detail/floor.h
  const float lo = static_cast<float>(y - e), hi = static_cast<float>(y + e);
  *out = canonical(static_cast<float>(y));
  return (std::bit_cast<std::uint32_t>(lo) == std::bit_cast<std::uint32_t>(hi) || e == 0) && finite;
}
// RN16 of a binary32 value (small_floats.h): RN_bf16, and RN_f16 (VCVTPS2PH's rounding).
inline Bf16Bits round16(float v, Bf16Bits) { return bf16_from_float(v); }
inline F16Bits round16(float v, F16Bits) { return f16_from_float(v); }

template <typename E>
void rotate(const RowShape& shape, const double* c, const double* s, const E* in, std::int64_t in_hs, E* out,
            std::int64_t out_hs, std::int64_t heads, const SlowPath& sp) {
  std::int64_t redone = 0;  // added to *sp.redone once, after the loop
  for (std::int64_t h = 0; h < heads; ++h) {
    const E* x = in + h * in_hs + shape.offset;
    E* y = out + h * out_hs + shape.offset;
    for (int k = 0; k < shape.block; ++k) {
      const int a = first(shape, k), b = second(shape, k);
      if (shape.pair_identity[k]) {
        std::memmove(y + a, x + a, sizeof(E));
        std::memmove(y + b, x + b, sizeof(E));
        continue;
      }
      const E ea = x[a], eb = x[b];
      E oa, ob;
      if constexpr (std::is_same_v<E, float>) {
        // Binary64 (ops.h), then the accurate path.
        const double xa = ea, xb = eb;
        const double ya = std::fma(xa, c[k], -(xb * s[k]));
        const double yb = std::fma(xb, c[k], xa * s[k]);
        const bool finite = std::isfinite(xa) && std::isfinite(xb);
        const double e = shape.err_scale * std::fmax(std::fabs(xa), std::fabs(xb));
        if (!finish(ya, e, finite, &oa)) ++redone, oa = slow_f32(sp, k, ea, eb, false, oa);
        if (!finish(yb, e, finite, &ob)) ++redone, ob = slow_f32(sp, k, ea, eb, true, ob);
      } else {
        // bfloat16 and float16: binary32 from the rounded table entries (ops.h, level 1), then
        // retry_16 (level 2; the SIMD paths' level 2 on whole steps passes a subset of its lanes
        // with the same outputs, ops.h) and level 3.
        const float c32 = static_cast<float>(c[k]), s32 = static_cast<float>(s[k]);
        const float xa = to_float(ea), xb = to_float(eb);
        const float ya = std::fma(xa, c32, -(xb * s32));
        const float yb = std::fma(xb, c32, xa * s32);
        const float sum = std::fabs(xa) + std::fabs(xb), e = shape.err_scale32 * sum;
        auto rn16 = [](float v) { return round16(v, E{}); };
        if (!level1_16(ya, e, sum, &oa, rn16)) ++redone, oa = retry_16(shape, sp, k, ea, eb, false, c[k], s[k]);
        if (!level1_16(yb, e, sum, &ob, rn16)) ++redone, ob = retry_16(shape, sp, k, ea, eb, true, c[k], s[k]);
      }
      y[a] = oa;
      y[b] = ob;
    }
    copy_passthrough(shape, in + h * in_hs, out + h * out_hs);
  }
  *sp.redone += redone;
}

void rotate_f32(const RowShape& shape, const double* c, const double* s, const float* in, std::int64_t in_hs,
                float* out, std::int64_t out_hs, std::int64_t heads, const Scratch&, const SlowPath& sp) {
  rotate(shape, c, s, in, in_hs, out, out_hs, heads, sp);
}

void rotate_bf16(const RowShape& shape, const double* c, const double* s, const Bf16Bits* in, std::int64_t in_hs,
                 Bf16Bits* out, std::int64_t out_hs, std::int64_t heads, const Scratch&, const SlowPath& sp) {
  rotate(shape, c, s, in, in_hs, out, out_hs, heads, sp);
}

void rotate_f16(const RowShape& shape, const double* c, const double* s, const F16Bits* in, std::int64_t in_hs,
                F16Bits* out, std::int64_t out_hs, std::int64_t heads, const Scratch&, const SlowPath& sp) {
  rotate(shape, c, s, in, in_hs, out, out_hs, heads, sp);
}

}  // namespace

const PathOps& scalar_ops() {
  static const PathOps ops{&sincos_row, &rotate_f32, &rotate_bf16, &rotate_f16};
  return ops;
}

}  // namespace ropecheck::kernel::detail

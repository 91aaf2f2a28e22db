// The scalar path: the reference semantics every SIMD path reproduces bit for bit (see ops.h).
// Compiled without any -m flag and with -ffp-contract=off (CMakeLists.txt), so every fused
// multiply-add is an explicit std::fma and nothing else is fused.
#include <bit>
#include <cmath>
#include <cstring>

#include "kernel/bf16.h"
#include "kernel/detail/ops.h"

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

template <typename E>
void copy_passthrough(const RowShape& shape, const E* in, E* out) {
  if (in != out && shape.dim > 2 * shape.block)
    std::memmove(out + 2 * shape.block, in + 2 * shape.block, sizeof(E) * static_cast<size_t>(shape.dim - 2 * shape.block));
}

inline int first(const RowShape& sh, int k) { return sh.layout == Layout::interleaved ? 2 * k : k; }
inline int second(const RowShape& sh, int k) { return sh.layout == Layout::interleaved ? 2 * k + 1 : k + sh.block; }

void rotate_f32(const RowShape& shape, const double* c, const double* s, const float* in, std::int64_t in_hs,
                float* out, std::int64_t out_hs, std::int64_t heads, bool, double*) {
  for (std::int64_t h = 0; h < heads; ++h) {
    const float* x = in + h * in_hs;
    float* y = out + h * out_hs;
    for (int k = 0; k < shape.block; ++k) {
      const int a = first(shape, k), b = second(shape, k);
      if (shape.pair_identity[k]) {
        std::memmove(y + a, x + a, sizeof(float));
        std::memmove(y + b, x + b, sizeof(float));
        continue;
      }
      const double xa = x[a], xb = x[b];
      const double ya = std::fma(xa, c[k], -(xb * s[k]));
      const double yb = std::fma(xb, c[k], xa * s[k]);
      y[a] = canonical(static_cast<float>(ya));
      y[b] = canonical(static_cast<float>(yb));
    }
    copy_passthrough(shape, x, y);
  }
}

void rotate_bf16(const RowShape& shape, const double* c, const double* s, const std::uint16_t* in,
                 std::int64_t in_hs, std::uint16_t* out, std::int64_t out_hs, std::int64_t heads, bool, double*) {
  for (std::int64_t h = 0; h < heads; ++h) {
    const std::uint16_t* x = in + h * in_hs;
    std::uint16_t* y = out + h * out_hs;
    for (int k = 0; k < shape.block; ++k) {
      const int a = first(shape, k), b = second(shape, k);
      if (shape.pair_identity[k]) {
        y[a] = x[a];
        y[b] = x[b];
        continue;
      }
      const float cf = static_cast<float>(c[k]), sf = static_cast<float>(s[k]);
      const float xa = bf16_to_f32(x[a]), xb = bf16_to_f32(x[b]);
      const float ya = std::fma(xa, cf, -(xb * sf));
      const float yb = std::fma(xb, cf, xa * sf);
      y[a] = f32_to_bf16_rne(ya);
      y[b] = f32_to_bf16_rne(yb);
    }
    copy_passthrough(shape, x, y);
  }
}

}  // namespace

const PathOps& scalar_ops() {
  static const PathOps ops{&sincos_row, &rotate_f32, &rotate_bf16};
  return ops;
}

}  // namespace ropecheck::kernel::detail

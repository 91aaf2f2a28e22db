// File: detail/ops.h
// The per-path primitives behind apply_rope and SinCosTable. Every path implements the same
// arithmetic, operation for operation (scalar.cpp is the reference; avx2.cpp and avx512.cpp are its
// twins), so that results agree bit for bit:
//
//  sincos_row   the reduction and polynomials of sincos_table.h, for n pairs at position p.
//  rotate_f32   per pair (a, b) of the block, in binary64 from the float inputs:
//                   y_a = fma(x_a, c, -(x_b * s)),   y_b = fma(x_b, c, x_a * s),
//               each rounded once to float32; NaN -> 0x7FC00000; identity pairs and elements
//               [2R, dim) copied bit for bit.
//               Error (with sincos_table.h's |c - cos|, |s - sin| <= 2^-50): the product x_b s
//               adds 2^-53 |x_b s|, the fma 2^-53 |y_a|, the table |x_a| 2^-50 + |x_b| 2^-50, so
//               |y_a(double) - y_a| <= ||x|| (2^-49.5 + 2^-52 + 2^-52.9) < 2^-49.2 ||x||; rounding
//               to float32 adds at most half an ulp, and 2^-49.2 ||x|| = 2^-25.2 (2^-24 ||x||), so
//               the output is within 0.5 + 2^-25 ulp (ulp floored at 2^-24 ||x||). No underflow or
//               overflow can occur in binary64 for float32 inputs (|y| <= sqrt(2) FLT_MAX).
//  rotate_bf16  per pair, in binary32 from the bf16 inputs, with the table rounded to float32
//               (cf = RN32(c), sf = RN32(s)):  y_a = fmaf(x_a, cf, -(x_b * sf)),
//               y_b = fmaf(x_b, cf, x_a * sf), each rounded once to bf16 (bf16.h).
//               Error: |cf - cos| <= 2^-25 + 2^-50 (float32 ulp of values in [0.5, 1] is 2^-24),
//               the product 2^-24 |x_b sf|, the fma 2^-24 |y_a|, and for subnormal intermediate
//               values an absolute 2^-150 per rounding: |y_a(float) - y_a| <= ||x|| (sqrt(2) 2^-25
//               + 2^-23 (1 + 2^-24) + 2^-49) + 2^-149 < 2^-22.3 ||x|| + 2^-149. Against the bf16 ulp
//               floored at 2^-8 ||x|| (and never below 2^-133, the bf16 subnormal spacing) that is
//               < 2^-14.3 + 2^-16 < 2^-14 ulp: within 0.5 + 2^-14 bf16-ulp.
#pragma once

#include <cstdint>

#include "cpu/path.h"
#include "kernel/rope_plan.h"
#include "numeric/fdlibm_sincos.h"

namespace ropecheck::kernel::detail {

struct RowShape {
  int dim = 0;                 // head_dim
  int block = 0;               // R: block pairs; elements [0, 2R) rotate, [2R, dim) pass through
  Layout layout = Layout::half;
  const std::uint8_t* pair_identity = nullptr;     // [R]: 1 = identity pair
  const std::uint8_t* element_rotates = nullptr;   // [2R + 64]: 1 = element of a rotating pair
                                                   // (padded with zeros for vector loads)
  bool any_identity = false;
};

// The limbs of RopePlan::limb(0..3).
struct TurnLimbs {
  const std::uint64_t* limb[4];
};

struct PathOps {
  void (*sincos_row)(const TurnLimbs& g, int n, std::int64_t p, double* c, double* s);
  // Rotates `heads` head vectors of one token; head h starts at in + h * in_head_stride.
  // `stream` allows non-temporal stores where the output is suitably aligned (out of place only).
  // scratch: 64-byte aligned, room for 4 * dim doubles.
  void (*rotate_f32)(const RowShape& shape, const double* c, const double* s, const float* in,
                     std::int64_t in_head_stride, float* out, std::int64_t out_head_stride, std::int64_t heads,
                     bool stream, double* scratch);
  void (*rotate_bf16)(const RowShape& shape, const double* c, const double* s, const std::uint16_t* in,
                      std::int64_t in_head_stride, std::uint16_t* out, std::int64_t out_head_stride,
                      std::int64_t heads, bool stream, double* scratch);
};

const PathOps& scalar_ops();
const PathOps& avx2_ops();
const PathOps& avx512_ops();
const PathOps& avx512_bf16_ops();
const PathOps& ops_for(cpu::Path path);

// The fdlibm minimax coefficients of sin and cos (numeric/fdlibm_sincos.h states their bounds).
using fdlibm::kS1, fdlibm::kS2, fdlibm::kS3, fdlibm::kS4, fdlibm::kS5, fdlibm::kS6;
using fdlibm::kC1, fdlibm::kC2, fdlibm::kC3, fdlibm::kC4, fdlibm::kC5, fdlibm::kC6;
// RN(2 pi) * 2^-64: converts the signed 64-bit fixed-point turn offset r (turns * 2^64) to radians.
inline constexpr double kTurnToRadian = 0x1.921fb54442d18p-62;

}  // namespace ropecheck::kernel::detail

// File: detail/ops.h
// The per-path primitives behind apply_rope and SinCosTable. Every path implements the same
// arithmetic, operation for operation (scalar.cpp is the reference; avx2.cpp and avx512.cpp are its
// twins), so that results agree bit for bit:
//
//  sincos_row   the reduction and polynomials of sincos_table.h, for n pairs at position p.
//  rotate_f32   per pair (a, b) of the block, in binary64 from the float inputs, with the table's
//  rotate_bf16  c~ = RN(RN(a) cos~), s~ = RN(RN(a) sin~) (a the attention factor, sincos_table.h):
//                   y_a = fma(x_a, c~, -(x_b * s~)),   y_b = fma(x_b, c~, x_a * s~),
//               then the rounding test below; identity pairs and pass-through elements copied bit
//               for bit. float32 outputs are RN32(y); bfloat16 outputs RN_bf16(RN32(y)).
//
// Fast-path error (the proof behind every "correctly rounded" figure). With |cos~ - cos| <=
// 2^-50 (sincos_table.h) and a_d = RN(a): |c~ - a cos| <= a_d 2^-50 + |a_d - a| + 2^-53 a_d <=
// a (2^-50 + 2^-52 + 2^-100), the same for s~. With S = |x_a| + |x_b| (exact inputs, binary32 or
// bfloat16 widened): the product x_b s~ adds 2^-53 |x_b| |s~|, the fma 2^-53 (|x_a| |c~| + |x_b s~|),
// the table S a (2^-50 + 2^-52), so |y - y_exact| <= a S (2^-50 + 2^-52 + 2^-52 + 2^-90) <
// a S 2^-49.41, where y_exact = a (x_a cos - x_b sin). No underflow or overflow: binary64 has
// ~900 binades of room around binary32 values times a < 2^64.
// Rounding test. e = RN(K RN(S)) with K = a_d 2^-49 (exact scaling) is >= a S 2^-49 (1 - 2^-51),
// so e exceeds the error above by >= 0.24 a S 2^-49; lo = RN(y - e) and hi = RN(y + e) move by at
// most 2^-53 (|y| + e) < 0.07 a S 2^-49 each, so lo <= y_exact <= hi. Rounding is monotone:
//   float32: RN32(lo) == RN32(hi) (bit patterns) proves RN32(y) = RN32(y_exact).
//   bfloat16: let f = RN_bf16 o RN32 (monotone). If f(lo) == f(hi) and neither RN32(lo) nor
//     RN32(hi) is a bf16 midpoint (low 16 bits 0x8000), no midpoint lies in [lo, hi] (a midpoint
//     m inside would give RN32(lo) <= m <= RN32(hi), equal to neither, so f(lo) < f(hi)), hence
//     RN_bf16 is constant on [lo, hi] and equals f there: f(y) = RN_bf16(y_exact).
// A component that fails (or whose e is not finite: an inf or NaN input) goes to slow_f32 /
// slow_bf16 below, which keep the fast result for non-finite or all-zero inputs (IEEE arithmetic
// of the formula, NaN canonical) and otherwise take ExactRotation's correctly rounded value. For
// a heuristically random output the test fails with probability ~2^-24 (e / ulp); near-cancellation
// outputs (|y| << S) fail far more often and pay the exact path.
#pragma once

#include <cstdint>

#include "cpu/path.h"
#include "kernel/rope_plan.h"
#include "numeric/fdlibm_sincos.h"

namespace ropecheck::kernel::detail {

struct RowShape {
  int dim = 0;                 // head_dim
  int offset = 0;              // o: the rotary part is [o, o + 2R); every other element passes through
  int block = 0;               // R: block pairs
  Layout layout = Layout::half;
  const std::uint8_t* pair_identity = nullptr;     // [R]: 1 = identity pair
  const std::uint8_t* element_rotates = nullptr;   // [2R + 64]: 1 = element of a rotating pair
                                                   // (relative to o; padded with zeros for vector loads)
  bool any_identity = false;
  double err_scale = 0x1p-49;  // K = RN(a) 2^-49, the rounding test's scale (above)
};

// The accurate path of one token: its position, the plan's exact rotation, and the caller's counts
// (components that took it; components it could not decide, see exact_rotation.h).
struct SlowPath {
  const ExactRotation* exact = nullptr;
  std::int64_t position = 0;
  std::int64_t* taken = nullptr;
  std::int64_t* unresolved = nullptr;
};

// The correctly rounded component for a lane whose rounding test failed (block pair k, inputs as
// stored, `fast` the fast path's output): `fast` itself for non-finite or all-zero inputs, else
// ExactRotation's value. Defined once (slow_path.cpp, no -m flags) for every path.
float slow_f32(const SlowPath& slow, int k, float x_a, float x_b, bool second, float fast);
std::uint16_t slow_bf16(const SlowPath& slow, int k, std::uint16_t x_a, std::uint16_t x_b, bool second, std::uint16_t fast);

// Copies the pass-through elements [0, o) and [o + 2R, dim) of one head vector (nothing in place).
void copy_passthrough(const RowShape& shape, const float* in, float* out);
void copy_passthrough(const RowShape& shape, const std::uint16_t* in, std::uint16_t* out);

// Multiplies a table row by the attention factor (c[k] = RN(a c[k]), the same for s); nothing when
// a == 1. One plain multiply per entry, the same on every path (called outside the path files).
void scale_row(double a, int n, double* c, double* s);

// The limbs of RopePlan::limb(0..3).
struct TurnLimbs {
  const std::uint64_t* limb[4];
};

struct PathOps {
  void (*sincos_row)(const TurnLimbs& g, int n, std::int64_t p, double* c, double* s);
  // Rotates `heads` head vectors of one token; head h starts at in + h * in_head_stride.
  // `stream` allows non-temporal stores where the output is suitably aligned (out of place only).
  // scratch: 64-byte aligned, room for 4 * dim doubles. `slow`: the token's accurate path.
  void (*rotate_f32)(const RowShape& shape, const double* c, const double* s, const float* in,
                     std::int64_t in_head_stride, float* out, std::int64_t out_head_stride, std::int64_t heads,
                     bool stream, double* scratch, const SlowPath& slow);
  void (*rotate_bf16)(const RowShape& shape, const double* c, const double* s, const std::uint16_t* in,
                      std::int64_t in_head_stride, std::uint16_t* out, std::int64_t out_head_stride,
                      std::int64_t heads, bool stream, double* scratch, const SlowPath& slow);
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

// File: detail/ops.h
// The per-path primitives behind apply_rope and SinCosTable. Every path implements the same
// arithmetic, operation for operation (scalar.cpp is the reference; avx2.cpp and avx512.cpp are its
// twins), so that results agree bit for bit:
//
//  sincos_row   the reduction and polynomials of sincos_table.h, for n pairs at position p.
//  rotate_f32   per pair (a, b) of the block, in binary64 from the float inputs, with the table's
//               c~ = RN(RN(a) cos~), s~ = RN(RN(a) sin~) (a the attention factor, sincos_table.h):
//                   y_a = fma(x_a, c~, -(x_b * s~)),   y_b = fma(x_b, c~, x_a * s~),
//               then the binary64 test below; the output is RN32(y).
//  rotate_bf16, rotate_f16  (numeric/small_floats.h's Bf16Bits, F16Bits)
//               level 1: the same formula in binary32 from c' = RN32(c~), s' = RN32(s~), then the
//               binary32 test below (bfloat16: lo and hi by their half-up keys; float16: RN_f16,
//               VCVTPS2PH imm8 0, of lo and hi), output RN16(y_exact); a lane that fails
//               takes level 2, the binary64 formula and its 16-bit test (retry_16, detail/retry.h),
//               output RN16(y). The SIMD paths first redo a step with a failed lane whole in
//               binary64 (a step: 8 or 16 lanes, the vector's width): bfloat16 by retry_16's test on
//               its normal range (level2_bf16), float16 by the threshold test below (test8h,
//               test16h); each passes a subset of retry_16's lanes with retry_16's outputs, and
//               only the lanes it leaves go to retry_16, so the lanes that reach level 3 are the
//               same on every path. Level 1 fails about 2^-13 of bfloat16's ordinary outputs and
//               2^-10 of float16's (float16 keeps 11 bits: measured ~0.6% on uniform inputs); with
//               the redo in SIMD, float16's binary32 level (16 lanes per AVX-512 vector against 8
//               in binary64) is the faster one.
//  All: a lane that fails its last fast test takes level 3, ExactRotation (slow_*), the only
//  outputs KernelStats counts as "slow". Identity pairs and pass-through elements are copied bit
//  for bit. The SIMD paths store every output of a head as computed, note the lanes whose test
//  failed, and redo those after the head (retry_*; in place from a copy of the head's inputs): no
//  branch in the hot loop.
// Adding a 16-bit format: its widening and RN16 in each path file (a scalar twin and the SIMD
// conversions), its retry_16 (retry.h) and slow_16 (below) overloads, a rotate_* entry in PathOps;
// the proofs below hold for any format whose precision is at most 12 bits and whose normals start
// at or above 2^-126.
//
// Binary64 error (the proof behind every "correctly rounded" figure). With |cos~ - cos| <=
// 2^-50 (sincos_table.h) and a_d = RN(a): |c~ - a cos| <= a_d 2^-50 + |a_d - a| + 2^-53 a_d <=
// a (2^-50 + 2^-52 + 2^-100) < a 2^-49.68, the same for s~. With S = |x_a| + |x_b| (exact inputs,
// binary32 or bfloat16 widened): the product x_b s~ adds 2^-53 |x_b| |s~|, the fma 2^-53 (|x_a| |c~| +
// |x_b s~|), the table S a (2^-50 + 2^-52), so |y - y_exact| <= a S (2^-50 + 2^-52 + 2^-52 + 2^-90) <
// a S 2^-49.41, where y_exact = a (x_a cos - x_b sin). No underflow or overflow: binary64 has
// ~900 binades of room around binary32 values times a in [2^-64, 2^64) (RopePlan refuses others),
// so e below is 0 only for a zero pair (M = 0).
// Binary64 test. e = RN(K M) with M = max(|x_a|, |x_b|) (exact; S <= 2M) and K = a_d 2^-48 (exact
// scaling) is >= a S 2^-49 (1 - 2^-52), so e exceeds the error above by >= 0.24 a S 2^-49; lo =
// RN(y - e) and hi = RN(y + e) move by at most 2^-53 (|y| + e) < 0.07 a S 2^-49 each (e <= a S
// 2^-48 (1 + 2^-52)), so lo <= y_exact <= hi. (The maximum, one instruction on AVX-512, replaces
// the sum |x_a| + |x_b|: one operation less per lane, failures at most twice as often, ~2^-24.)
// Rounding is monotone:
//   float32: RN32(lo) == RN32(hi) (bit patterns) proves RN32(y) = RN32(lo) = RN32(y_exact).
//   bfloat16 (level 2): lo and hi of one sign whose magnitudes round half up to the same bf16
//     pattern (by binary64's bits from 2^-126 on, on the 2^-133 grid below): then no bf16 midpoint
//     lies in (lo, hi], which holds y_exact (strictly inside: the margin), so RN_bf16(y_exact) is
//     that pattern with lo's sign (infinity from 2^128 - 2^119 on). No rounding to binary32 on the
//     way, hence no double rounding.
//   float16 (level 2): RN_f16(lo) == RN_f16(hi) by f16_from_double (one correct rounding of each
//     binary64 end, small_floats.h) proves RN_f16(y_exact) is that value (monotone, lo <= y_exact
//     <= hi); as for float32, an equal pair of signed zeros or infinities is that value too.
//   float16 (the SIMD paths' level 2 on whole steps; a binary64 test that needs only the one
//     binary64 -> binary32 rounding the hardware has, no binary64 -> binary16 instruction before
//     AVX512-FP16). With y32 = RN32(y), T = max(RN32(K16 M), 2^-14), K16 = RN32(a_d) 2^-22 (exact
//     scaling; in [2^-86, 2^42] since a is in [2^-64, 2^64)) and M in binary32 (exact), it passes when
//       |y32| >= T and y32's 13 low bits are not 0x1000,  or  M = 0 and y32 = 0 (a zero pair);
//     output RN_f16(y32) (VCVTPS2PH imm8 0, or f16_from_float). Proof. (1) Every float16 rounding
//     boundary (a midpoint of two adjacent float16 values, subnormal ones (2j+1) 2^-25 included, and
//     the overflow threshold 65520) is a binary32 value, and each of magnitude >= 2^-14 has the 13
//     low bits 0x1000 (2^e (1 + (2j+1) 2^-11) for e in [-14, 15]: significand bit 12 set, bits 0-11
//     clear; 65520 = 2^15 (1 + 2047 2^-11)). So a passing y32 is not a boundary: of magnitude
//     >= 2^-14 it lacks the pattern, and the smaller boundaries lie below it. (2) Only y32 among
//     binary32 values lies within |y| 2^-25 of y: y lies between two adjacent binary32 values of its
//     binade [2^q, 2^(q+1)), spaced 2^(q-23); y32 is the nearer and every other is >= 2^(q-24) >
//     |y| 2^-25 away, or y = 2^q is itself binary32 (y32 = y) with its nearest other 2^(q-25) =
//     |y| 2^-25 away. (3) |y - y_exact| < |y| 2^-25: T and K16 are normal (K16 M >= 2^-86 2^-24),
//     so T >= K16 M (1 - 2^-24) >= a M 2^-22 (1 - 2^-22.9); |y32 - y| <= 2^(q-24) <= |y| 2^-24 gives
//     |y| >= |y32| / (1 + 2^-24) >= a M 2^-22 (1 - 2^-22), so |y| 2^-25 >= a M 2^-47 (1 - 2^-22),
//     while |y - y_exact| <= a S 2^-49.41 <= a M 2^-48.41 (above; S <= 2M): 2^1.41 to spare.
//     (4) Let m be a boundary in the closed interval between y_exact and y32. That interval lies in
//     [y_exact, y] u [y, y32] (in whichever order they come). In [y, y32] the only binary32 value is
//     y32 (y32 = RN32(y)); in [y_exact, y] every point is within |y - y_exact| < |y| 2^-25 of y, so
//     by (2) m = y32, which (1) excludes. So RN_f16 is constant on the interval: RN_f16(y_exact) =
//     RN_f16(y32). A zero pair is y = +-0 exactly (the binary64 formula on zeros), passing with the
//     zero's own sign. A subset of retry_16's lanes: retry_16's lo and hi lie within e (1 + 2^-52) +
//     2^-53 |y| < |y| 2^-25 of y (e = a_d M 2^-48 <= |y| 2^-26 (1 + 2^-21) here), where by (2) and
//     (1) no boundary lies, so they round alike, to RN_f16(y_exact). Non-finite inputs: M is +inf
//     or the lane's y is NaN (an input NaN reaches both components; a maximum that drops it is
//     harmless, since NaN fails both//     conditions), and for finite inputs |y| <= a 2M (1 + 2^-49) < 2^81, so y32 = +-inf exactly when
//     an input is infinite; then T = +inf and the lane passes only with y32 = +-inf, whose output
//     +-inf is the IEEE value of the formula that retry_16 hands slow_16, which keeps it without
//     counting it (KernelStats is the same on every path).
//   Both fail when x_a or x_b is not finite (inf or NaN; tested on the inputs, since a maximum may
//   drop a NaN, or on lo as avx2.cpp's test8 argues). A zero pair (e = 0, the exact value 0)
//   passes: its output is the zero IEEE arithmetic of the formula gives, with that sign (the
//   float32 SIMD paths compute hi as -RN(-y - e), the same value, so that y = -0 passes too).
// Binary32 error (bfloat16 and float16, level 1; only when RN32(a) is in [2^-60, 2^60], else K'
// is NaN and every lane goes to level 2). A table entry c~ is 0 or at least a_d 2^-61.4 (a reduced angle is 0
// or >= 2pi 2^-64), so c' is normal: |c' - a cos| <= 2^-24 |c~| + a 2^-49.68 <= 2^-24 a |cos| +
// a 2^-49.6, and |c'|, |s'| <= a (1 + 2^-23). Each binary32 rounding adds 2^-24 of its result (and
// at most 2^-150 if it underflows): |u - x_b s'| <= 2^-24 a |x_b| (1 + 2^-23) for u = RN32(x_b s'),
// the fma 2^-24 a S (1 + 2^-22), the table 2^-24 a (|x_a cos| + |x_b sin|) + a S 2^-49.6, so
// |y - y_exact| <= 3 * 2^-24 a S (1 + 2^-21) + 2^-149.
// Binary32 test (bfloat16 and float16). e = RN32(K' RN32(S)) with K' = RN32(RN32(a) 4.5 2^-24),
// lo = RN32(y - e), hi = RN32(y + e). With 2^-100 <= e <= 2^100: no rounding of e underflows
// (RN32(S) is exact when subnormal), so e is within 4 * 2^-24 of 4.5 * 2^-24 a S; a S >= 2^-78.1,
// so 2^-149 < 2^-46 * 2^-24 a S; a S <= 2^121.9, so nothing overflows (y, lo, hi finite). Then
// e - |y - y_exact| >= 1.49 * 2^-24 a S, more than lo's or hi's own rounding (2^-24 (|y| + e) +
// 2^-150 <= 1.001 * 2^-24 a S): lo < y_exact < hi, strictly. Both ends are finite binary32 values,
// and hi - lo >= 2e (1 - 2^-22) > 2^-99.1.
//   bfloat16: it passes when e is in that range and key(lo) == key(hi), key(v) = (bits(v) + 2^15)
//     >> 16 on the signed binary32 pattern: the sign bit, then |v| rounded half up to bfloat16's
//     grid (bf16 patterns are binary32's with 16 low bits dropped, subnormals included, so the
//     integer add is that rounding; it cannot carry into the sign for a finite v, and gives 0x7F80,
//     infinity, from the overflow midpoint 2^128 - 2^119 on). Equal keys: one sign, and |v| -> half
//     up, non-decreasing and stepping exactly at the bf16 midpoints, is constant on the magnitudes
//     between the ends, so no midpoint lies in the open interval (lo, hi) that holds y_exact; y_exact
//     is no midpoint and RN_bf16(y_exact) is that constant: the output is key(lo) as bf16 bits. Two
//     integer operations per end and one narrowing, where two correct roundings (ties to even: five
//     operations each without avx512_bf16) would decide nearly the same thing (it differs from
//     RN_bf16(lo) == RN_bf16(hi) only when an end is exactly a midpoint). Every path tests the keys
//     (the scalar twin: retry.h's level1_16), so the same lanes pass everywhere. A passing y lies
//     strictly between lo and hi (e > 1.5 ulp(y)) and is normal (else e > |y| and the signs differ),
//     so it is no midpoint: avx512-bf16 outputs VCVTNEPS2BF16(y), the same value (a zero pair's y
//     is a signed zero, which it keeps).
//   float16: it passes when e is in that range and RN_f16(lo) == RN_f16(hi) (VCVTPS2PH, subnormals
//     and overflow to infinity included, is monotone), output RN_f16(lo) = RN_f16(y_exact).
//   A zero pair (e = S = 0: y is the binary64 formula's zero, the same operations on zeros of the
//   same signs, since c' and c~ are zero together and share their sign) passes, output the
//   format's zero with lo's sign (lo = y - 0 keeps y's). Non-finite inputs make S (and e) +inf or
//   NaN, outside the range.
// Failure rates: a test fails when a rounding boundary of the output format lies within e of y:
// for outputs of ordinary size (|y| ~ S), about 2^-24 (binary64, float32 outputs), 2^-13 (binary32,
// bfloat16 outputs), 2^-10 (binary32, float16 outputs), 2^-13 (float16's threshold test: the
// midpoint pattern) and 2^-39 or
// 2^-36 (binary64, level 2);
// near-cancellation outputs (|y| << S) fail far more often. The slow_* functions keep the fast result
// for non-finite or all-zero inputs (IEEE arithmetic of the binary64 formula, NaN canonical) and
// otherwise return ExactRotation's correctly rounded value.
#pragma once

#include <cstdint>
#include <type_traits>

#include "cpu/path.h"
#include "kernel/detail/floor.h"
#include "kernel/rope_plan.h"
#include "numeric/small_floats.h"
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
  bool pass_through = false;   // the head has elements outside [o, o + 2R)
  double err_scale = 0x1p-48;  // K = RN(a) 2^-48, the binary64 test's scale (above)
  float err_scale32 = 0x1.2p-22f;  // K' = RN32(RN32(a) 4.5 2^-24), the bfloat16 binary32 test's scale (above);
                                 // NaN when RN32(a) is outside [2^-60, 2^60]: every lane retries
  float err_scale16 = 0x1p-22f;  // K16 = RN32(a) 2^-22, the float16 threshold test's scale (above; SIMD level 2)
};

// The accurate path of one token: its position, the plan's exact rotation, and the caller's counts
// (components that took it; components it could not decide, see exact_rotation.h; components whose
// first fast test failed, counted by each path where it redoes them: the same on every path).
struct SlowPath {
  const ExactRotation* exact = nullptr;
  std::int64_t position = 0;
  std::int64_t* taken = nullptr;
  std::int64_t* unresolved = nullptr;
  std::int64_t* redone = nullptr;
};

// The correctly rounded component for a lane whose rounding test failed (block pair k, inputs as
// stored, `fast` the fast path's output): `fast` itself for non-finite or all-zero inputs, else
// ExactRotation's value. Defined once (slow_path.cpp, no -m flags) for every path.
float slow_f32(const SlowPath& slow, int k, float x_a, float x_b, bool second, float fast);
Bf16Bits slow_16(const SlowPath& slow, int k, Bf16Bits x_a, Bf16Bits x_b, bool second, Bf16Bits fast);
F16Bits slow_16(const SlowPath& slow, int k, F16Bits x_a, F16Bits x_b, bool second, F16Bits fast);

// Copies the pass-through elements [0, o) and [o + 2R, dim) of one head vector (nothing in place).
void copy_passthrough(const RowShape& shape, const float* in, float* out);
void copy_passthrough(const RowShape& shape, const Bf16Bits* in, Bf16Bits* out);
void copy_passthrough(const RowShape& shape, const F16Bits* in, F16Bits* out);

// Multiplies a table row by the attention factor (c[k] = RN(a c[k]), the same for s); nothing when
// a == 1. One plain multiply per entry, the same on every path (called outside the path files).
void scale_row(double a, int n, double* c, double* s);

// The SIMD paths' head loop (detail/head_groups.h) takes heads in groups of kGroupHeads: it runs
// every step of the group, listing the failed ones branch-free, then redoes the list. A 16-bit
// format fails level 1 on a few percent of its steps (float16: ~16% of the AVX-512 half layout's),
// so a branch per head into its fixes was mispredicted about as often as taken; per group it is
// nearly always taken.
inline constexpr int kGroupHeads = 8;
// A worker's memory for the rotations of one token (apply_rope.cpp allocates it once per worker).
struct Scratch {
  double* table = nullptr;          // 64-byte aligned, 4 (R + 16) doubles: a path's copies of the row
  std::uint32_t* fails = nullptr;   // kGroupHeads (R / 4 + 1): the failed steps' lane masks (AVX2's
                                    // interleaved heads have the most steps, 2R / 8)
  std::uint32_t* at = nullptr;      // as many: where each is, (head in the group << 17) | first lane
  void* copy = nullptr;             // kGroupHeads 2R elements of 4 bytes: in place, the group's rotary inputs
  static std::size_t bytes(int block_pairs);  // what the four need, 64-byte aligned pieces
  static Scratch carve(void* memory, int block_pairs);  // memory: 64-byte aligned, bytes() long
};

// The limbs of RopePlan::limb(0..3).
struct TurnLimbs {
  const std::uint64_t* limb[4];
};

struct PathOps {
  void (*sincos_row)(const TurnLimbs& g, int n, std::int64_t p, double* c, double* s);
  // Rotates `heads` head vectors of one token; head h starts at in + h * in_head_stride (in place
  // when in == out). `slow`: the token's accurate path.
  void (*rotate_f32)(const RowShape& shape, const double* c, const double* s, const float* in,
                     std::int64_t in_head_stride, float* out, std::int64_t out_head_stride, std::int64_t heads,
                     const Scratch& scratch, const SlowPath& slow);
  void (*rotate_bf16)(const RowShape& shape, const double* c, const double* s, const Bf16Bits* in,
                      std::int64_t in_head_stride, Bf16Bits* out, std::int64_t out_head_stride,
                      std::int64_t heads, const Scratch& scratch, const SlowPath& slow);
  void (*rotate_f16)(const RowShape& shape, const double* c, const double* s, const F16Bits* in,
                     std::int64_t in_head_stride, F16Bits* out, std::int64_t out_head_stride,
                     std::int64_t heads, const Scratch& scratch, const SlowPath& slow);
  // The rotation of element type E (float, Bf16Bits, F16Bits).
  template <typename E>
  auto rotate() const {
    if constexpr (std::is_same_v<E, float>) return rotate_f32;
    else if constexpr (std::is_same_v<E, Bf16Bits>) return rotate_bf16;
    else return rotate_f16;
  }
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

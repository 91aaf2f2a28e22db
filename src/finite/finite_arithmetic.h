// File: finite_arithmetic.h
// The arithmetic every finite-precision verdict shares. Which of the paper's positional
// constructions survive float32 and bfloat16 (argmax_at_distance.h, head_strictness.h, cos_710.h,
// shift_invariance.h): each construction is run through a rotation implementation (this kernel,
// kernel/apply_rope.h, or one of the two baselines of accuracy/baselines.h) and its activations are
// dot products accumulated in float32 in a fixed order (numeric/float32_dot.h's
// dot_f32_sequential); each result stands next to the exact verdict for the same inputs, certified
// in MPFI.
//
// Inputs. A construction's real vectors are rounded once to the dtype (round to nearest even),
// and the exact verdicts are for those rounded inputs, so "exact" and "finite" differ only by the
// arithmetic of the rotation and the dot product, never by the data. Keys that are rotations of
// the query (R^r q) are formed from an MPFI enclosure of the exact rotation of the rounded query and
// rounded once (certified: both endpoints must round alike, else std::logic_error).
//
// Dtypes: the kernel dtypes f32 and bf16 (numeric/dtype.h). A construction given an empty dtype
// list or f64 throws InputError("--dtype", ...); round_to and rotate throw std::invalid_argument
// for f64 (a programming error).
//
// Layout: interleaved (chunk k = elements 2k, 2k+1, as rotation/rotation.h), single thread.
// Every path of the kernel computes bit-identical rotations (cpu/path.h), so the verdicts do not
// depend on the path; the results name the one that ran.
//
// Accuracy figures: margins, errors and holds-up-to limits are measured values of one
// deterministic computation (exhaustive over the stated ranges); the only bounds are the kernel's
// shift-invariance bound (accuracy/shift_invariance_bound.h, proved from the ulp contract) and
// the exact verdicts (certified enclosures).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "accuracy/baselines.h"
#include "cpu/path.h"
#include "kernel/rope_plan.h"
#include "numeric/dtype.h"

namespace ropecheck::finite {

// The dtypes the finite-precision verdicts run in (their --dtype; "both" is the two). float16 is a
// kernel dtype the verdicts do not cover yet: its 5-bit exponent overflows the constructions'
// logits, which the constructions' statements would have to take into account.
inline constexpr Dtype kFiniteDtypes[] = {Dtype::f32, Dtype::bf16};

// Who rotates: this kernel, or a baseline (accuracy/baselines.h: accuracy::kImplementations).
using accuracy::Implementation;

// Largest shift exponent the baselines are run at: engines store positions as int32 (and the
// f32-angle baseline has lost every digit long before).
inline constexpr int kBaselineMaxLog2 = 31;
// Returns: the largest exponent e of a position 2^e that rotator r is run at: `requested` for the
// kernel, min(requested, kBaselineMaxLog2) for a baseline.
inline int max_log2_for(Implementation r, int requested) { return r == Implementation::kernel ? requested : std::min(requested, kBaselineMaxLog2); }

// Throws InputError("--dtype", "f32, bf16 or both", ...) when dtypes is empty or holds f64.
void check_dtypes(const std::vector<Dtype>& dtypes);

// Returns: x rounded to the nearest value of dtype t (ties to even), as a float. t: f32 or bf16.
float round_to(Dtype t, double x);

// Returns: the rotated tensor [positions.size()][heads][plan.dim()] of `in` (same shape, values
// representable in t) by rotator r in dtype t (f32 or bf16), as floats (bf16 widened exactly).
// Throws InputError as apply_rope does (shape disagreements).
std::vector<float> rotate(Implementation r, Dtype t, const kernel::RopePlan& plan, std::span<const std::int64_t> positions,
                          std::span<const float> in, std::int64_t heads, cpu::Path path);

}  // namespace ropecheck::finite

// File: apply_rope.h
// The production RoPE kernel: rotates every pair of every head of every token of a float32,
// bfloat16 or float16 tensor (float, Bf16Bits, F16Bits: numeric/small_floats.h) by p_t * g_k, for any spectrum variant and layout (rope_plan.h).
//
// Accuracy contract: CORRECTLY ROUNDED. Every rotary output equals the exact map
//     y_a = a (x_a cos(p g_k) - x_b sin(p g_k)),   y_b = a (x_a sin(p g_k) + x_b cos(p g_k))
// (a the plan's attention factor, g_k the exact real frequency, p any int64 position, x the
// input, of any kernel dtype) rounded to nearest even in the output format, subnormals included,
// overflow to infinity: proved in detail/ops.h (the fast levels' error bounds and rounding tests) and
// exact_rotation.h (the accurate path's Ziv loop, capped; a component it cannot decide is counted
// in KernelStats::unresolved, never seen). Measured by `ropecheck kernel-check` and the tests
// against an independent MPFR reference (accuracy/rope_reference.h).
// Semantics shared by every path, bit for bit: round to nearest even; subnormals kept (the
// kernel sets the default floating-point environment for the call, cpu/float_environment.h,
// whatever the caller's FTZ/DAZ or rounding mode); non-finite inputs follow IEEE arithmetic of the
// binary64 formula (inf * 0 is NaN), a NaN output is the canonical quiet NaN (f32 0x7FC00000,
// bf16 0x7FC0, f16 0x7E00); an exactly zero result takes the sign that IEEE arithmetic of the
// formula gives; identity pairs and pass-through elements are copied bit for bit.
//
// Tensors are views [tokens][heads][head_dim] with head_dim == plan.dim() contiguous and token and
// head strides in elements (any non-negative values, e.g. q inside a fused qkv buffer: token
// stride 3*H*d, head stride d). `in` and `out` are either the same view (in place) or do not
// overlap; out rows must not overlap each other.
#pragma once

#include <cstdint>
#include <span>

#include "cpu/path.h"
#include "kernel/rope_plan.h"
#include "kernel/sincos_table.h"
#include "numeric/small_floats.h"

namespace ropecheck::kernel {

// The accuracy contract above as numbers: a correctly rounded output is within half an ulp of the
// exact value (UPPER BOUNDS, proved; in the floored metric of ulp_error.h too, whose ulp is never
// smaller).
inline constexpr double kProvedUlpBound = 0.5;  // every kernel dtype

template <typename T>
struct TensorView {
  T* data = nullptr;
  std::int64_t tokens = 0;
  std::int64_t heads = 1;
  std::int64_t token_stride = 0;  // elements between token t and t+1
  std::int64_t head_stride = 0;   // elements between head h and h+1
};

// Returns: a dense [tokens][heads][dim] view of `data`.
template <typename T>
TensorView<T> dense_view(T* data, std::int64_t tokens, std::int64_t heads, int dim) {
  return TensorView<T>{data, tokens, heads, heads * dim, dim};
}

// What a call did, added to by apply_rope when KernelOptions::stats is set (the same counts for
// every path and thread count: the rounding test is the same arithmetic everywhere).
struct KernelStats {
  std::int64_t outputs = 0;     // rotary components written (identity pairs, pass-through excluded)
  std::int64_t slow = 0;        // components the fast tests sent to the accurate path (ops.h level 3)
  std::int64_t unresolved = 0;  // of those, components the accurate path could not decide at its
                                // cap (exact_rotation.h; rounded from 2048-bit values, never seen)
  std::int64_t redone = 0;      // components whose first fast test failed, redone by the later
                                // levels (ops.h; float32: = slow); the same on every path
  double slow_share() const { return outputs > 0 ? static_cast<double>(slow) / static_cast<double>(outputs) : 0.0; }
};

struct KernelOptions {
  cpu::Path path = cpu::default_path();
  int threads = 1;  // in [1, cpu::kMaxThreads] (cpu/thread_count.h); splits tokens, results bit-identical to one thread
  KernelStats* stats = nullptr;  // optional: counts added to (not reset)
};

// Rotates `in` into `out` at `positions` (one int64 per token). Throws InputError when the views
// disagree with the plan or each other (dim, token counts, positions count, overlap), or threads
// is outside [1, cpu::kMaxThreads].
void apply_rope(const RopePlan& plan, std::span<const std::int64_t> positions, TensorView<const float> in,
                TensorView<float> out, const KernelOptions& options = {});
void apply_rope(const RopePlan& plan, std::span<const std::int64_t> positions, TensorView<const Bf16Bits> in,
                TensorView<Bf16Bits> out, const KernelOptions& options = {});
void apply_rope(const RopePlan& plan, std::span<const std::int64_t> positions, TensorView<const F16Bits> in,
                TensorView<F16Bits> out, const KernelOptions& options = {});

// The same with a precomputed table (its positions, its plan): for callers applying many tensors
// (q and k, every layer) at the same positions.
void apply_rope(const SinCosTable& table, TensorView<const float> in, TensorView<float> out,
                const KernelOptions& options = {});
void apply_rope(const SinCosTable& table, TensorView<const Bf16Bits> in, TensorView<Bf16Bits> out,
                const KernelOptions& options = {});
void apply_rope(const SinCosTable& table, TensorView<const F16Bits> in, TensorView<F16Bits> out,
                const KernelOptions& options = {});

}  // namespace ropecheck::kernel

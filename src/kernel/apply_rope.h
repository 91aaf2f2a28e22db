// File: apply_rope.h
// The production RoPE kernel: rotates every pair of every head of every token of a float32 or
// bfloat16 tensor by p_t * g_k, for any spectrum variant and layout (rope_plan.h).
//
// Accuracy contract (proved in the comments of sincos_table.h and detail/ops.h, measured by
// `ropecheck kernel-check` and tests/kernel/apply_rope_test.cpp against MPFR):
//   float32: each output component y is within 0.5 + 2^-25 ulp of the exact rotation of the
//            float32 input by the exact angle p * g_k, for every int64 position p, where
//            ulp = max(ulp_f32(y), 2^-24 * ||(x_a, x_b)||) (the ulp floored at 2^-24 times the
//            pair's norm, so that cancellation near zero is measured fairly). Arithmetic in binary64
//            (x_a cos - x_b sin with one FMA), rounded once to float32.
//   bfloat16: within 0.5 + 2^-14 bf16-ulp, ulp floored at 2^-8 * ||(x_a, x_b)||. Arithmetic in
//            binary32 (the table rounded to float32, one FMA), rounded once to bf16 (RNE).
// Semantics shared by every path, bit for bit: round to nearest even; subnormals kept (the
// kernel sets the MXCSR to its default for the call, whatever the caller's FTZ/DAZ or rounding
// mode); a NaN output is the canonical quiet NaN (f32 0x7FC00000, bf16 0x7FC0); infinities follow
// IEEE arithmetic of the formula (inf * 0 is NaN); identity pairs and pass-through elements are
// copied bit for bit.
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

namespace ropecheck::kernel {

// The accuracy contract above as numbers, in the floored metric of ulp_error.h: every output of
// every path is within these many ulp (UPPER BOUNDS, proved in detail/ops.h).
inline constexpr double kProvedUlpBoundF32 = 0.5 + 0x1p-25;
inline constexpr double kProvedUlpBoundBf16 = 0.5 + 0x1p-14;

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
  std::int64_t slow = 0;        // components the rounding test sent to the accurate path
  std::int64_t unresolved = 0;  // of those, components the accurate path could not decide at its
                                // cap (exact_rotation.h; rounded from 2048-bit values, never seen)
};

struct KernelOptions {
  cpu::Path path = cpu::default_path();
  int threads = 1;  // >= 1; splits tokens, results bit-identical to one thread
  KernelStats* stats = nullptr;  // optional: counts added to (not reset)
};

// Rotates `in` into `out` at `positions` (one int64 per token). Throws InputError when the views
// disagree with the plan or each other (dim, token counts, positions count, overlap, threads < 1).
void apply_rope(const RopePlan& plan, std::span<const std::int64_t> positions, TensorView<const float> in,
                TensorView<float> out, const KernelOptions& options = {});
void apply_rope(const RopePlan& plan, std::span<const std::int64_t> positions, TensorView<const std::uint16_t> in,
                TensorView<std::uint16_t> out, const KernelOptions& options = {});

// The same with a precomputed table (its positions, its plan): for callers applying many tensors
// (q and k, every layer) at the same positions.
void apply_rope(const SinCosTable& table, TensorView<const float> in, TensorView<float> out,
                const KernelOptions& options = {});
void apply_rope(const SinCosTable& table, TensorView<const std::uint16_t> in, TensorView<std::uint16_t> out,
                const KernelOptions& options = {});

}  // namespace ropecheck::kernel

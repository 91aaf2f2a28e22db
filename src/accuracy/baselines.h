// File: baselines.h
// Two in-project RoPE strategies the way inference engines compute the angle, kept as
// measurement baselines for `kernel-check`, the benchmarks and the finite-precision verdicts (they
// are deliberately not accurate at large positions; that is what they are here to show).
//   f32-angle     inv_freq_k = fl32(theta^(-2k/d)) (HF / vLLM: powf per pair), angle = fl32(p * inv_freq_k)
//                 with p converted to float32, then cosf/sinf of that float angle, each multiplied
//                 in float32 by fl32(a), the attention factor (transformers' forward:
//                 `emb.cos() * self.attention_scaling` on float32 tensors, YaRN and LongRoPE alike);
//                 rotation in float32 (x_a c - x_b s), output rounded to the tensor's dtype (for
//                 bf16 once, where transformers would round cos, sin and each product to bf16).
//                 For float16 tensors this is ggml's CPU arithmetic (ggml-cpu rope: a float32 angle,
//                 float32 cosf/sinf times mscale, float32 products, each output converted once with
//                 GGML_FP32_TO_FP16), except that ggml forms the frequencies as cumulative float
//                 products theta_scale^k (a few float ulps of frequency apart from fl32(g_k)).
//   f64-angle     inv_freq_k in double (pow), angle = fl64(p * inv_freq_k), double sin/cos (libm)
//                 times a in double, rotation in double, rounded once to float32; for bfloat16 outputs that float is
//                 then rounded to bf16 (double -> float -> bf16: a double rounding, which can miss the correctly
//                 rounded bf16 by one bf16 ulp when the float lands on a bf16 tie; a baseline may).
// NaN outputs are the canonical quiet NaN and 16-bit roundings are small_floats.h's, as in the kernel.
// Same views, geometry (rotary offset and width, pass-through channels copied), layouts, identity
// pairs and variants as apply_rope (the frequencies are the spectrum's own, evaluated in float or
// double: frequencies<float>/<double>); zero-frequency pairs with a != 1 are scaled, as cos 0 * a.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernel/apply_rope.h"

namespace ropecheck::accuracy {

// What rotates a tensor where a caller chooses (`ropecheck apply --impl`, Python's impl=,
// kernel-check's rows, the finite verdicts, the report): the production kernel or a baseline.
// kImplementations is the one list of them and of their names; a new baseline is an entry here and
// its arithmetic in baselines.cpp.
enum class Implementation { kernel, f32_angle, f64_angle };

struct ImplementationInfo {
  Implementation value;
  std::string_view name;  // the --impl / impl= spelling
};
inline constexpr ImplementationInfo kImplementations[] = {
    {Implementation::kernel, "kernel"},
    {Implementation::f32_angle, "f32-angle"},
    {Implementation::f64_angle, "f64-angle"},
};

// Returns: every implementation, the kernel first (kImplementations' order).
std::vector<Implementation> all_implementations();
// Returns: every baseline: all_implementations() without the kernel.
std::vector<Implementation> baselines();
// Returns: "kernel", "f32-angle" or "f64-angle".
std::string implementation_name(Implementation i);
// Returns: the implementation `name` names. Throws InputError(input, "kernel, f32-angle or
// f64-angle", name) for anything else.
Implementation parse_implementation(const std::string& name, const std::string& input);

// Rotates with baseline b (not Implementation::kernel: std::invalid_argument). Same contract for
// arguments and errors as apply_rope (single thread, scalar code).
// E: float, Bf16Bits or F16Bits (numeric/small_floats.h).
template <typename E>
  requires(dtype_of<E> != Dtype::f64)
void apply_rope_baseline(Implementation b, const kernel::RopePlan& plan, std::span<const std::int64_t> positions,
                         kernel::TensorView<const E> in, kernel::TensorView<E> out);

// Rotates with implementation i: apply_rope(plan, positions, in, out, options) for the kernel,
// apply_rope_baseline otherwise (which runs on one thread, whatever options say).
template <typename E>
  requires(dtype_of<E> != Dtype::f64)
void apply_rope_with(Implementation i, const kernel::RopePlan& plan, std::span<const std::int64_t> positions,
                     kernel::TensorView<const E> in, kernel::TensorView<E> out, const kernel::KernelOptions& options);

}  // namespace ropecheck::accuracy

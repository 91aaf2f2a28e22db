// File: kernel_fuzz.h
// `ropecheck fuzz --target kernel`: the production RoPE kernel (every path this CPU runs) against
// the MPFR reference (rope_reference.h) on adversarial inputs, looking for an output that breaks
// the kernel's contract (apply_rope.h: every output correctly rounded, f32 and bf16; figures
// in the floored metric of ulp_error.h), a path that disagrees with the scalar twin, or a special
// (inf, NaN, -0) with the wrong IEEE result.
//
// Candidates (pure functions of (seed, index) through CounterRng): positions from bit patterns
// (any int64, weighted to 0, +-1, 2^k +- 1, 2^24, 2^31, 2^40, INT64_MIN/MAX and the near-returns
// 44, 710, 103993, 104348 of g = 1), every pair of the spectrum, inputs from bit patterns and edge
// values (signed zeros, subnormals, the largest finite, +-1) and pairs built near cancellation for
// the exact angle, in f32 and bf16, interleaved and half layouts.
// kernel_candidates.h draws them: blocks of one position times every pair; one block in eight runs
// the configuration as p-rope 0.75, whose identity pairs must copy -0 and NaN payloads bit for bit.
// A run keeps at most 64 documents (the first in candidate order); its log counts every violation.
// Tests substitute a faulty kernel through detail/kernel_fuzz_seam.h.
// Each output is checked by kernel_output_check.h; violations are written as counterexample
// documents (kernel_counterexample.h: the format and its replay).
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "numeric/dtype.h"

namespace ropecheck::accuracy {

struct KernelFuzzOptions {
  std::string config = "gemma-7b";   // a spectrum configuration (spectrum/config.h)
  std::optional<std::string> model;       // instead: a model's layer type (its geometry, layout, factor)
  std::optional<std::string> layer_type;  // with model: the layer type (default: the first with RoPE)
  double budget_seconds = 10;
  std::uint64_t seed = 1;
  long long max_candidates = 0;      // 0: until the budget ends
};

struct KernelFuzzResult {
  long long tried = 0;               // candidate pairs (position, pair, input, dtype, layout)
  long long outputs_checked = 0;     // output components compared with the reference
  long long undecided = 0;           // reference rounding test undecided (never counted as errors)
  // Per kernel dtype (kKernelDtypes' order; the accessors below): the sampled maximum (a LOWER
  // bound of the true maximum) and the worst element, "x=%a ref=%a got=%a" style.
  std::array<double, kKernelDtypes.size()> max_ulps{};
  std::array<std::string, kKernelDtypes.size()> worst_elements;
  double max_ulp(Dtype f) const { return max_ulps[kernel_dtype_index(f)]; }
  const std::string& worst(Dtype f) const { return worst_elements[kernel_dtype_index(f)]; }
  std::vector<nlohmann::json> counterexamples;  // documents of kernel_counterexample.h
  double seconds = 0;
};

// With a model, the candidates use its layout only and no p-rope variant runs (a model is what it
// is); the counterexample documents name the model and layer type. Throws InputError for budget
// <= 0, an unknown config or model, a layer type the model lacks.
KernelFuzzResult fuzz_kernel(const KernelFuzzOptions& options, std::ostream& log);

}  // namespace ropecheck::accuracy

// File: audit.h
// Audits RoPE outputs against the exact rotation of their inputs: the engine behind `ropecheck
// audit` (another implementation's .npy output) and `ropecheck kernel-check` (this kernel's paths
// and the baselines on a sampled sweep).
//
// Every output element is measured (rope_reference.h for the exact values, ulp_error.h for the
// metric "ulp floored at 2^-24 x pair norm"): the figures are exhaustive over the given tensor, so
// its maximum is the exact maximum for that input, and only a lower bound (sampled) for the
// implementation on other inputs.
//
// Threads split the tokens into contiguous chunks, each with its own reference (own mpfr_t's);
// the per-chunk accumulators are merged in token order: the result is identical for every thread
// count.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernel/rope_plan.h"
#include "accuracy/rope_reference.h"
#include "accuracy/ulp_error.h"
#include "spectrum/request.h"

namespace ropecheck::accuracy {

struct MeasureOptions {
  int threads = 1;                                  // >= 1
  unsigned precision_bits = kReferencePrecisionBits;  // the reference's working precision
  bool per_head = false;  // one accumulator per (output, head) instead of per output
};

// Measures each of `outputs` against the exact rotation of `input`. input and every output are
// dense [tokens][heads][plan.dim()] arrays of float (Dtype::f32) or bf16 bit patterns
// (std::uint16_t, Dtype::bf16); positions has one entry per token. Returns one accumulator per
// output, in order (with per_head: heads accumulators per output, output-major). Pairs with a non-finite input are counted as specials: the expected output
// is the IEEE evaluation of x_a cos - x_b sin, x_a sin + x_b cos with cos, sin rounded to double
// (a copy for identity pairs and pass-through elements); NaN must match NaN, other values exactly.
// Throws InputError for threads < 1 or a positions count that differs from tokens;
// std::invalid_argument for format f64 (not a kernel dtype).
std::vector<ErrorAccumulator> measure_outputs(const kernel::RopePlan& plan, Dtype format, std::span<const std::int64_t> positions,
                                              std::int64_t heads, const void* input, const std::vector<const void*>& outputs,
                                              const MeasureOptions& options = {});

// `ropecheck audit`: the files and settings of one audit.
struct AuditRequest {
  std::string input_path, positions_path, output_path;  // .npy files
  kernel::Layout layout = kernel::Layout::interleaved;
  Dtype format = Dtype::f32;  // f32 or bf16 (f64: std::invalid_argument)
  SpectrumRequest spectrum;  // --dim defaults to the input's last dimension
  MeasureOptions measure;
};

struct AuditResult {
  std::string spectrum;  // the plan's description
  kernel::Layout layout = kernel::Layout::interleaved;
  Dtype format = Dtype::f32;
  std::vector<std::int64_t> shape;
  std::int64_t batch = 1, tokens = 0, heads = 1;
  std::int64_t min_position = 0, max_position = 0;
  unsigned precision_bits = 0;
  int threads = 1;
  ErrorAccumulator errors{Dtype::f32};
};

// Reads the three .npy files and measures the output. Throws InputError naming the flag (--input,
// --positions, --output, --dim, ...): unreadable or malformed files, a dtype other than '<f4'
// (f32) or '<u2' (bf16), a shape other than [..., tokens, heads, head_dim] or [tokens, head_dim],
// an odd head_dim, a head_dim that differs from --dim, an output whose shape or dtype differs from
// the input's, a positions count other than tokens (leading batch dimensions share the positions).
AuditResult audit_files(const AuditRequest& request);

// The report: the metric's definition, max and median ulp, share correctly rounded, specials,
// the per-decade table (elements, max ulp, max absolute and phase error), the worst element.
std::string format_audit(const AuditResult& result);
nlohmann::json audit_json(const AuditResult& result);

// The per-decade table of one accumulator (rows: decades with elements).
std::string format_decade_table(const ErrorAccumulator& errors);

}  // namespace ropecheck::accuracy

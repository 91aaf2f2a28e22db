// File: audit.h
// Audits RoPE outputs against the exact map of their inputs (the rotation by p g_k times the plan's
// attention factor, pass-through channels copied bit for bit): the engine behind `ropecheck
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
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernel/rope_plan.h"
#include "accuracy/element_check.h"
#include "accuracy/rope_reference.h"
#include "accuracy/ulp_error.h"
#include "io/rope_tensor_shape.h"
#include "spectrum/request.h"

namespace ropecheck::accuracy {

struct MeasureOptions {
  int threads = 1;                                  // >= 1
  unsigned precision_bits = kReferencePrecisionBits;  // the reference's working precision
  bool per_head = false;  // one accumulator per (output, head) instead of per output
};

// Measures each of `outputs` against the exact map of `input`. input and every output are
// dense [tokens][heads][plan.dim()] arrays of the format's storage (float, Bf16Bits, F16Bits:
// numeric/small_floats.h); positions has one entry per token. Returns one accumulator per
// output, in order (with per_head: heads accumulators per output, output-major). Pairs with a non-finite input are counted as specials: the expected output
// is the IEEE evaluation of x_a (a cos) - x_b (a sin), x_a (a sin) + x_b (a cos) with a cos, a sin
// in double (a copy for identity pairs); NaN must match NaN, other values exactly. Pass-through
// elements (outside [rotary_offset, rotary_offset + 2R)) must be the input's bits, specials too.
// Throws InputError for threads < 1 or a positions count that differs from tokens;
// std::invalid_argument for format f64 (not a kernel dtype).
std::vector<ErrorAccumulator> measure_outputs(const kernel::RopePlan& plan, Dtype format, std::span<const std::int64_t> positions,
                                              std::int64_t heads, const void* input, const std::vector<const void*>& outputs,
                                              const MeasureOptions& options = {});

// `ropecheck audit`: the files and settings of one audit.
struct AuditRequest {
  std::string input_path, positions_path, output_path;  // .npy files
  // Pairing. Required without a model; with one (spectrum.model) optional, and when given it must
  // be the layer type's layout.
  std::optional<kernel::Layout> layout;
  TensorAxes axes = TensorAxes::automatic;  // the files' axis order (io/rope_tensor_shape.h)
  Dtype format = Dtype::f32;  // a kernel dtype (f64: std::invalid_argument)
  SpectrumRequest spectrum;  // --dim defaults to the input's head_dim; --model gives a layer type
  MeasureOptions measure;
};

struct AuditResult {
  std::string spectrum;  // the plan's description
  std::string model;     // "MODEL/LAYER_TYPE" with a model, else ""
  std::string attention_factor = "1";  // attention_factor_text of the plan's scaling
  kernel::Layout layout = kernel::Layout::interleaved;
  TensorAxes axes = TensorAxes::automatic;
  Dtype format = Dtype::f32;
  std::vector<std::int64_t> shape;
  std::int64_t batch = 1, tokens = 0, heads = 1;
  int head_dim = 0, rotary_offset = 0, rotary_dims = 0;
  bool positions_per_row = false;  // positions given per (batch row, token), not shared by the batch
  std::int64_t min_position = 0, max_position = 0;
  unsigned precision_bits = 0;
  int threads = 1;
  ErrorAccumulator errors{Dtype::f32};
  // check_rope's default bound on the same tensor: every element against the float32
  // formulation's reach (element_check.h with formulation = true; float32_formulation.h), per
  // input class. Exhaustive over this tensor: a verdict on this output, not on other inputs.
  ElementCheck formulation;
};

// Returns: the plan of `ropecheck apply` and `audit` (kernel::plan_for): a model's layer type
// (rs.layer: geometry, layout, attention factor, with the request's overrides such as
// --sequence-length) or the bare spectrum with `layout`. Throws InputError: --layout
// missing without a model, or given and not the model's; --model (RS: head_dim / rotary_offset /
// attention factor) when the plan refuses the layer type's geometry or factor; --layer-type for a
// layer type without RoPE.
kernel::RopePlan plan_for_request(const ResolvedSpectrum& rs, const std::optional<kernel::Layout>& layout);

// Reads the three .npy files (an input or output of another kernel dtype's .npy type is refused
// naming --dtype, the flag that selects it) and measures the output against the exact map of the plan: a model's
// layer type (spectrum.model: head geometry, rotary offset and width, layout, attention factor),
// or a bare spectrum with request.layout. Throws InputError naming the flag (--input, --positions,
// --output, --dim, --layout, --model, --axes ...): unreadable or malformed files, a dtype other
// other than the format's (DtypeInfo::npy: '<f4' f32, '<u2' bf16 bits, '<f2' f16), a shape the axes do not describe (rope_tensor_shape.h), an odd
// head_dim, a head_dim that differs from --dim or the model's, an output whose shape or dtype
// differs from the input's, a positions count other than tokens (shared by the batch) or batch x
// tokens (one per row), a --layout other than the model's or missing without a model, a layer type
// the model lacks or whose geometry or attention factor the plan refuses.
AuditResult audit_files(const AuditRequest& request);

// The tensors of one audit held in memory (the Python module's ropecheck.audit): dense C-order
// arrays of the request's format (its storage, numeric/small_floats.h), read with request.axes.
struct AuditTensors {
  std::vector<std::int64_t> shape, output_shape;
  const void* input = nullptr;   // shape's elements
  const void* output = nullptr;  // output_shape's elements (read only when it equals shape)
  std::vector<std::int64_t> positions_shape;
  std::vector<std::int64_t> positions;  // one per token (shared by the batch) or per batch row and token
};
// The names errors give the three tensors.
struct AuditNames {
  std::string input = "--input", output = "--output", positions = "--positions";
};

// audit_files on tensors in memory (request's paths unused). Throws InputError as audit_files does,
// naming the tensors by `names`.
AuditResult audit_tensors(const AuditRequest& request, const AuditTensors& tensors, const AuditNames& names);

// The report: the metric's definition, max and median ulp, share correctly rounded, specials,
// the per-decade table (elements, max ulp, max absolute and phase error), the worst element.
std::string format_audit(const AuditResult& result);
nlohmann::json audit_json(const AuditResult& result);

// The per-decade table of one accumulator (rows: decades with elements).
std::string format_decade_table(const ErrorAccumulator& errors);

}  // namespace ropecheck::accuracy

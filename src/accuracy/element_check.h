// File: element_check.h
// Every element of one RoPE output tensor checked against the exact map and located: the check
// behind ropecheck.testing.check_rope (the Python module), which runs it on anyone's RoPE.
//
// Rules, per element (the kernel's contract, apply_rope.h, with its strictness as options):
//   rotary pair, finite inputs    the correctly rounded value of the exact map (kernel_output_check.h:
//                                 check_bound), or within max_ulp of it in the floored metric of
//                                 ulp_error.h when max_ulp > 0.5;
//   two signed zeros, non-finite  the IEEE result of the formula, bit for bit (the sign of a zero
//   inputs                        output included); a NaN matches any NaN unless canonical_nan;
//   identity pair, pass-through   a bit-for-bit copy of the input.
// formulation = true replaces the first two rules by what the standard float32 formulation can
// produce (float32_formulation.h: its reach, growing with the position as a float32 angle's error
// does, the IEEE results over the signs its cos and sin can take), and accepts for an identity
// pair the formula's IEEE result at angle 0 besides the copy (x * 0 flips a zero's sign, inf * 0 is
// NaN); max_ulp is then unused.
// Options relax these: signed_zeros = false accepts a zero of either sign where a zero is expected
// (every rule, and only that); rtol > 0 also accepts a finite-input rotary component whose error
// |got - y| is at most rtol x ||(x_a, x_b)|| (ulp_error.h's `rel`; pairs of norm below 2^-126 have
// none and keep max_ulp alone).
// Every element is classed by its inputs (InputClass), and counts and worst failures are kept per
// class, so that an overflow at the format's maximum, which almost every implementation has, does
// not hide an error on ordinary inputs.
// A component whose expected result the reference leaves undecided (never seen in practice) is
// counted in `undecided`, not as a failure. Exhaustive over the tensor; single-threaded.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "accuracy/float32_formulation.h"
#include "accuracy/ulp_error.h"
#include "kernel/rope_plan.h"

namespace ropecheck::accuracy {

// The class of an element's inputs (a rotary pair's two, a pass-through element's one), tested in
// this order: the first that applies.
//   nonfinite  an infinity or NaN;
//   zeros      two signed zeros (the result's sign is all there is to get right);
//   subnormal  a nonzero input below the format's smallest normal 2^emin;
//   overflow   a (|x_a| + |x_b|) >= 2^emax, a the attention factor: the top binade, where the formula's
//              sum, in the format or float32, may overflow though the exact result is finite;
//   finite     everything else: ordinary inputs in the format's central range (one zero allowed).
enum class InputClass { finite = 0, subnormal = 1, overflow = 2, zeros = 3, nonfinite = 4 };
inline constexpr int kInputClasses = 5;
// Returns: "finite", "subnormal", "overflow", "zeros", "nonfinite".
const char* input_class_name(InputClass c);
// Returns: the class of a pair's input values (a pass-through element: xb = 0 and pair = false).
InputClass input_class(double xa, double xb, bool pair, double attention_factor, Dtype f);

struct ElementFailure {
  std::int64_t token = 0, head = 0, position = 0;
  int element = 0;     // index in head_dim
  int pair = -1;       // block pair k, or -1 for a pass-through element
  int component = 0;   // 0: y_a, 1: y_b (pass-through: 0)
  std::uint32_t in_bits[2] = {0, 0};  // (x_a, x_b); pass-through: the element's input in [0]
  std::uint32_t expected_bits = 0, got_bits = 0;
  double ulps = 0;     // the floored-metric figure (finite inputs), else NaN
  double rel = 0;      // |got - y| / ||(x_a, x_b)|| (finite inputs, norm >= 2^-126), else NaN
  InputClass input_class = InputClass::finite;
  std::string rule;    // "correctly rounded", "within max_ulp", "float32 formulation", "IEEE result", "IEEE results of the
                       // float32 formulation", "copy (identity pair)", "copy (pass-through)"
  // formulation: the accepted range [reach_lo, reach_hi] of a finite-input component (values of
  // the format), and the angle error bound delta at this position; NaN otherwise.
  double reach_lo = std::numeric_limits<double>::quiet_NaN(), reach_hi = reach_lo, delta = reach_lo;
};

struct ElementCheckOptions {
  double max_ulp = 0.5;        // > 0; 0.5 means correctly rounded (the expected bits exactly)
  bool canonical_nan = false;  // a NaN output must be the canonical quiet NaN, as the kernel's
  bool signed_zeros = true;    // false: a zero output of the wrong sign passes where a zero is expected
  double rtol = 0;             // >= 0; > 0: a component within rtol x the pair's norm passes too
  bool formulation = false;    // true: the float32 formulation's reach (float32_formulation.h)
  Tables tables = Tables::float32;  // formulation: where its cos and sin live (float32_formulation.h)
  std::size_t keep = 16;       // failures kept (the first ones in tensor order)
};

// One input class's share of a check.
struct ClassCheck {
  std::int64_t checked = 0, failed = 0;
  double max_ulps = 0, max_rel = 0;  // over its finite-input rotary components
  std::optional<ElementFailure> worst;  // chosen as ElementCheck::worst is
};

struct ElementCheck {
  std::int64_t checked = 0, failed = 0, undecided = 0;
  double max_ulps = 0;  // largest figure over finite-input rotary components
  double max_rel = 0;   // largest |got - y| / ||(x_a, x_b)|| over them
  ClassCheck classes[kInputClasses];  // indexed by InputClass
  std::vector<ElementFailure> failures;  // the first options.keep, in [token][head][element] order
  // The failure to report: the largest ulp figure among all failures (the first one attaining it),
  // or the first failure when none has a figure (specials, copies). Unset when nothing failed.
  std::optional<ElementFailure> worst;
};

// input and output: dense [tokens][heads][plan.dim()] arrays of the format's storage (float,
// Bf16Bits, F16Bits: numeric/small_floats.h), positions one per token. Throws InputError for a positions count other than
// tokens, max_ulp not in [0.5, 2^30] or rtol not in [0, 1]; std::invalid_argument for format f64.
ElementCheck check_elements(const kernel::RopePlan& plan, Dtype format, std::span<const std::int64_t> positions, std::int64_t heads,
                            const void* input, const void* output, const ElementCheckOptions& options = {});

// Returns: a check as JSON (the audit's "formulation" section; ropecheck.testing's CheckResult
// reports the same figures): checked, failed, undecided, max_ulps, max_rel (full precision; NaN as
// null), per class {checked, failed, max_ulps, max_rel}, and the worst failure (null when none):
// where, its bits in hex, its figures, rule, and the formulation's range and angle bound.
nlohmann::json element_check_json(const ElementCheck& c, Dtype f);

}  // namespace ropecheck::accuracy

// File: kernel_output_check.h
// The check of one kernel output pair against the exact rotation, shared by the kernel fuzz's
// search (kernel_fuzz.h) and the replay of its counterexample files (kernel_counterexample.h):
// what a special pair must produce bit for bit, and whether a finite pair is correctly rounded
// (apply_rope.h's contract), with its figure in the floored ulp metric of ulp_error.h. Pure
// functions; no errors thrown.
#pragma once

#include <cstdint>
#include <string>

#include "accuracy/rope_reference.h"
#include "accuracy/ulp_error.h"
#include "kernel/rope_plan.h"

namespace ropecheck::accuracy {

// The sign of the kernel's cos and sin: sincos_table.h puts them within 2^-50 of the exact values,
// the reference's doubles are within 2^-53 |.| + 2^-136: above 2^-49 in magnitude both have the
// exact value's sign, so the IEEE result of a special (detail/ieee_rotation.h) is decided.
inline constexpr double kSignMargin = 0x1p-49;

// Returns: apply_rope.h's proved ulp bound for the format (0.5: correctly rounded).
double proved_bound(Dtype f);

// Returns: the bit pattern as hex text, "0x%08x" (f32) or "0x%04x" (bf16).
std::string bits_hex(std::uint32_t bits, Dtype f);

// Returns: the value of a bit pattern of the format (bf16: the low 16 bits), exactly, as a double.
double value_of(std::uint32_t bits, Dtype f);

// Returns: the bits of a finite, infinite or NaN double rounded to the format (NaN: the canonical one).
std::uint32_t format_bits(double v, Dtype f);

// What a special pair must produce (apply_rope.h): identity pairs copy their inputs bit for bit;
// a pair with an infinity or NaN, or two signed zeros (whose exact rotation is 0 and whose sign
// only IEEE arithmetic fixes), gets the formula's IEEE result, NaN as the canonical NaN.
// applies = false for any other (finite, not both zero) pair; decided = false when the result's
// sign hangs on a cos or sin within kSignMargin of 0.
struct SpecialExpectation {
  bool applies = false;
  bool decided = true;
  std::uint32_t bits[2] = {0, 0};
};

// `ref` must be set to position p (RopeReference::set_position); it is not used for identity pairs
// (and may be null then).
SpecialExpectation special_expectation(const kernel::RopePlan& plan, const RopeReference* ref, int k, std::int64_t p, const std::uint32_t in[2],
                                       Dtype f);

// The check of one output pair against the exact map: each component must equal the correctly
// rounded value (the reference's, when its rounding test decided it).
struct BoundCheck {
  accuracy::ComponentError error[2];
  double worst = 0;        // the larger figure (floored ulp metric)
  int breaks = 0;          // components that differ from the correctly rounded value
  int undecided = 0;       // components whose correct rounding the reference did not decide
};

// Returns: the exact component correctly rounded to the format, as a double.
double correctly_rounded(const ExactComponent& e, Dtype f);

// `got`: the output pair's bit patterns in the format.
BoundCheck check_bound(const ExactPair& exact, const std::uint32_t got[2], Dtype f);

// Returns: the exact "rotation" of an identity pair (a copy of finite xa, xb, which are values of
// the format).
ExactPair identity_pair(double xa, double xb);

}  // namespace ropecheck::accuracy

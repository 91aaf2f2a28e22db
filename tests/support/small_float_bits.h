// File: tests/support/small_float_bits.h
// Test helpers that speak raw bit patterns (what the tests' expected values are written in):
// bfloat16 bits <-> float (numeric/small_floats.h's conversions), and a reference component's
// correct rounding as a float or as bfloat16 bits.
#pragma once

#include <mpfr.h>

#include <cstdint>

#include "accuracy/rope_reference.h"
#include "numeric/round_to_binary.h"
#include "numeric/small_floats.h"

namespace ropecheck {

inline float bf16_value(std::uint16_t bits) { return to_float(Bf16Bits{bits}); }
inline std::uint16_t bf16_bits(float f) { return bf16_from_float(f).bits; }
// y rounded to bfloat16 (NaN: the canonical NaN), as bits.
inline std::uint16_t round_bf16_bits(mpfr_srcptr y) { return bf16_bits(static_cast<float>(round_to_dtype(y, Dtype::bf16))); }

inline float f32_of(const accuracy::ExactComponent& c) { return static_cast<float>(c.in(Dtype::f32)); }
inline std::uint16_t bf16_of(const accuracy::ExactComponent& c) { return bf16_bits(static_cast<float>(c.in(Dtype::bf16))); }

}  // namespace ropecheck

// File: detail/ieee_rotation.h
// The expected output of a pair the exact rotation does not cover (an infinity or a NaN among its
// inputs, rope_reference.h): IEEE arithmetic of the kernel's formula y_a = x_a cos - x_b sin,
// y_b = x_a sin + x_b cos with cos and sin rounded to double, rounded to the output format.
// Shared by the audit (audit.cpp) and the kernel fuzz (accuracy/kernel_fuzz.cpp).
//
// Why binary64 stands for the kernel's own arithmetic here: with a non-finite input every output
// is an infinity or a NaN, fixed by the signs of the products alone (inf * 0 is NaN; cos and sin of
// p g_k are never exactly 0 for p != 0, and are exactly 1 and +0 at p = 0 in the kernel and in
// MPFR), so binary64 and the 16-bit formats' binary32 give the same result, with or without a fused
// multiply-add, as long as the kernel's cos and sin have the signs of the double ones (callers that
// aim at cos or sin near 0 check that: sincos_table.h's 2^-50).
#pragma once

#include <cmath>

#include "accuracy/ulp_error.h"
#include "numeric/small_floats.h"

namespace ropecheck::accuracy::detail {

// Returns: y rounded to the format (small_floats.h: exact for the infinities, NaNs and zeros this is
// used for), as a double.
inline double ieee_round(double y, Dtype f) { return value_of_bits(f, bits_of_value(f, y)); }

// Sets ya, yb to the formula's IEEE result in binary64, rounded to f.
inline void ieee_rotation(double xa, double xb, double c, double s, Dtype f, double& ya, double& yb) {
  ya = ieee_round(xa * c - xb * s, f);
  yb = ieee_round(xa * s + xb * c, f);
}

// Returns: true when `got` is the expected special result: both NaN, or equal values.
inline bool special_matches(double expected, double got) { return (std::isnan(expected) && std::isnan(got)) || expected == got; }

}  // namespace ropecheck::accuracy::detail

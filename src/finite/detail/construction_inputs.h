// File: detail/construction_inputs.h
// How the finite-precision constructions build their inputs (finite_arithmetic.h "Inputs"): the
// exact side (certified rounding of an MPFI enclosure to a dtype, the exact rotation of a rounded
// vector, outward conversion of enclosures to doubles) and the token tensors handed to rotate.
// For src/finite/ only.
#pragma once

#include <mpfr.h>

#include <cstdint>
#include <vector>

#include "numeric/dtype.h"
#include "numeric/scalar.h"
#include "rotation/rotation.h"

namespace ropecheck::finite::detail {

// Enclosures here need only to separate the exact values from float rounding boundaries and to
// certify margins of order 1e-9 relative; 128 bits leave ~90 bits to spare at angles < 2^40.
inline constexpr unsigned kExactBits = 128;

// Returns: x (an MPFR number) rounded to nearest-even in dtype t (f32 or bf16). bf16 rounds to 8
// significant bits in MPFR first (exact afterwards in float); below 2^-126 (bf16 subnormals, never
// produced by the constructions here, whose components are O(1) or exactly 0) it goes through
// float, which may double-round. Throws std::invalid_argument for f16 and f64 (the finite verdicts'
// formats are f32 and bf16).
float round_mpfr(mpfr_srcptr x, Dtype t);

// Returns: the dtype rounding of the exact value enclosed by x, certified: both endpoints round to
// the same value (so the exact value does too). Throws std::logic_error otherwise (the enclosure
// straddles a rounding boundary: never seen at 128 bits, and a silent wrong rounding would change
// the inputs of the exact verdict).
float round_certified(const Interval& x, Dtype t);

// Returns: the endpoints of x rounded outward to double (lower down, upper up).
double lower_double(const Interval& x);
double upper_double(const Interval& x);
// Returns: x rounded down / up to double.
double real_down(const Real& x);
double real_up(const Real& x);

// Returns: the rotation R^r v of a float vector (chunks 2k, 2k+1) by the frequencies g, each
// component an enclosure.
Vector<Interval> exact_rotation(const std::vector<float>& v, std::int64_t r, const std::vector<Interval>& g);

// Returns: round_certified of every component.
std::vector<float> round_vector(const Vector<Interval>& v, Dtype t);

// Returns: `times` copies of v, one after the other (a token tensor of one head vector).
std::vector<float> tile(const std::vector<float>& v, std::int64_t times);

// Returns: the positions first, first + 1, ..., last.
std::vector<std::int64_t> iota_positions(std::int64_t first, std::int64_t last);

}  // namespace ropecheck::finite::detail

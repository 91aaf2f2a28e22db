// File: round_to_binary.h
// Rounding an MPFR number into a small binary floating-point format (binary32, bfloat16, binary16), to
// nearest with ties to even, subnormals rounded (never flushed), overflow to infinity. The one
// routine behind the kernel's correctly rounded slow path (kernel/exact_rotation.h) and the
// accuracy harness's MPFR reference (accuracy/rope_reference.h); tests compare it with
// mpfr_get_flt and with MPFR's own emin/emax/subnormalize emulation.
#pragma once

#include <gmp.h>
#include <mpfr.h>

#include "numeric/dtype.h"

namespace ropecheck {

// Returns: y rounded to nearest-even in a binary format with `precision` significand bits, normal
// numbers from 2^emin_normal, subnormal quantum 2^(emin_normal - precision + 1), largest finite
// value (2 - 2^(1-precision)) 2^emax (beyond: infinity), as a double (exact for precision <= 53
// and a format inside double's range). NaN gives a quiet NaN; zeros and infinities keep their sign.
double round_to_binary(mpfr_srcptr y, int precision, int emin_normal, int emax);

// Returns: the rational q rounded as round_to_binary rounds, exactly (an exact tie included): q is
// rounded to 64 bits toward zero with the last bit set when inexact (round to odd), then by
// round_to_binary; rounding to odd at >= precision + 2 bits and then to nearest is the correct
// rounding (Boldo and Melquiond, 2008). Preconditions: precision <= 62.
double round_rational_to_binary(mpq_srcptr q, int precision, int emin_normal, int emax);

// Returns: a x (x a finite double, taken exactly) rounded as round_rational_to_binary rounds: the
// correct rounding of the exact product, ties included.
double round_rational_product(mpq_srcptr a, double x, int precision, int emin_normal, int emax);

// The same into kernel dtype t's format (numeric/dtype.h: its precision and exponent range).
inline double round_to_dtype(mpfr_srcptr y, Dtype t) {
  const DtypeInfo& f = dtype_info(t);
  return round_to_binary(y, f.precision, f.emin_normal, f.emax);
}
inline double round_rational_product(mpq_srcptr a, double x, Dtype t) {
  const DtypeInfo& f = dtype_info(t);
  return round_rational_product(a, x, f.precision, f.emin_normal, f.emax);
}

}  // namespace ropecheck

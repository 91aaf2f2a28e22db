// File: detail/double_double_level.h
// The accurate path's first level (exact_rotation.h): one component of the exact map
//     y = a (x_a cos t - x_b sin t)   or   y = a (x_a sin t + x_b cos t)
// evaluated in double-double from double-double cos t, sin t and a, with a proved error bound and
// a rounding test; it returns the correctly rounded value or "undecided" (the MPFR levels go on).
//
// Error (x_a, x_b values of a kernel dtype, S = |x_a| + |x_b|, |c - cos t|, |s - sin t| <=
// delta for the double-doubles c, s, and |a~ - a| <= 2^-105.9 a):
//   u = x_1 u_1 + x_2 u_2 (x_2 = -x_b for y_a): the products x_i u_i.hi are exact (two_product:
//   |x_i u_i.hi| >= 2^-149 2^-254 when nonzero, above its 2^-969) and so is their sum (two_sum);
//   the rest is x_1 u_1.lo + x_2 u_2.lo (|u.lo| <= 2^-53: two roundings, <= 2^-105 S) plus the
//   products' errors and the sum's, in three sums (<= 2^-106 S, 2^-105 S and 2^-104.4 S):
//   |u~ - u(c, s)| <= 2^-102.4 S, and |u(c, s) - u| <= S delta. Times a~: one exact
//   product, then u.lo a.hi, one fma and one sum (<= 2^-103.2 a |u~|, the dropped u.lo a.lo
//   included), plus a~'s own 2^-105.9. Underflow adds at most 2^-1074 per operation, nothing against
//   a S 2^-101 >= 2^-314 (a >= 2^-64, S >= 2^-149). In all
//       |y~ - y| <= a S (delta + 2^-101.2),
//   bounded above by E = RN(RN(S~ RN(delta~ + 2^-100)) RN(a)) (S~ = RN(S), delta~ >= delta): each
//   of its four roundings loses at most 2^-53, against the factor 2.3 between 2^-100 and 2^-101.2.
// Test (the format's p and exponent range, numeric/dtype.h: 24 bits for float32, 8 for bfloat16,
// 11 for float16; normal range only): with Y = |y~.hi| in [2^emin, 2^(emax+1)), the value Y + l (l = y~.lo with y~.hi's sign, |l| <= ulp(Y)/2), and r the
// p-bit value nearest to Y + l (from Y's exact fraction at p bits, and l's sign when Y is itself a
// midpoint), the midpoints m+ = r + g+/2 and m- = r - g-/2 around r (g the spacing on each side:
// g- halved when r = 2^e, g+ doubled when r = 2^(e+1), e = ilogb Y) are exact, and so are m+ - Y
// and Y - m- (Sterbenz). Any r would be sound; this one decides. It passes when RN(m+ - Y - l) and
// RN(Y - m- + l) both exceed RN(E (1 + 2^-50)): each then exceeds E exactly (one rounding of
// 2^-53 against 2^-51 of margin), so y lies strictly between m- and m+ and rounds to r (r below
// the format's largest finite value + its half spacing: r itself finite, the overflow threshold
// being m+). Anything else (|y~.hi| < 2^emin, r infinite, a NaN) is undecided. Requires round to
// nearest (the kernel's cpu::DefaultFloatEnvironment; the default mode elsewhere).
#pragma once

#include "numeric/dtype.h"
#include "numeric/error_free.h"

namespace ropecheck::kernel::detail {

struct DoubleDoubleAngle {
  DoubleDouble c, s;  // cos t, sin t
  double delta = 0;            // >= |c - cos t| and |s - sin t|
};

// Returns true and sets *out to the correctly rounded component (a value of kernel dtype `format`)
// when the test above decides it. a: the attention factor within 2^-105.9 of its value, a.hi in
// [2^-64, 2^64). x_a, x_b finite.
bool round_double_double(Dtype format, const DoubleDoubleAngle& angle, DoubleDouble a, double x_a, double x_b,
                         bool second, double* out);

}  // namespace ropecheck::kernel::detail

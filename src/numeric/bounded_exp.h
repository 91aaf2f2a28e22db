// File: bounded_exp.h
// e^x in binary64 with a PROVED relative error bound, for certificates computed in binary64 with an
// error budget instead of interval arithmetic (adversarial/bounded_scan.h). The C library's exp is
// not used: its error is measured by its authors, not proved.
//
// Contract: for |x| <= kBoundedExpDomain,
//     |bounded_exp(x) - e^x| <= kBoundedExpError * e^x,
// and bounded_exp(x) is a normal number. Outside the domain (and for NaN) it returns NaN, so a
// caller's certified comparison fails instead of passing. Same bits on every machine (binary64,
// round to nearest, no FMA: the build has -ffp-contract=off).
//
// Error budget (u = 2^-53; tests/numeric/bounded_exp_test.cpp checks the result against MPFR):
//  1. k = nearbyint(RN(x * RN(1/ln2))): RN(1/ln2) and the product each err by at most u, so
//     |k - x/ln2| <= 1/2 + 1010 * 2^-52 < 1/2 + 2^-42, |k| <= 1010, |x - k ln2| <= 0.3466.
//  2. r = RN(r1 - RN(k L2)) with r1 = x - k L1, L1 = ln2 to 32 significant bits (fdlibm's ln2HI),
//     L2 = fdlibm's ln2LO (|ln2 - L1 - L2| < 2^-86). k L1 is exact (|k| < 2^11: 43 bits); r1 is
//     exact by Sterbenz (for k != 0, x / (k L1) lies in [1/2, 3/2]). The rest: RN(k L2) errs by
//     < 2^-75.3 (|k L2| < 2^-22.3), the subtraction by u |r| < 2^-54.5, L1 + L2 vs ln2 by
//     |k| 2^-86 < 2^-76. So |r - (x - k ln2)| < 2^-54.4 and e^r = e^(x - k ln2) (1 + t1),
//     |t1| < 2^-54.3.
//  3. p = the degree-13 Taylor polynomial of e^r, coefficients RN(1/n!), by Horner (13 products,
//     13 sums). Truncation: sum_{n >= 14} |r|^n/n! <= (0.3466^14/14!) e^0.3466 < 2^-56.7 e^-0.3467
//     <= 2^-56.7 e^r. Rounding (Higham, Accuracy and Stability, eq. 5.3, plus one u per stored
//     coefficient): |p - T(r)| <= gamma_27 sum |r|^n/n! <= gamma_27 e^|r| <= gamma_27 e^0.6932 e^r
//     < 2^-47.2 e^r (gamma_n = n u / (1 - n u)).
//  4. ldexp(p, k) is exact: p is in [0.7, 1.5] and |x| <= 700 keeps 2^k p normal.
// Total: (1 + 2^-54.3)(1 + 2^-56.7 + 2^-47.2) - 1 < 2^-47.1 < kBoundedExpError.
#pragma once

namespace ropecheck {

inline constexpr double kBoundedExpDomain = 700;
inline constexpr double kBoundedExpError = 0x1p-47;

// Returns: e^x within kBoundedExpError relative (see above); NaN when |x| > kBoundedExpDomain.
double bounded_exp(double x);

}  // namespace ropecheck

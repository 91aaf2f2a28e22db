// File: shift_invariance_bound.h
// A consequence of the kernel's ulp contract (kernel/apply_rope.h): how far a float32 activation
// through this kernel can move when both positions shift by the same s. The finite-precision
// verdicts (finite/shift_invariance.h) print it beside the measured errors, and a property test
// (properties/kernel_properties.cpp) checks it on random inputs.
//
// Setting: q, k of one even size d (chunks 2k, 2k+1), values of the dtype; the activation
// a(m, n) = dot_f32_sequential(R~^m q, R~^n k) (numeric/float32_dot.h), R~^p the kernel's rotation
// at position p in dtype t.
//
// Derivation (apply_rope.h's contract): an output component y~ of a pair P = (x_a, x_b) has
// |y~ - y| <= c max(ulp(y~), 2^-p' ||P||), c = kernel::kProvedUlpBound = 1/2 (p' = 24 for f32, 8 for
// bf16, 11 for f16), and ulp(y~) <= 2^(1-p') |y~| <= 2^(1-p') (||P|| + |y~ - y|) for normal y~ (inputs with
// pair norms >= 2^-100 keep every output within the normal range or below the floor). Hence
// |y~ - y| <= eps ||P||, eps = c 2^(1-p') / (1 - c 2^(1-p')). For x~, y~ the rotated q and k, per
// chunk k (X_k, Y_k the exact rotated chunks, ||X_k|| = ||q_k||, ||Y~_k|| <= (1 + sqrt2 eps) ||Y_k||):
//   sum over the chunk of |x~_i - x_i| |y~_i| + |x_i| |y~_i - y_i|
//     <= eps ||X_k|| sqrt2 ||Y~_k|| + eps ||Y_k|| sqrt2 ||X_k|| <= (2 sqrt2 eps + 2 eps^2) ||q_k|| ||k_k||,
// so |x~.y~ - x.y| <= (2 sqrt2 eps + 2 eps^2) S, S = sum_k ||q_k|| ||k_k||; the float32 dot (products
// rounded, recursive sum; Higham, Accuracy and Stability, (3.5)) adds at most
// gamma_d sum |x~_i y~_i| <= gamma_d (1 + sqrt2 eps)^2 S, gamma_d = d u / (1 - d u), u = 2^-24.
// Both activations are within B = (2 sqrt2 eps + 2 eps^2 + gamma_d (1 + sqrt2 eps)^2) S of the
// same exact, shift-invariant value, so the shift error is <= 2B, whatever s.
#pragma once

#include <span>

#include "numeric/dtype.h"

namespace ropecheck::accuracy {

// Returns: the proved bound 2B (above) on |a(m + s, n + s) - a(m, n)| for this kernel in dtype t,
// for any m, n, s, given the rounded inputs' pair norms (||q_k||, ||k_k|| per chunk k, unchanged
// by rotation), with a relative 2^-40 of slack for its own evaluation in double.
// Throws std::invalid_argument: t is f64 (not a kernel dtype), q and k differ in size or have an
// odd size, or a pair norm is neither 0 nor >= 2^-100.
double shift_invariance_bound(Dtype t, std::span<const float> q, std::span<const float> k);

}  // namespace ropecheck::accuracy

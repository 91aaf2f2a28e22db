// File: error_free.h
// Error-free transformations of binary64 (Knuth's TwoSum, the FMA's TwoProduct): the rounded
// result and its exact rounding error, so that s + e or p + e equals the exact sum or product.
//
// Contract: round to nearest (the default mode; the kernel sets it for its calls), no overflow.
// two_sum is exact for all finite a, b. two_product is exact when the error a b - p is
// representable: it is whenever e = 0 or |a b| >= 2^-969 (the error is then a multiple of
// 2^-1074); below that it can lose bits to underflow. std::fma is the correctly rounded fused
// multiply-add on every path (hardware or libm), so the results are the same everywhere.
#pragma once

#include <cmath>

namespace ropecheck {

struct DoubleDouble {
  double hi = 0;
  double lo = 0;  // |lo| <= ulp(hi) / 2 when normalised (two_sum, two_product)
};

// s = RN(a + b), e = a + b - s exactly (6 operations, no precondition on |a|, |b|).
inline DoubleDouble two_sum(double a, double b) {
  const double s = a + b;
  const double bb = s - a;
  const double e = (a - (s - bb)) + (b - bb);
  return {s, e};
}

// p = RN(a b), e = a b - p exactly (see the contract for underflow).
inline DoubleDouble two_product(double a, double b) {
  const double p = a * b;
  return {p, std::fma(a, b, -p)};
}

}  // namespace ropecheck

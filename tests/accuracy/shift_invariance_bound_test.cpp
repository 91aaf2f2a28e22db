// Tests for accuracy/shift_invariance_bound.h: the bound's value from its derivation on inputs
// where S = sum_k ||q_k|| ||k_k|| is exact, its scaling, and its errors. (That the kernel stays
// within it: tests/finite/shift_invariance_test.cpp and properties/kernel_properties.cpp.)
#include "accuracy/shift_invariance_bound.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "io/printf_string.h"

namespace ropecheck::accuracy {
namespace {

// The header's formula, evaluated independently: 2 B (1 + 2^-40).
double formula(double c, double p_floor, double d, double S) {
  const double eps = c * 2 * p_floor / (1 - c * 2 * p_floor), u = 0x1p-24, gamma = d * u / (1 - d * u);
  const double r2 = std::sqrt(2.0);
  return 2 * (2 * r2 * eps + 2 * eps * eps + gamma * (1 + r2 * eps) * (1 + r2 * eps)) * S * (1 + 0x1p-40);
}

TEST(ShiftInvarianceBound, MatchesTheDerivation) {
  // Pairs (3, 4) and (0, 1) against (1, 0) and (0, 2): pair norms 5, 1 and 1, 2, S = 5 + 2 = 7.
  const std::vector<float> q{3, 4, 0, 1}, k{1, 0, 0, 2};
  const double f32 = shift_invariance_bound(Dtype::f32, q, k), bf16 = shift_invariance_bound(Dtype::bf16, q, k);
  // c: the kernel's proved ulp bound, 0.5 (correctly rounded; apply_rope.h).
  EXPECT_DOUBLE_EQ(f32, formula(0.5, 0x1p-24, 4, 7)) << hex_double(f32);
  EXPECT_DOUBLE_EQ(bf16, formula(0.5, 0x1p-8, 4, 7)) << hex_double(bf16);
  // Orders of magnitude: eps ~ 2^-24 (f32), 2^-8 (bf16); 2B ~ 2 (2 sqrt2 eps + d u) S.
  EXPECT_GT(f32, 2 * 2 * std::sqrt(2.0) * 0x1p-24 * 7);
  EXPECT_LT(f32, 2 * (2 * std::sqrt(2.0) * 0x1p-23 + 4 * 0x1p-23) * 7);
  EXPECT_GT(bf16, 2 * 2 * std::sqrt(2.0) * 0x1p-8 * 7);
  EXPECT_LT(bf16, 2 * (2 * std::sqrt(2.0) * 0x1p-7 + 4 * 0x1p-23) * 7);
}

TEST(ShiftInvarianceBound, ScalesWithThePairNorms) {
  const std::vector<float> q{3, 4, 0, 1}, k{1, 0, 0, 2};
  std::vector<float> q2 = q;
  for (float& v : q2) v *= 2;
  EXPECT_EQ(shift_invariance_bound(Dtype::f32, q2, k), 2 * shift_invariance_bound(Dtype::f32, q, k));
  // Zero pairs take no part (they rotate to zeros).
  EXPECT_EQ(shift_invariance_bound(Dtype::f32, std::vector<float>{0, 0}, std::vector<float>{1, 1}), 0.0);
}

TEST(ShiftInvarianceBound, RefusesWhatItCannotBound) {
  const std::vector<float> two{1, 0}, four{1, 0, 0, 1}, odd{1, 0, 0};
  EXPECT_THROW(shift_invariance_bound(Dtype::f64, two, two), std::invalid_argument);
  EXPECT_THROW(shift_invariance_bound(Dtype::f32, two, four), std::invalid_argument);
  EXPECT_THROW(shift_invariance_bound(Dtype::f32, odd, odd), std::invalid_argument);
  const std::vector<float> tiny{0x1p-110f, 0};
  EXPECT_THROW(shift_invariance_bound(Dtype::f32, tiny, two), std::invalid_argument);
}

}  // namespace
}  // namespace ropecheck::accuracy

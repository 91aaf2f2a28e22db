// Tests for numeric/float32_dot.h: each dot product against a reference that performs the stated
// summation order with every product and sum computed exactly in MPFR (600 bits hold any product or
// sum of two floats) and then rounded to float32 once; hand-computed values where the two orders
// give different results; and the absence of contraction.
#include "numeric/float32_dot.h"

#include <gtest/gtest.h>
#include <mpfr.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "io/printf_string.h"

namespace ropecheck {
namespace {

// Returns: fl32(a * b) and fl32(a + b), each operation exact in MPFR and rounded once to nearest even.
float product(float a, float b) {
  mpfr_t v;
  mpfr_init2(v, 600);
  EXPECT_EQ(mpfr_set_flt(v, a, MPFR_RNDN), 0);
  EXPECT_EQ(mpfr_mul_d(v, v, static_cast<double>(b), MPFR_RNDN), 0) << "reference product not exact";
  const float r = mpfr_get_flt(v, MPFR_RNDN);
  mpfr_clear(v);
  return r;
}

float sum(float a, float b) {
  mpfr_t v;
  mpfr_init2(v, 600);
  EXPECT_EQ(mpfr_set_flt(v, a, MPFR_RNDN), 0);
  EXPECT_EQ(mpfr_add_d(v, v, static_cast<double>(b), MPFR_RNDN), 0) << "reference sum not exact";
  const float r = mpfr_get_flt(v, MPFR_RNDN);
  mpfr_clear(v);
  return r;
}

float reference_sequential(const std::vector<float>& x, const std::vector<float>& y) {
  float acc = 0.0f;
  for (size_t i = 0; i < x.size(); ++i) acc = sum(acc, product(x[i], y[i]));
  return acc;
}

float reference_eight_lanes(const std::vector<float>& x, const std::vector<float>& y) {
  float lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (size_t i = 0; i < x.size(); ++i) lane[i % 8] = sum(lane[i % 8], product(x[i], y[i]));
  return sum(sum(sum(lane[0], lane[1]), sum(lane[2], lane[3])), sum(sum(lane[4], lane[5]), sum(lane[6], lane[7])));
}

std::uint32_t bits(float x) { return std::bit_cast<std::uint32_t>(x); }

// Vectors whose products and sums round (values of every sign over a few binades).
std::vector<float> values(int n, double phase) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>(std::ldexp(std::sin(phase + 1.37 * i), i % 7 - 3));
  return v;
}

TEST(Float32Dot, BothOrdersMatchTheirExactReferences) {
  for (int n : {0, 1, 7, 8, 9, 16, 37, 128, 256}) {
    const std::vector<float> x = values(n, 0.5), y = values(n, 2.0);
    const float seq = dot_f32_sequential(x.data(), y.data(), n);
    const float lanes = dot_f32_eight_lanes(x.data(), y.data(), n);
    EXPECT_EQ(bits(seq), bits(reference_sequential(x, y))) << "n = " << n << ": " << hex_float(seq) << " vs "
                                                            << hex_float(reference_sequential(x, y));
    EXPECT_EQ(bits(lanes), bits(reference_eight_lanes(x, y))) << "n = " << n << ": " << hex_float(lanes) << " vs "
                                                               << hex_float(reference_eight_lanes(x, y));
  }
}

// x = (1, 2^-24, ..., 2^-24) (16 elements), y = 1: the exact sum is 1 + 15 2^-24.
// Sequential: 1 + 2^-24 is a tie and rounds to even, 1, at every step: the result is 1.
// Eight lanes: lane 0 = 1 + 2^-24 -> 1, lanes 1..7 = 2^-23 each; pairwise: (1 + 2^-23) + 2^-22 =
// 1 + 3 2^-23, 2^-22 + 2^-22 = 2^-21, total 1 + 7 2^-23, all exact. The two orders differ.
TEST(Float32Dot, TheTwoOrdersAreDistinct) {
  std::vector<float> x(16, 0x1p-24f), y(16, 1.0f);
  x[0] = 1.0f;
  const float seq = dot_f32_sequential(x.data(), y.data(), 16);
  const float lanes = dot_f32_eight_lanes(x.data(), y.data(), 16);
  EXPECT_EQ(seq, 1.0f) << hex_float(seq);
  EXPECT_EQ(lanes, 1.0f + 7 * 0x1p-23f) << hex_float(lanes);
  EXPECT_EQ(bits(seq), bits(reference_sequential(x, y)));
  EXPECT_EQ(bits(lanes), bits(reference_eight_lanes(x, y)));
  EXPECT_NE(bits(seq), bits(lanes));
}

TEST(Float32Dot, SequentialRoundsEveryProductAndSumToFloat32) {
  // x^2 = 1 + 2^-10 + 2^-22 + 2^-24 + ... needs more than 24 bits: fl32(x^2) - 1 differs from the
  // fused x^2 - 1 that an FMA (contraction) would give.
  const float x = 1.0f + 0x1p-11f + 0x1p-23f;
  const float xs[2] = {x, -1.0f}, ys[2] = {x, 1.0f};
  const float expected = static_cast<float>(x * x) - 1.0f;  // float ops, each rounded (ISO C++: no contraction)
  const double fused = static_cast<double>(x) * x - 1.0;
  const float got = dot_f32_sequential(xs, ys, 2);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(got), std::bit_cast<std::uint32_t>(expected))
      << "x = " << hex_float(x) << ", got " << hex_float(got) << ", expected " << hex_float(expected);
  EXPECT_NE(static_cast<double>(got), fused) << "the test values do not distinguish a fused product: " << hex_double(fused);
}

TEST(Float32Dot, EightLanesRoundsEveryProductToFloat32) {
  // The same values through the eight lanes (element 0 in lane 0, element 1 in lane 1, then
  // (l0 + l1) + 0 ...): the result is fl32(fl32(x^2) - 1), never the fused x^2 - 1.
  const float x = 1.0f + 0x1p-11f + 0x1p-23f;
  const float xs[2] = {x, -1.0f}, ys[2] = {x, 1.0f};
  const float expected = static_cast<float>(x * x) - 1.0f;
  const float got = dot_f32_eight_lanes(xs, ys, 2);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(got), std::bit_cast<std::uint32_t>(expected)) << hex_float(got) << " vs " << hex_float(expected);
}

}  // namespace
}  // namespace ropecheck

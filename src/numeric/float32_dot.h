// File: float32_dot.h
// The two float32 dot products of ropecheck. Their summation orders differ on purpose and results
// depend on them bit for bit: neither may be reordered, vectorised differently or fused (the
// project compiles with -ffp-contract=off; dot_f32_sequential does not rely on it).
//
//   dot_f32_sequential    the finite-precision verdicts' activation (finite/): the plainest order,
//                         the one a reader can redo by hand.
//   dot_f32_eight_lanes   Monte Carlo's f32/bf16 activation (montecarlo/simulate.cpp): as a model
//                         runs it, eight SIMD lanes of partial sums.
//
// Both: x and y hold n >= 0 floats; every product x[i] y[i] is rounded to float32 once. Neither
// throws. Deterministic: the same inputs give the same bits on every machine.
#pragma once

namespace ropecheck {

// Returns: sum_i x[i] y[i] in float32: each product rounded to float32, then added left to right
// (i = 0, 1, ..., n-1) into one float32 accumulator starting at +0, each sum rounded to float32.
// Products and sums are formed in double and rounded once to float, which equals float
// arithmetic (double rounding is innocuous for one operation when 53 >= 2*24 + 2) and cannot be
// contracted into an FMA by the compiler.
inline float dot_f32_sequential(const float* x, const float* y, int n) {
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) {
    const float product = static_cast<float>(static_cast<double>(x[i]) * static_cast<double>(y[i]));  // exact, then one rounding
    sum = static_cast<float>(static_cast<double>(sum) + static_cast<double>(product));
  }
  return sum;
}

// Returns: sum_i x[i] y[i] in float32 with eight partial sums: lane j (0..7), starting at +0,
// accumulates the rounded products of the elements i = j, j + 8, j + 16, ... < n in increasing i
// (i mod 8: the lanes of an AVX register), then the lanes are combined pairwise: ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)). Every product
// and sum is one float32 operation, rounded to nearest. For bf16 inputs the products are exact in
// float (8-bit significands), as on tensor cores.
inline float dot_f32_eight_lanes(const float* x, const float* y, int n) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) acc[j] = acc[j] + x[i + j] * y[i + j];
  for (int j = 0; i < n; ++i, ++j) acc[j] = acc[j] + x[i] * y[i];
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

}  // namespace ropecheck

#include "usage/detail/score_product.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

namespace ropecheck::usage::detail {
namespace {

std::vector<double> score_test_values(long n, unsigned seed) {
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<double>(seed >> 8) / 8388608.0 - 1.0;
  }
  return v;
}

bool cpu_runs_avx2() {
  for (cpu::Path p : cpu::available_paths())
    if (p != cpu::Path::scalar) return true;
  return false;
}

// Every output against the exact dot product's bound: |s^ - s| <= gamma_depth sum |a b| (fused
// multiply-adds in channel order; gamma_n = n u / (1 - n u)), and the twins bit-identical.
TEST(ScoreProduct, BothTwinsWithinTheDotProductBound) {
  const long rows = 11, tokens = 37, depth = 20;
  const std::vector<double> a = score_test_values(rows * depth, 1), k = score_test_values(tokens * depth, 2);
  const PackedKeys keys = pack_keys(k.data(), tokens, depth, depth);
  std::vector<cpu::Path> paths = {cpu::Path::scalar};
  if (cpu_runs_avx2()) paths.push_back(cpu::Path::avx2);
  std::vector<double> scalar;
  for (cpu::Path path : paths) {
    std::vector<double> out(static_cast<size_t>(rows * tokens));
    score_block(path, a.data(), depth, rows, keys, 0, tokens, out.data(), tokens);
    if (scalar.empty()) scalar = out;
    for (size_t i = 0; i < out.size(); ++i)
      EXPECT_EQ(out[i], scalar[i]) << cpu::path_name(path) << " vs scalar at " << i << ": " << std::hexfloat << out[i] << " " << scalar[i];
    for (long r = 0; r < rows; ++r)
      for (long j = 0; j < tokens; ++j) {
        long double exact = 0, magnitude = 0;
        for (long c = 0; c < depth; ++c) {
          exact += static_cast<long double>(a[static_cast<size_t>(r * depth + c)]) * k[static_cast<size_t>(j * depth + c)];
          magnitude += std::fabs(static_cast<long double>(a[static_cast<size_t>(r * depth + c)]) * k[static_cast<size_t>(j * depth + c)]);
        }
        const double u = 0x1p-53, bound = static_cast<double>(magnitude) * depth * u / (1 - depth * u);
        EXPECT_LE(std::fabs(out[static_cast<size_t>(r * tokens + j)] - static_cast<double>(exact)), bound)
            << cpu::path_name(path) << " r=" << r << " j=" << j << " got=" << std::hexfloat << out[static_cast<size_t>(r * tokens + j)];
      }
  }
}

// The avx2 twin's vector steps and its tails compute the same thing: a key's score does not depend
// on whether it fell in a step of 8 or a tail, nor a row's on whether it was in a group of 4.
TEST(ScoreProduct, Avx2StepsAndTailsAgreeBitForBit) {
  if (!cpu_runs_avx2()) GTEST_SKIP() << "this CPU runs the scalar path only";
  const long rows = 7, tokens = 29, depth = 13;
  const std::vector<double> a = score_test_values(rows * depth, 3), k = score_test_values(tokens * depth, 4);
  const PackedKeys keys = pack_keys(k.data(), tokens, depth, depth);
  std::vector<double> all(static_cast<size_t>(rows * tokens));
  score_block(cpu::Path::avx2, a.data(), depth, rows, keys, 0, tokens, all.data(), tokens);
  for (long r = 0; r < rows; ++r)
    for (long c0 : {0L, 8L, 16L, 24L}) {
      const long cols = std::min(3L, tokens - c0);
      std::vector<double> one(static_cast<size_t>(cols));
      score_block(cpu::Path::avx2, a.data() + r * depth, depth, 1, keys, c0, cols, one.data(), cols);
      for (long j = 0; j < cols; ++j)
        EXPECT_EQ(one[static_cast<size_t>(j)], all[static_cast<size_t>(r * tokens + c0 + j)]) << "r=" << r << " key=" << c0 + j;
    }
}

}  // namespace
}  // namespace ropecheck::usage::detail

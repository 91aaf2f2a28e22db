// File: detail/score_product.h
// The score products of head_attention.cpp: out(r, j) = sum_c a(r, c) b(j, c) for a block of
// query rows against a range of keys, with the keys packed once per head into panels of 8 (so the
// inner loop reads contiguous memory). Two twins, as the kernel has (cpu/path.h): `scalar`
// (portable) and `avx2` (AVX2 + FMA, 4 rows x 8 keys per step). Both compute every output as
// s = fma(a_c, b_c, s) for c = 0, 1, ... in that order, so they give the same bits; which runs is
// cpu::default_path() (ROPECHECK_KERNEL forces it): avx2 on every path but scalar.
#pragma once

#include <vector>

#include "cpu/path.h"

namespace ropecheck::usage::detail {

// Keys [tokens x depth] (row-major, leading dimension ld) packed as panels of 8 keys: panel p holds
// keys 8p..8p+7, depth-major (panel[c * 8 + lane]); the last panel is zero-padded.
struct PackedKeys {
  long tokens = 0, depth = 0;
  std::vector<double> data;
};
PackedKeys pack_keys(const double* keys, long tokens, long depth, long ld);

// out[r * ldo + j] = sum_c a[r * lda + c] * key(c0 + j, c) for r < rows, j < cols.
// Preconditions: c0 % 8 == 0, c0 + cols <= keys.tokens; depth == keys.depth.
void score_block(cpu::Path path, const double* a, long lda, long rows, const PackedKeys& keys, long c0, long cols, double* out, long ldo);

void score_block_scalar(const double* a, long lda, long rows, const PackedKeys& keys, long c0, long cols, double* out, long ldo);
void score_block_avx2(const double* a, long lda, long rows, const PackedKeys& keys, long c0, long cols, double* out, long ldo);

}  // namespace ropecheck::usage::detail

// The avx2 twin of score_product.h (compiled with -mavx2 -mfma; runs only on a CPU whose path is
// not scalar). Per output: s = fma(a_c, b_c, s) for c = 0, 1, ... in every lane and in the tails.
#include <immintrin.h>

#include <cmath>

#include "usage/detail/score_product.h"

namespace ropecheck::usage::detail {

void score_block_avx2(const double* a, long lda, long rows, const PackedKeys& keys, long c0, long cols, double* out, long ldo) {
  const long depth = keys.depth;
  const double* base = keys.data.data();
  long r = 0;
  for (; r + 4 <= rows; r += 4) {
    const double* a0 = a + r * lda;
    long j = 0;
    for (; j + 8 <= cols; j += 8) {
      const double* panel = base + ((c0 + j) / 8) * depth * 8;
      __m256d acc[4][2];
      for (auto& row : acc) row[0] = row[1] = _mm256_setzero_pd();
      for (long c = 0; c < depth; ++c) {
        const __m256d b0 = _mm256_loadu_pd(panel + c * 8), b1 = _mm256_loadu_pd(panel + c * 8 + 4);
        for (int i = 0; i < 4; ++i) {
          const __m256d x = _mm256_broadcast_sd(a0 + i * lda + c);
          acc[i][0] = _mm256_fmadd_pd(x, b0, acc[i][0]);
          acc[i][1] = _mm256_fmadd_pd(x, b1, acc[i][1]);
        }
      }
      for (int i = 0; i < 4; ++i) {
        _mm256_storeu_pd(out + (r + i) * ldo + j, acc[i][0]);
        _mm256_storeu_pd(out + (r + i) * ldo + j + 4, acc[i][1]);
      }
    }
    for (; j < cols; ++j) {
      const long t = c0 + j;
      const double* panel = base + (t / 8) * depth * 8 + t % 8;
      for (int i = 0; i < 4; ++i) {
        double s = 0;
        for (long c = 0; c < depth; ++c) s = std::fma(a0[i * lda + c], panel[c * 8], s);
        out[(r + i) * ldo + j] = s;
      }
    }
  }
  for (; r < rows; ++r)
    for (long j = 0; j < cols; ++j) {
      const long t = c0 + j;
      const double* panel = base + (t / 8) * depth * 8 + t % 8;
      double s = 0;
      for (long c = 0; c < depth; ++c) s = std::fma(a[r * lda + c], panel[c * 8], s);
      out[r * ldo + j] = s;
    }
}

}  // namespace ropecheck::usage::detail

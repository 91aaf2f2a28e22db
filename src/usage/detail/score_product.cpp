#include "usage/detail/score_product.h"

#include <cmath>

namespace ropecheck::usage::detail {

PackedKeys pack_keys(const double* keys, long tokens, long depth, long ld) {
  PackedKeys p;
  p.tokens = tokens;
  p.depth = depth;
  const long panels = (tokens + 7) / 8;
  p.data.assign(static_cast<size_t>(panels * depth * 8), 0.0);
  for (long t = 0; t < tokens; ++t)
    for (long c = 0; c < depth; ++c) p.data[static_cast<size_t>((t / 8) * depth * 8 + c * 8 + t % 8)] = keys[t * ld + c];
  return p;
}

// s = fma(a_c, b_c, s) in channel order, as the avx2 twin does in each lane: the same bits. (glibc's
// fma runs the FMA instruction where the CPU has one, a correctly rounded software fma elsewhere.)
void score_block_scalar(const double* a, long lda, long rows, const PackedKeys& keys, long c0, long cols, double* out, long ldo) {
  const long depth = keys.depth;
  for (long r = 0; r < rows; ++r)
    for (long j = 0; j < cols; ++j) {
      const long t = c0 + j;
      const double* panel = keys.data.data() + (t / 8) * depth * 8 + t % 8;
      double s = 0;
      for (long c = 0; c < depth; ++c) s = std::fma(a[r * lda + c], panel[c * 8], s);
      out[r * ldo + j] = s;
    }
}

void score_block(cpu::Path path, const double* a, long lda, long rows, const PackedKeys& keys, long c0, long cols, double* out, long ldo) {
  if (keys.depth == 0) {
    for (long r = 0; r < rows; ++r)
      for (long j = 0; j < cols; ++j) out[r * ldo + j] = 0;
    return;
  }
  switch (path) {
    case cpu::Path::scalar: break;
#if ROPECHECK_X86
    case cpu::Path::avx2:
    case cpu::Path::avx512:
    case cpu::Path::avx512_bf16: return score_block_avx2(a, lda, rows, keys, c0, cols, out, ldo);
#else
    // Not built off x86 (cmake/Architecture.cmake), and never available there (cpu/path.h).
    case cpu::Path::avx2:
    case cpu::Path::avx512:
    case cpu::Path::avx512_bf16: break;
#endif
  }
  score_block_scalar(a, lda, rows, keys, c0, cols, out, ldo);
}

}  // namespace ropecheck::usage::detail

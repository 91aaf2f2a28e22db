// The AVX2 path (AVX2 + FMA): the twin of scalar.cpp, operation for operation, so results agree
// bit for bit (ops.h). Compiled with -mavx2 -mfma -ffp-contract=off; only reached after path.cpp's
// CPUID/XCR0 probe. Everything is in an anonymous namespace (see avx512.cpp for why). Vector tails
// are finished by the same per-pair formulas in scalar form (__builtin_fma compiles to one VFMADD).
// Compiler builtins, not std::fma/std::isnan/std::bit_cast: those are inline library functions, and
// an unoptimised build could emit an FMA copy of one that the linker then hands to the scalar path.
#include <immintrin.h>

#include <cstdint>

#include "kernel/detail/ops.h"

namespace ropecheck::kernel::detail {
namespace {

// ---- sin/cos: sincos_table.h steps 1-5 for 4 pairs at once ---------------------------------------

inline __m256i turn4(__m256i a0, __m256i a1, __m256i g0, __m256i g1, __m256i g2, __m256i g3) {
  // As avx512.cpp's turn8: the seven 32x32->64 limb products that reach bit 64, exact.
  const __m256i m32 = _mm256_set1_epi64x(0xFFFFFFFF);
  const __m256i p00 = _mm256_mul_epu32(a0, g0), p01 = _mm256_mul_epu32(a0, g1), p10 = _mm256_mul_epu32(a1, g0);
  const __m256i p02 = _mm256_mul_epu32(a0, g2), p11 = _mm256_mul_epu32(a1, g1);
  const __m256i p03 = _mm256_mul_epu32(a0, g3), p12 = _mm256_mul_epu32(a1, g2);
  const __m256i low = _mm256_add_epi64(_mm256_add_epi64(_mm256_and_si256(p01, m32), _mm256_and_si256(p10, m32)),
                                       _mm256_srli_epi64(p00, 32));
  __m256i t = _mm256_slli_epi64(_mm256_add_epi64(p03, p12), 32);
  t = _mm256_add_epi64(t, _mm256_add_epi64(p02, p11));
  t = _mm256_add_epi64(t, _mm256_add_epi64(_mm256_srli_epi64(p01, 32), _mm256_srli_epi64(p10, 32)));
  return _mm256_add_epi64(t, _mm256_srli_epi64(low, 32));
}

// RN((double) r) for r = u - 2^61, 0 <= u < 2^62, without AVX-512DQ's int64 conversion: r is
// (uh - 2^29) 2^32 + ul with both parts exactly representable, so one addition rounds once, as
// the scalar path's int64 -> double conversion does.
inline __m256d offset_to_double(__m256i u) {
  const __m256i uh = _mm256_sub_epi64(_mm256_srli_epi64(u, 32), _mm256_set1_epi64x(std::int64_t{1} << 29));
  const __m256i ul = _mm256_and_si256(u, _mm256_set1_epi64x(0xFFFFFFFF));
  const __m256i packed = _mm256_permutevar8x32_epi32(uh, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6));
  const __m256d hi = _mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(packed)), _mm256_set1_pd(0x1p32));
  const __m256d lo = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(ul, _mm256_set1_epi64x(0x4330000000000000))),
                                   _mm256_set1_pd(0x1p52));
  return _mm256_add_pd(hi, lo);
}

inline void sincos4(__m256i turn, __m256d* c, __m256d* s) {
  const __m256i t = _mm256_add_epi64(turn, _mm256_set1_epi64x(std::int64_t{1} << 61));
  const __m256i q = _mm256_srli_epi64(t, 62);
  const __m256d x = _mm256_mul_pd(offset_to_double(_mm256_and_si256(t, _mm256_set1_epi64x((std::int64_t{1} << 62) - 1))),
                                  _mm256_set1_pd(kTurnToRadian));
  const __m256d z = _mm256_mul_pd(x, x);
  __m256d sp = _mm256_fmadd_pd(z, _mm256_set1_pd(kS6), _mm256_set1_pd(kS5));
  sp = _mm256_fmadd_pd(z, sp, _mm256_set1_pd(kS4));
  sp = _mm256_fmadd_pd(z, sp, _mm256_set1_pd(kS3));
  sp = _mm256_fmadd_pd(z, sp, _mm256_set1_pd(kS2));
  sp = _mm256_fmadd_pd(z, sp, _mm256_set1_pd(kS1));
  const __m256d sin_x = _mm256_fmadd_pd(_mm256_mul_pd(x, z), sp, x);
  __m256d cp = _mm256_fmadd_pd(z, _mm256_set1_pd(kC6), _mm256_set1_pd(kC5));
  cp = _mm256_fmadd_pd(z, cp, _mm256_set1_pd(kC4));
  cp = _mm256_fmadd_pd(z, cp, _mm256_set1_pd(kC3));
  cp = _mm256_fmadd_pd(z, cp, _mm256_set1_pd(kC2));
  cp = _mm256_fmadd_pd(z, cp, _mm256_set1_pd(kC1));
  const __m256d cos_x = _mm256_fmadd_pd(_mm256_mul_pd(z, z), cp, _mm256_fmadd_pd(_mm256_set1_pd(-0.5), z, _mm256_set1_pd(1.0)));
  const __m256i one = _mm256_set1_epi64x(1), two = _mm256_set1_epi64x(2);
  const __m256d odd = _mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_and_si256(q, one), one));
  const __m256d cv = _mm256_blendv_pd(cos_x, sin_x, odd);
  const __m256d sv = _mm256_blendv_pd(sin_x, cos_x, odd);
  const __m256i cneg = _mm256_slli_epi64(_mm256_and_si256(_mm256_add_epi64(q, one), two), 62);
  const __m256i sneg = _mm256_slli_epi64(_mm256_and_si256(q, two), 62);
  *c = _mm256_castsi256_pd(_mm256_xor_si256(_mm256_castpd_si256(cv), cneg));
  *s = _mm256_castsi256_pd(_mm256_xor_si256(_mm256_castpd_si256(sv), sneg));
}

void sincos_row(const TurnLimbs& g, int n, std::int64_t p, double* c, double* s) {
  const std::uint64_t a = p < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(p) : static_cast<std::uint64_t>(p);
  const __m256i a0 = _mm256_set1_epi64x(static_cast<long long>(a & 0xFFFFFFFFu));
  const __m256i a1 = _mm256_set1_epi64x(static_cast<long long>(a >> 32));
  alignas(32) std::uint64_t lanes[4][4];
  alignas(32) double cb[4], sb[4];
  for (int k = 0; k < n; k += 4) {
    const int m = n - k >= 4 ? 4 : n - k;
    __m256i limb[4];
    for (int i = 0; i < 4; ++i) {
      if (m == 4) {
        limb[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(g.limb[i] + k));
      } else {
        for (int j = 0; j < 4; ++j) lanes[i][j] = j < m ? g.limb[i][k + j] : 0;
        limb[i] = _mm256_load_si256(reinterpret_cast<const __m256i*>(lanes[i]));
      }
    }
    __m256i t = turn4(a0, a1, limb[0], limb[1], limb[2], limb[3]);
    if (p < 0) t = _mm256_sub_epi64(_mm256_setzero_si256(), t);
    __m256d cv, sv;
    sincos4(t, &cv, &sv);
    if (m == 4) {
      _mm256_storeu_pd(c + k, cv);
      _mm256_storeu_pd(s + k, sv);
    } else {
      _mm256_store_pd(cb, cv);
      _mm256_store_pd(sb, sv);
      for (int j = 0; j < m; ++j) {
        c[k + j] = cb[j];
        s[k + j] = sb[j];
      }
    }
  }
}

// ---- rotation --------------------------------------------------------------------------------

inline float canonical(float y) { return __builtin_isnan(y) ? __builtin_bit_cast(float, 0x7FC00000u) : y; }
inline std::uint16_t bf16_rne(float f) {
  const std::uint32_t u = __builtin_bit_cast(std::uint32_t, f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC0;
  return static_cast<std::uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
inline float widen(std::uint16_t b) { return __builtin_bit_cast(float, static_cast<std::uint32_t>(b) << 16); }

// One pair by scalar.cpp's formulas (vector tails).
inline void pair_f32(const float* x, float* y, int a, int b, double c, double s, bool identity) {
  if (identity) {
    __builtin_memmove(y + a, x + a, sizeof(float));
    __builtin_memmove(y + b, x + b, sizeof(float));
    return;
  }
  const double xa = x[a], xb = x[b];
  const double ya = __builtin_fma(xa, c, -(xb * s));
  const double yb = __builtin_fma(xb, c, xa * s);
  y[a] = canonical(static_cast<float>(ya));
  y[b] = canonical(static_cast<float>(yb));
}
inline void pair_bf16(const std::uint16_t* x, std::uint16_t* y, int a, int b, double c, double s, bool identity) {
  if (identity) {
    const std::uint16_t xa = x[a], xb = x[b];
    y[a] = xa;
    y[b] = xb;
    return;
  }
  const float cf = static_cast<float>(c), sf = static_cast<float>(s);
  const float xa = widen(x[a]), xb = widen(x[b]);
  const float ya = __builtin_fmaf(xa, cf, -(xb * sf));
  const float yb = __builtin_fmaf(xb, cf, xa * sf);
  y[a] = bf16_rne(ya);
  y[b] = bf16_rne(yb);
}

template <typename E>
void copy_passthrough(const RowShape& shape, const E* in, E* out) {
  if (in != out && shape.dim > 2 * shape.block)
    __builtin_memmove(out + 2 * shape.block, in + 2 * shape.block, sizeof(E) * static_cast<size_t>(shape.dim - 2 * shape.block));
}

inline __m256 canonical8(__m256 y) {
  return _mm256_blendv_ps(y, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000)), _mm256_cmp_ps(y, y, _CMP_UNORD_Q));
}
inline __m128 canonical4(__m128 y) {
  return _mm_blendv_ps(y, _mm_castsi128_ps(_mm_set1_epi32(0x7FC00000)), _mm_cmpunord_ps(y, y));
}
inline __m256 rotates8(const std::uint8_t* flags) {
  const __m256i f = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(flags)));
  return _mm256_castsi256_ps(_mm256_cmpgt_epi32(f, _mm256_setzero_si256()));
}
inline __m128 rotates4(const std::uint8_t* flags) {
  std::int32_t bytes;
  __builtin_memcpy(&bytes, flags, 4);
  const __m128i f = _mm_cvtepu8_epi32(_mm_cvtsi32_si128(bytes));
  return _mm_castsi128_ps(_mm_cmpgt_epi32(f, _mm_setzero_si128()));
}

void rotate_f32(const RowShape& sh, const double* c, const double* s, const float* in, std::int64_t in_hs, float* out,
                std::int64_t out_hs, std::int64_t heads, bool stream, double* scratch) {
  const int r = sh.block;
  if (sh.layout == Layout::interleaved) {
    const int n = 2 * r, full = n - n % 8;
    double* cd = scratch;
    double* sd = scratch + n + 8;
    for (int k = 0; k < r; ++k) {
      cd[2 * k] = c[k];
      cd[2 * k + 1] = c[k];
      sd[2 * k] = -s[k];
      sd[2 * k + 1] = s[k];
    }
    for (std::int64_t h = 0; h < heads; ++h) {
      const float* x = in + h * in_hs;
      float* y = out + h * out_hs;
      const bool st = stream && full == n && (reinterpret_cast<std::uintptr_t>(y) % 32) == 0;
      for (int i = 0; i < full; i += 8) {
        const __m256 xf = _mm256_loadu_ps(x + i);
        const __m256d xl = _mm256_cvtps_pd(_mm256_castps256_ps128(xf));
        const __m256d xh = _mm256_cvtps_pd(_mm256_extractf128_ps(xf, 1));
        const __m256d yl = _mm256_fmadd_pd(xl, _mm256_loadu_pd(cd + i), _mm256_mul_pd(_mm256_permute_pd(xl, 0x5), _mm256_loadu_pd(sd + i)));
        const __m256d yh = _mm256_fmadd_pd(xh, _mm256_loadu_pd(cd + i + 4), _mm256_mul_pd(_mm256_permute_pd(xh, 0x5), _mm256_loadu_pd(sd + i + 4)));
        __m256 yf = canonical8(_mm256_set_m128(_mm256_cvtpd_ps(yh), _mm256_cvtpd_ps(yl)));
        if (sh.any_identity) yf = _mm256_blendv_ps(xf, yf, rotates8(sh.element_rotates + i));
        if (st) _mm256_stream_ps(y + i, yf);
        else _mm256_storeu_ps(y + i, yf);
      }
      for (int k = full / 2; k < r; ++k) pair_f32(x, y, 2 * k, 2 * k + 1, c[k], s[k], sh.pair_identity[k] != 0);
      copy_passthrough(sh, x, y);
    }
    return;
  }
  const int full = r - r % 4;
  for (std::int64_t h = 0; h < heads; ++h) {
    const float* x = in + h * in_hs;
    float* y = out + h * out_hs;
    const bool st = stream && full == r && (reinterpret_cast<std::uintptr_t>(y) % 16) == 0;
    for (int k = 0; k < full; k += 4) {
      const __m128 xaf = _mm_loadu_ps(x + k), xbf = _mm_loadu_ps(x + r + k);
      const __m256d xa = _mm256_cvtps_pd(xaf), xb = _mm256_cvtps_pd(xbf);
      const __m256d cv = _mm256_loadu_pd(c + k), sv = _mm256_loadu_pd(s + k);
      __m128 ya = canonical4(_mm256_cvtpd_ps(_mm256_fmsub_pd(xa, cv, _mm256_mul_pd(xb, sv))));
      __m128 yb = canonical4(_mm256_cvtpd_ps(_mm256_fmadd_pd(xb, cv, _mm256_mul_pd(xa, sv))));
      if (sh.any_identity) {
        const __m128 rot = rotates4(sh.element_rotates + k);
        ya = _mm_blendv_ps(xaf, ya, rot);
        yb = _mm_blendv_ps(xbf, yb, rot);
      }
      if (st) {
        _mm_stream_ps(y + k, ya);
        _mm_stream_ps(y + r + k, yb);
      } else {
        _mm_storeu_ps(y + k, ya);
        _mm_storeu_ps(y + r + k, yb);
      }
    }
    for (int k = full; k < r; ++k) pair_f32(x, y, k, k + r, c[k], s[k], sh.pair_identity[k] != 0);
    copy_passthrough(sh, x, y);
  }
}

inline __m256 widen8(__m128i b) { return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(b), 16)); }

inline __m128i to_bf16_8(__m256 y) {
  const __m256i u = _mm256_castps_si256(y);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  __m256i r = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7FFF)), lsb), 16);
  r = _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(r), _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC0)),
                                           _mm256_cmp_ps(y, y, _CMP_UNORD_Q)));
  return _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));  // values <= 0xFFFF: no saturation
}
inline __m128i rotates8h(const std::uint8_t* flags) {
  const __m128i f = _mm_cvtepu8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(flags)));
  return _mm_cmpgt_epi16(f, _mm_setzero_si128());
}
inline void store128(std::uint16_t* p, __m128i v, bool stream) {
  if (stream) _mm_stream_si128(reinterpret_cast<__m128i*>(p), v);
  else _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v);
}

void rotate_bf16(const RowShape& sh, const double* c, const double* s, const std::uint16_t* in, std::int64_t in_hs,
                 std::uint16_t* out, std::int64_t out_hs, std::int64_t heads, bool stream, double* scratch) {
  const int r = sh.block;
  float* cf = reinterpret_cast<float*>(scratch);
  if (sh.layout == Layout::interleaved) {
    const int n = 2 * r, full = n - n % 8;
    float* sf = cf + n + 16;
    for (int k = 0; k < r; ++k) {
      const float cv = static_cast<float>(c[k]), sv = static_cast<float>(s[k]);
      cf[2 * k] = cv;
      cf[2 * k + 1] = cv;
      sf[2 * k] = -sv;
      sf[2 * k + 1] = sv;
    }
    for (std::int64_t h = 0; h < heads; ++h) {
      const std::uint16_t* x = in + h * in_hs;
      std::uint16_t* y = out + h * out_hs;
      const bool st = stream && full == n && (reinterpret_cast<std::uintptr_t>(y) % 16) == 0;
      for (int i = 0; i < full; i += 8) {
        const __m128i xb = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i));
        const __m256 xf = widen8(xb);
        const __m256 yf = _mm256_fmadd_ps(xf, _mm256_loadu_ps(cf + i), _mm256_mul_ps(_mm256_permute_ps(xf, 0xB1), _mm256_loadu_ps(sf + i)));
        __m128i yb = to_bf16_8(yf);
        if (sh.any_identity) yb = _mm_blendv_epi8(xb, yb, rotates8h(sh.element_rotates + i));
        store128(y + i, yb, st);
      }
      for (int k = full / 2; k < r; ++k) pair_bf16(x, y, 2 * k, 2 * k + 1, c[k], s[k], sh.pair_identity[k] != 0);
      copy_passthrough(sh, x, y);
    }
    return;
  }
  float* sf = cf + r + 16;
  for (int k = 0; k < r; ++k) {
    cf[k] = static_cast<float>(c[k]);
    sf[k] = static_cast<float>(s[k]);
  }
  const int full = r - r % 8;
  for (std::int64_t h = 0; h < heads; ++h) {
    const std::uint16_t* x = in + h * in_hs;
    std::uint16_t* y = out + h * out_hs;
    const bool st = stream && full == r && (reinterpret_cast<std::uintptr_t>(y) % 16) == 0;
    for (int k = 0; k < full; k += 8) {
      const __m128i xab = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + k));
      const __m128i xbb = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + r + k));
      const __m256 xa = widen8(xab), xb = widen8(xbb);
      const __m256 cv = _mm256_loadu_ps(cf + k), sv = _mm256_loadu_ps(sf + k);
      __m128i ya = to_bf16_8(_mm256_fmsub_ps(xa, cv, _mm256_mul_ps(xb, sv)));
      __m128i yb = to_bf16_8(_mm256_fmadd_ps(xb, cv, _mm256_mul_ps(xa, sv)));
      if (sh.any_identity) {
        const __m128i rot = rotates8h(sh.element_rotates + k);
        ya = _mm_blendv_epi8(xab, ya, rot);
        yb = _mm_blendv_epi8(xbb, yb, rot);
      }
      store128(y + k, ya, st);
      store128(y + r + k, yb, st);
    }
    for (int k = full; k < r; ++k) pair_bf16(x, y, k, k + r, c[k], s[k], sh.pair_identity[k] != 0);
    copy_passthrough(sh, x, y);
  }
}

}  // namespace

const PathOps& avx2_ops() {
  static const PathOps ops{&sincos_row, &rotate_f32, &rotate_bf16};
  return ops;
}

}  // namespace ropecheck::kernel::detail

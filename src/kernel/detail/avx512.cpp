// The AVX-512 paths (F/BW/DQ/VL + FMA; avx512-bf16 adds VCVTNEPS2BF16): twins of scalar.cpp,
// operation for operation, so results agree bit for bit (ops.h). Compiled with -mavx512f
// -mavx512bw -mavx512dq -mavx512vl -mavx512bf16 -mfma -ffp-contract=off; only reached after
// path.cpp's CPUID/XCR0 probe, and the avx512 path never executes a BF16 instruction.
// Everything here is in an anonymous namespace and uses no inline function shared with other
// files: an AVX-512 copy of a shared inline function could be picked by the linker for callers
// on CPUs without AVX-512.
#include <immintrin.h>

#include <cstdint>
#include <type_traits>

#include "kernel/detail/ops.h"

namespace ropecheck::kernel::detail {
namespace {

// ---- sin/cos: sincos_table.h steps 1-5 for 8 pairs at once --------------------------------------

// floor(a G / 2^64) mod 2^64 from 32-bit limbs: the seven 32x32->64 products that reach bit 64
// (a = a1 2^32 + a0, G = sum g_i 2^32i; products with i + j >= 4 only add multiples of 2^128).
// Exact, hence equal to scalar.cpp's 128-bit computation.
inline __m512i turn8(__m512i a0, __m512i a1, __m512i g0, __m512i g1, __m512i g2, __m512i g3) {
  const __m512i m32 = _mm512_set1_epi64(0xFFFFFFFF);
  const __m512i p00 = _mm512_mul_epu32(a0, g0), p01 = _mm512_mul_epu32(a0, g1), p10 = _mm512_mul_epu32(a1, g0);
  const __m512i p02 = _mm512_mul_epu32(a0, g2), p11 = _mm512_mul_epu32(a1, g1);
  const __m512i p03 = _mm512_mul_epu32(a0, g3), p12 = _mm512_mul_epu32(a1, g2);
  // Bits 64.. of the terms at 2^32: their high halves, plus the carry out of the low 64 bits.
  const __m512i low = _mm512_add_epi64(_mm512_add_epi64(_mm512_and_si512(p01, m32), _mm512_and_si512(p10, m32)),
                                       _mm512_srli_epi64(p00, 32));
  __m512i t = _mm512_slli_epi64(_mm512_add_epi64(p03, p12), 32);
  t = _mm512_add_epi64(t, _mm512_add_epi64(p02, p11));
  t = _mm512_add_epi64(t, _mm512_add_epi64(_mm512_srli_epi64(p01, 32), _mm512_srli_epi64(p10, 32)));
  return _mm512_add_epi64(t, _mm512_srli_epi64(low, 32));
}

inline void sincos8(__m512i turn, __m512d* c, __m512d* s) {
  const __m512i t = _mm512_add_epi64(turn, _mm512_set1_epi64(std::int64_t{1} << 61));
  const __m512i q = _mm512_srli_epi64(t, 62);
  const __m512i r = _mm512_sub_epi64(_mm512_and_si512(t, _mm512_set1_epi64((std::int64_t{1} << 62) - 1)),
                                     _mm512_set1_epi64(std::int64_t{1} << 61));
  const __m512d x = _mm512_mul_pd(_mm512_cvtepi64_pd(r), _mm512_set1_pd(kTurnToRadian));
  const __m512d z = _mm512_mul_pd(x, x);
  __m512d sp = _mm512_fmadd_pd(z, _mm512_set1_pd(kS6), _mm512_set1_pd(kS5));
  sp = _mm512_fmadd_pd(z, sp, _mm512_set1_pd(kS4));
  sp = _mm512_fmadd_pd(z, sp, _mm512_set1_pd(kS3));
  sp = _mm512_fmadd_pd(z, sp, _mm512_set1_pd(kS2));
  sp = _mm512_fmadd_pd(z, sp, _mm512_set1_pd(kS1));
  const __m512d sin_x = _mm512_fmadd_pd(_mm512_mul_pd(x, z), sp, x);
  __m512d cp = _mm512_fmadd_pd(z, _mm512_set1_pd(kC6), _mm512_set1_pd(kC5));
  cp = _mm512_fmadd_pd(z, cp, _mm512_set1_pd(kC4));
  cp = _mm512_fmadd_pd(z, cp, _mm512_set1_pd(kC3));
  cp = _mm512_fmadd_pd(z, cp, _mm512_set1_pd(kC2));
  cp = _mm512_fmadd_pd(z, cp, _mm512_set1_pd(kC1));
  const __m512d cos_x = _mm512_fmadd_pd(_mm512_mul_pd(z, z), cp, _mm512_fmadd_pd(_mm512_set1_pd(-0.5), z, _mm512_set1_pd(1.0)));
  const __m512i one = _mm512_set1_epi64(1), two = _mm512_set1_epi64(2);
  const __mmask8 odd = _mm512_test_epi64_mask(q, one);
  const __m512d cv = _mm512_mask_blend_pd(odd, cos_x, sin_x);
  const __m512d sv = _mm512_mask_blend_pd(odd, sin_x, cos_x);
  // Sign flips (exact, as scalar's unary minus): cos negative in quadrants 1, 2; sin in 2, 3.
  const __m512i cneg = _mm512_slli_epi64(_mm512_and_si512(_mm512_add_epi64(q, one), two), 62);
  const __m512i sneg = _mm512_slli_epi64(_mm512_and_si512(q, two), 62);
  *c = _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(cv), cneg));
  *s = _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(sv), sneg));
}

void sincos_row(const TurnLimbs& g, int n, std::int64_t p, double* c, double* s) {
  const std::uint64_t a = p < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(p) : static_cast<std::uint64_t>(p);
  const __m512i a0 = _mm512_set1_epi64(static_cast<long long>(a & 0xFFFFFFFFu));
  const __m512i a1 = _mm512_set1_epi64(static_cast<long long>(a >> 32));
  const bool negative = p < 0;
  for (int k = 0; k < n; k += 8) {
    const __mmask8 m = n - k >= 8 ? __mmask8(0xFF) : static_cast<__mmask8>((1u << (n - k)) - 1);
    __m512i t = turn8(a0, a1, _mm512_maskz_loadu_epi64(m, g.limb[0] + k), _mm512_maskz_loadu_epi64(m, g.limb[1] + k),
                      _mm512_maskz_loadu_epi64(m, g.limb[2] + k), _mm512_maskz_loadu_epi64(m, g.limb[3] + k));
    if (negative) t = _mm512_sub_epi64(_mm512_setzero_si512(), t);
    __m512d cv, sv;
    sincos8(t, &cv, &sv);
    _mm512_mask_storeu_pd(c + k, m, cv);
    _mm512_mask_storeu_pd(s + k, m, sv);
  }
}

// ---- rotation --------------------------------------------------------------------------------

inline __mmask16 tail16(int left) { return left >= 16 ? __mmask16(0xFFFF) : static_cast<__mmask16>((1u << left) - 1); }

inline __m512 canonical16(__m512 y) {
  const __mmask16 nan = _mm512_cmp_ps_mask(y, y, _CMP_UNORD_Q);
  return _mm512_mask_mov_ps(y, nan, _mm512_castsi512_ps(_mm512_set1_epi32(0x7FC00000)));
}

inline __m256 canonical8(__m256 y) {
  const __mmask8 nan = _mm256_cmp_ps_mask(y, y, _CMP_UNORD_Q);
  return _mm256_mask_mov_ps(y, nan, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000)));
}

// f32 -> bf16, round to nearest even, NaN -> 0x7FC0 (bf16.h), 16 lanes. The native instruction
// (kNative) treats subnormal inputs as zero; lanes with a subnormal (or NaN) f32 value take the
// integer rounding, which is exact for them as for all others.
template <bool kNative>
inline __m256i to_bf16(__m512 y) {
  const __m512i u = _mm512_castps_si512(y);
  auto integer = [&] {
    const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
    __m512i r = _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7FFF)), lsb), 16);
    const __mmask16 nan = _mm512_cmp_ps_mask(y, y, _CMP_UNORD_Q);
    r = _mm512_mask_mov_epi32(r, nan, _mm512_set1_epi32(0x7FC0));
    return _mm512_cvtepi32_epi16(r);
  };
  if constexpr (kNative) {
    // fpclass 0x01 QNaN, 0x80 SNaN, 0x20 denormal: the lanes where VCVTNEPS2BF16 differs.
    const __mmask16 special = _mm512_fpclass_ps_mask(y, 0xA1);
    const __m256i native = (__m256i)_mm512_cvtneps_pbh(y);
    if (special == 0) return native;
    return _mm256_mask_blend_epi16(special, native, integer());
  } else {
    return integer();
  }
}

inline void store16(float* p, __m512 v, bool stream) {
  if (stream) _mm512_stream_ps(p, v);
  else _mm512_storeu_ps(p, v);
}
inline void store8(float* p, __m256 v, bool stream) {
  if (stream) _mm256_stream_ps(p, v);
  else _mm256_storeu_ps(p, v);
}
inline void store16h(std::uint16_t* p, __m256i v, bool stream) {
  if (stream) _mm256_stream_si256(reinterpret_cast<__m256i*>(p), v);
  else _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
}

template <typename E>
void copy_passthrough(const RowShape& shape, const E* in, E* out) {
  if (in != out && shape.dim > 2 * shape.block)
    __builtin_memmove(out + 2 * shape.block, in + 2 * shape.block, sizeof(E) * static_cast<size_t>(shape.dim - 2 * shape.block));
}

// Interleaved f32: 16 floats (8 pairs) per step, as two vectors of 4 pairs in binary64 with
// per-lane tables C = (c0, c0, c1, c1, ...), S = (-s0, s0, -s1, s1, ...): the pair swap times S
// is (-(x_b s), x_a s) exactly, so y = fma(x, C, swap(x) S) is scalar's formula lane by lane.
template <bool kIdentity>
void rotate_f32_interleaved(const RowShape& sh, const double* c, const double* s, const float* in, std::int64_t in_hs,
                            float* out, std::int64_t out_hs, std::int64_t heads, bool stream, double* scratch) {
  const int n = 2 * sh.block;
  double* cd = scratch;                       // 64-byte aligned (ops.h)
  double* sd = scratch + (n + 15) / 8 * 8;    // 64-byte aligned too: aligned loads in the hot loop
  for (int k = 0; k < sh.block; ++k) {
    cd[2 * k] = c[k];
    cd[2 * k + 1] = c[k];
    sd[2 * k] = -s[k];
    sd[2 * k + 1] = s[k];
  }
  const bool aligned_rows = (n % 16) == 0;
  for (std::int64_t h = 0; h < heads; ++h) {
    const float* x = in + h * in_hs;
    float* y = out + h * out_hs;
    const bool st = stream && aligned_rows && (reinterpret_cast<std::uintptr_t>(y) % 64) == 0;
    // Whole vectors without masks (the hot loop), then at most one masked tail.
    auto step = [&](int i, auto full, __mmask16 m) {
      constexpr bool kFull = decltype(full)::value;
      const __mmask8 ml = static_cast<__mmask8>(m), mh = static_cast<__mmask8>(m >> 8);
      const __m512 xf = kFull ? _mm512_loadu_ps(x + i) : _mm512_maskz_loadu_ps(m, x + i);
      const __m512d xl = _mm512_cvtps_pd(_mm512_castps512_ps256(xf));
      const __m512d xh = _mm512_cvtps_pd(_mm512_extractf32x8_ps(xf, 1));
      const __m512d cl = kFull ? _mm512_load_pd(cd + i) : _mm512_maskz_loadu_pd(ml, cd + i);
      const __m512d sl = kFull ? _mm512_load_pd(sd + i) : _mm512_maskz_loadu_pd(ml, sd + i);
      const __m512d ch = kFull ? _mm512_load_pd(cd + i + 8) : _mm512_maskz_loadu_pd(mh, cd + i + 8);
      const __m512d sh8 = kFull ? _mm512_load_pd(sd + i + 8) : _mm512_maskz_loadu_pd(mh, sd + i + 8);
      const __m512d yl = _mm512_fmadd_pd(xl, cl, _mm512_mul_pd(_mm512_permute_pd(xl, 0x55), sl));
      const __m512d yh = _mm512_fmadd_pd(xh, ch, _mm512_mul_pd(_mm512_permute_pd(xh, 0x55), sh8));
      __m512 yf = _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(yl)), _mm512_cvtpd_ps(yh), 1);
      yf = canonical16(yf);
      if constexpr (kIdentity) {
        const __mmask16 rot = _mm_cmpneq_epi8_mask(_mm_loadu_si128(reinterpret_cast<const __m128i*>(sh.element_rotates + i)), _mm_setzero_si128());
        yf = _mm512_mask_blend_ps(rot, xf, yf);
      }
      if constexpr (kFull) store16(y + i, yf, st);
      else _mm512_mask_storeu_ps(y + i, m, yf);
    };
    int i = 0;
    for (; i + 16 <= n; i += 16) step(i, std::true_type{}, __mmask16(0xFFFF));
    if (i < n) step(i, std::false_type{}, tail16(n - i));
    copy_passthrough(sh, x, y);
  }
}

// Half f32: 8 pairs per step, (x[k..k+8), x[R+k..R+k+8)) in binary64.
template <bool kIdentity>
void rotate_f32_half(const RowShape& sh, const double* c, const double* s, const float* in, std::int64_t in_hs,
                     float* out, std::int64_t out_hs, std::int64_t heads, bool stream, double*) {
  const int r = sh.block;
  const bool aligned_rows = (r % 8) == 0;
  for (std::int64_t h = 0; h < heads; ++h) {
    const float* x = in + h * in_hs;
    float* y = out + h * out_hs;
    const bool st = stream && aligned_rows && (reinterpret_cast<std::uintptr_t>(y) % 32) == 0;
    auto step = [&](int k, auto full, __mmask8 m) {
      constexpr bool kFull = decltype(full)::value;
      const __m256 xaf = kFull ? _mm256_loadu_ps(x + k) : _mm256_maskz_loadu_ps(m, x + k);
      const __m256 xbf = kFull ? _mm256_loadu_ps(x + r + k) : _mm256_maskz_loadu_ps(m, x + r + k);
      const __m512d xa = _mm512_cvtps_pd(xaf), xb = _mm512_cvtps_pd(xbf);
      const __m512d cv = kFull ? _mm512_loadu_pd(c + k) : _mm512_maskz_loadu_pd(m, c + k);
      const __m512d sv = kFull ? _mm512_loadu_pd(s + k) : _mm512_maskz_loadu_pd(m, s + k);
      __m256 ya = canonical8(_mm512_cvtpd_ps(_mm512_fmsub_pd(xa, cv, _mm512_mul_pd(xb, sv))));
      __m256 yb = canonical8(_mm512_cvtpd_ps(_mm512_fmadd_pd(xb, cv, _mm512_mul_pd(xa, sv))));
      if constexpr (kIdentity) {
        const __mmask8 rot = _mm_cmpneq_epi8_mask(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(sh.element_rotates + k)), _mm_setzero_si128());
        ya = _mm256_mask_blend_ps(rot, xaf, ya);
        yb = _mm256_mask_blend_ps(rot, xbf, yb);
      }
      if constexpr (kFull) {
        store8(y + k, ya, st);
        store8(y + r + k, yb, st);
      } else {
        _mm256_mask_storeu_ps(y + k, m, ya);
        _mm256_mask_storeu_ps(y + r + k, m, yb);
      }
    };
    int k = 0;
    for (; k + 8 <= r; k += 8) step(k, std::true_type{}, __mmask8(0xFF));
    if (k < r) step(k, std::false_type{}, static_cast<__mmask8>((1u << (r - k)) - 1));
    copy_passthrough(sh, x, y);
  }
}

void rotate_f32(const RowShape& sh, const double* c, const double* s, const float* in, std::int64_t in_hs, float* out,
                std::int64_t out_hs, std::int64_t heads, bool stream, double* scratch) {
  if (sh.layout == Layout::interleaved) {
    if (sh.any_identity) rotate_f32_interleaved<true>(sh, c, s, in, in_hs, out, out_hs, heads, stream, scratch);
    else rotate_f32_interleaved<false>(sh, c, s, in, in_hs, out, out_hs, heads, stream, scratch);
  } else {
    if (sh.any_identity) rotate_f32_half<true>(sh, c, s, in, in_hs, out, out_hs, heads, stream, scratch);
    else rotate_f32_half<false>(sh, c, s, in, in_hs, out, out_hs, heads, stream, scratch);
  }
}

inline __m512 widen_bf16(__m256i b) { return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(b), 16)); }

// Interleaved bf16: 16 elements (8 pairs) per step in binary32 with float tables C, S as above.
template <bool kNative, bool kIdentity>
void rotate_bf16_interleaved(const RowShape& sh, const double* c, const double* s, const std::uint16_t* in,
                             std::int64_t in_hs, std::uint16_t* out, std::int64_t out_hs, std::int64_t heads,
                             bool stream, double* scratch) {
  const int n = 2 * sh.block;
  float* cf = reinterpret_cast<float*>(scratch);
  float* sf = cf + n + 16;
  for (int k = 0; k < sh.block; ++k) {
    const float cv = static_cast<float>(c[k]), sv = static_cast<float>(s[k]);
    cf[2 * k] = cv;
    cf[2 * k + 1] = cv;
    sf[2 * k] = -sv;
    sf[2 * k + 1] = sv;
  }
  const bool aligned_rows = (n % 16) == 0;
  for (std::int64_t h = 0; h < heads; ++h) {
    const std::uint16_t* x = in + h * in_hs;
    std::uint16_t* y = out + h * out_hs;
    const bool st = stream && aligned_rows && (reinterpret_cast<std::uintptr_t>(y) % 32) == 0;
    auto step = [&](int i, auto full, __mmask16 m) {
      constexpr bool kFull = decltype(full)::value;
      const __m256i xb = kFull ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i)) : _mm256_maskz_loadu_epi16(m, x + i);
      const __m512 xf = widen_bf16(xb);
      const __m512 cv = kFull ? _mm512_loadu_ps(cf + i) : _mm512_maskz_loadu_ps(m, cf + i);
      const __m512 sv = kFull ? _mm512_loadu_ps(sf + i) : _mm512_maskz_loadu_ps(m, sf + i);
      const __m512 yf = _mm512_fmadd_ps(xf, cv, _mm512_mul_ps(_mm512_permute_ps(xf, 0xB1), sv));
      __m256i yb = to_bf16<kNative>(yf);
      if constexpr (kIdentity) {
        const __mmask16 rot = _mm_cmpneq_epi8_mask(_mm_loadu_si128(reinterpret_cast<const __m128i*>(sh.element_rotates + i)), _mm_setzero_si128());
        yb = _mm256_mask_blend_epi16(rot, xb, yb);
      }
      if constexpr (kFull) store16h(y + i, yb, st);
      else _mm256_mask_storeu_epi16(y + i, m, yb);
    };
    int i = 0;
    for (; i + 16 <= n; i += 16) step(i, std::true_type{}, __mmask16(0xFFFF));
    if (i < n) step(i, std::false_type{}, tail16(n - i));
    copy_passthrough(sh, x, y);
  }
}

// Half bf16: 16 pairs per step in binary32.
template <bool kNative, bool kIdentity>
void rotate_bf16_half(const RowShape& sh, const double* c, const double* s, const std::uint16_t* in, std::int64_t in_hs,
                      std::uint16_t* out, std::int64_t out_hs, std::int64_t heads, bool stream, double* scratch) {
  const int r = sh.block;
  float* cf = reinterpret_cast<float*>(scratch);
  float* sf = cf + r + 16;
  for (int k = 0; k < r; ++k) {
    cf[k] = static_cast<float>(c[k]);
    sf[k] = static_cast<float>(s[k]);
  }
  const bool aligned_rows = (r % 16) == 0;
  for (std::int64_t h = 0; h < heads; ++h) {
    const std::uint16_t* x = in + h * in_hs;
    std::uint16_t* y = out + h * out_hs;
    const bool st = stream && aligned_rows && (reinterpret_cast<std::uintptr_t>(y) % 32) == 0;
    auto step = [&](int k, auto full, __mmask16 m) {
      constexpr bool kFull = decltype(full)::value;
      const __m256i xab = kFull ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + k)) : _mm256_maskz_loadu_epi16(m, x + k);
      const __m256i xbb = kFull ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + r + k)) : _mm256_maskz_loadu_epi16(m, x + r + k);
      const __m512 xa = widen_bf16(xab), xb = widen_bf16(xbb);
      const __m512 cv = kFull ? _mm512_loadu_ps(cf + k) : _mm512_maskz_loadu_ps(m, cf + k);
      const __m512 sv = kFull ? _mm512_loadu_ps(sf + k) : _mm512_maskz_loadu_ps(m, sf + k);
      __m256i ya = to_bf16<kNative>(_mm512_fmsub_ps(xa, cv, _mm512_mul_ps(xb, sv)));
      __m256i yb = to_bf16<kNative>(_mm512_fmadd_ps(xb, cv, _mm512_mul_ps(xa, sv)));
      if constexpr (kIdentity) {
        const __mmask16 rot = _mm_cmpneq_epi8_mask(_mm_loadu_si128(reinterpret_cast<const __m128i*>(sh.element_rotates + k)), _mm_setzero_si128());
        ya = _mm256_mask_blend_epi16(rot, xab, ya);
        yb = _mm256_mask_blend_epi16(rot, xbb, yb);
      }
      if constexpr (kFull) {
        store16h(y + k, ya, st);
        store16h(y + r + k, yb, st);
      } else {
        _mm256_mask_storeu_epi16(y + k, m, ya);
        _mm256_mask_storeu_epi16(y + r + k, m, yb);
      }
    };
    int k = 0;
    for (; k + 16 <= r; k += 16) step(k, std::true_type{}, __mmask16(0xFFFF));
    if (k < r) step(k, std::false_type{}, tail16(r - k));
    copy_passthrough(sh, x, y);
  }
}

template <bool kNative>
void rotate_bf16(const RowShape& sh, const double* c, const double* s, const std::uint16_t* in, std::int64_t in_hs,
                 std::uint16_t* out, std::int64_t out_hs, std::int64_t heads, bool stream, double* scratch) {
  if (sh.layout == Layout::interleaved) {
    if (sh.any_identity) rotate_bf16_interleaved<kNative, true>(sh, c, s, in, in_hs, out, out_hs, heads, stream, scratch);
    else rotate_bf16_interleaved<kNative, false>(sh, c, s, in, in_hs, out, out_hs, heads, stream, scratch);
  } else {
    if (sh.any_identity) rotate_bf16_half<kNative, true>(sh, c, s, in, in_hs, out, out_hs, heads, stream, scratch);
    else rotate_bf16_half<kNative, false>(sh, c, s, in, in_hs, out, out_hs, heads, stream, scratch);
  }
}

}  // namespace

const PathOps& avx512_ops() {
  static const PathOps ops{&sincos_row, &rotate_f32, &rotate_bf16<false>};
  return ops;
}

const PathOps& avx512_bf16_ops() {
  static const PathOps ops{&sincos_row, &rotate_f32, &rotate_bf16<true>};
  return ops;
}

}  // namespace ropecheck::kernel::detail

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
inline void store16(std::uint16_t* p, __m256i v, bool stream) {
  if (stream) _mm256_stream_si256(reinterpret_cast<__m256i*>(p), v);
  else _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
}
inline void store16(float* p, __m512 v, __mmask16 m) { _mm512_mask_storeu_ps(p, m, v); }
inline void store16(std::uint16_t* p, __m256i v, __mmask16 m) { _mm256_mask_storeu_epi16(p, m, v); }

// 16 elements in as floats (exact for both formats), the raw element bits kept for identity lanes.
struct In16 {
  __m512 f;
  __m256i raw;  // bf16: the input bits
};
inline In16 load16(const float* p, __mmask16 m, bool full) {
  In16 v;
  v.f = full ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(m, p);
  return v;
}
inline In16 load16(const std::uint16_t* p, __mmask16 m, bool full) {
  In16 v;
  v.raw = full ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)) : _mm256_maskz_loadu_epi16(m, p);
  v.f = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(v.raw), 16));
  return v;
}

// scalar.cpp's finish() and formulas with builtins, for the lanes the accurate path takes.
inline double widen(float v) { return v; }
inline double widen(std::uint16_t b) { return __builtin_bit_cast(float, static_cast<std::uint32_t>(b) << 16); }
inline float slow_path(const SlowPath& sp, int k, float xa, float xb, bool b, float fast) { return slow_f32(sp, k, xa, xb, b, fast); }
inline std::uint16_t slow_path(const SlowPath& sp, int k, std::uint16_t xa, std::uint16_t xb, bool b, std::uint16_t fast) {
  return slow_bf16(sp, k, xa, xb, b, fast);
}

// The fast path's 16 outputs from two halves of 8 doubles, with ops.h's rounding test.
template <typename E, bool kNative>
struct Out16 {
  __m512 f;       // f32 outputs (canonical NaN)
  __m256i b;      // bf16 outputs
  __mmask16 pass; // lanes whose rounding test passed
};
template <typename E, bool kNative>
inline Out16<E, kNative> round16(__m512d y0, __m512d y1, __m512d e0, __m512d e1) {
  auto narrow = [](__m512d a, __m512d b) { return _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(a)), _mm512_cvtpd_ps(b), 1); };
  const __m512 y = narrow(y0, y1);
  const __m512 lo = narrow(_mm512_sub_pd(y0, e0), _mm512_sub_pd(y1, e1));
  const __m512 hi = narrow(_mm512_add_pd(y0, e0), _mm512_add_pd(y1, e1));
  const __m512d inf = _mm512_set1_pd(__builtin_huge_val());
  const __mmask16 finite = static_cast<__mmask16>(_mm512_cmp_pd_mask(e0, inf, _CMP_LT_OQ) |
                                                  (static_cast<unsigned>(_mm512_cmp_pd_mask(e1, inf, _CMP_LT_OQ)) << 8));
  Out16<E, kNative> r;
  if constexpr (std::is_same_v<E, float>) {
    r.f = canonical16(y);
    r.pass = finite & _mm512_cmpeq_epi32_mask(_mm512_castps_si512(lo), _mm512_castps_si512(hi));
  } else {
    r.b = to_bf16<kNative>(y);
    const __m512i mask16 = _mm512_set1_epi32(0xFFFF), mid = _mm512_set1_epi32(0x8000);
    const __mmask16 lmid = _mm512_cmpeq_epi32_mask(_mm512_and_si512(_mm512_castps_si512(lo), mask16), mid);
    const __mmask16 hmid = _mm512_cmpeq_epi32_mask(_mm512_and_si512(_mm512_castps_si512(hi), mask16), mid);
    const __mmask16 same = _mm256_cmpeq_epi16_mask(to_bf16<false>(lo), to_bf16<false>(hi));
    r.pass = finite & same & static_cast<__mmask16>(~(lmid | hmid));
  }
  return r;
}

// Replaces the lanes in `fail` by the accurate path's values; lane j is described by pair_of.
template <typename E, bool kNative, typename PairOf>
inline void fix16(Out16<E, kNative>& r, unsigned fail, const E* x, const SlowPath& sp, PairOf pair_of) {
  alignas(64) float f[16];
  alignas(64) std::uint16_t b[16];
  if constexpr (std::is_same_v<E, float>) _mm512_store_ps(f, r.f);
  else _mm256_store_si256(reinterpret_cast<__m256i*>(b), r.b);
  for (int j = 0; j < 16; ++j) {
    if (!((fail >> j) & 1u)) continue;
    int k, ia, ib;
    bool second;
    pair_of(j, k, ia, ib, second);
    if constexpr (std::is_same_v<E, float>) f[j] = slow_path(sp, k, x[ia], x[ib], second, f[j]);
    else b[j] = slow_path(sp, k, x[ia], x[ib], second, b[j]);
  }
  if constexpr (std::is_same_v<E, float>) r.f = _mm512_load_ps(f);
  else r.b = _mm256_load_si256(reinterpret_cast<const __m256i*>(b));
}

// The 16 outputs to store: identity lanes (rot clear) keep the input's bits.
template <typename E, bool kNative, bool kIdentity>
inline void put16(E* p, const Out16<E, kNative>& r, const In16& in, __mmask16 rot, __mmask16 m, bool full, bool stream) {
  if constexpr (std::is_same_v<E, float>) {
    const __m512 v = kIdentity ? _mm512_mask_blend_ps(rot, in.f, r.f) : r.f;
    if (full) store16(p, v, stream);
    else store16(p, v, m);
  } else {
    const __m256i v = kIdentity ? _mm256_mask_blend_epi16(rot, in.raw, r.b) : r.b;
    if (full) store16(p, v, stream);
    else store16(p, v, m);
  }
}

inline __m512d abs8(__m512d v) { return _mm512_abs_pd(v); }
inline __mmask16 rotates16(const std::uint8_t* flags) {
  return _mm_cmpneq_epi8_mask(_mm_loadu_si128(reinterpret_cast<const __m128i*>(flags)), _mm_setzero_si128());
}

// Interleaved: 16 elements (8 pairs) per step, as two vectors of 4 pairs in binary64 with per-lane
// tables C = (c0, c0, c1, c1, ...), S = (-s0, s0, -s1, s1, ...): the pair swap times S is
// (-(x_b s), x_a s) exactly, so y = fma(x, C, swap(x) S) is scalar's formula lane by lane.
template <typename E, bool kNative, bool kIdentity>
void rotate_interleaved(const RowShape& sh, const double* c, const double* s, const E* in, std::int64_t in_hs, E* out,
                        std::int64_t out_hs, std::int64_t heads, bool stream, double* scratch, const SlowPath& sp) {
  const int n = 2 * sh.block;
  double* cd = scratch;                       // 64-byte aligned (ops.h)
  double* sd = scratch + (n + 15) / 8 * 8;    // 64-byte aligned too: aligned loads in the hot loop
  for (int k = 0; k < sh.block; ++k) {
    cd[2 * k] = c[k];
    cd[2 * k + 1] = c[k];
    sd[2 * k] = -s[k];
    sd[2 * k + 1] = s[k];
  }
  const __m512d k_err = _mm512_set1_pd(sh.err_scale);
  const bool aligned_rows = (n % 16) == 0;
  for (std::int64_t h = 0; h < heads; ++h) {
    const E* x = in + h * in_hs + sh.offset;
    E* y = out + h * out_hs + sh.offset;
    const bool st = stream && aligned_rows && (reinterpret_cast<std::uintptr_t>(y) % (16 * sizeof(E))) == 0;
    auto step = [&](int i, auto full, __mmask16 m) {
      constexpr bool kFull = decltype(full)::value;
      const __mmask8 ml = static_cast<__mmask8>(m), mh = static_cast<__mmask8>(m >> 8);
      const In16 xin = load16(x + i, m, kFull);
      const __m512d xl = _mm512_cvtps_pd(_mm512_castps512_ps256(xin.f));
      const __m512d xh = _mm512_cvtps_pd(_mm512_extractf32x8_ps(xin.f, 1));
      const __m512d xls = _mm512_permute_pd(xl, 0x55), xhs = _mm512_permute_pd(xh, 0x55);
      const __m512d cl = kFull ? _mm512_load_pd(cd + i) : _mm512_maskz_loadu_pd(ml, cd + i);
      const __m512d sl = kFull ? _mm512_load_pd(sd + i) : _mm512_maskz_loadu_pd(ml, sd + i);
      const __m512d ch = kFull ? _mm512_load_pd(cd + i + 8) : _mm512_maskz_loadu_pd(mh, cd + i + 8);
      const __m512d sh8 = kFull ? _mm512_load_pd(sd + i + 8) : _mm512_maskz_loadu_pd(mh, sd + i + 8);
      const __m512d yl = _mm512_fmadd_pd(xl, cl, _mm512_mul_pd(xls, sl));
      const __m512d yh = _mm512_fmadd_pd(xh, ch, _mm512_mul_pd(xhs, sh8));
      const __m512d el = _mm512_mul_pd(k_err, _mm512_add_pd(abs8(xl), abs8(xls)));
      const __m512d eh = _mm512_mul_pd(k_err, _mm512_add_pd(abs8(xh), abs8(xhs)));
      Out16<E, kNative> o = round16<E, kNative>(yl, yh, el, eh);
      const __mmask16 rot = kIdentity ? rotates16(sh.element_rotates + i) : __mmask16(0xFFFF);
      const unsigned fail = static_cast<unsigned>(~o.pass & rot & m) & 0xFFFFu;
      if (__builtin_expect(fail != 0, 0))
        fix16(o, fail, x, sp, [&](int j, int& k, int& ia, int& ib, bool& second) {
          k = (i + j) / 2;
          ia = 2 * k;
          ib = 2 * k + 1;
          second = ((i + j) & 1) != 0;
        });
      put16<E, kNative, kIdentity>(y + i, o, xin, rot, m, kFull, st);
    };
    int i = 0;
    for (; i + 16 <= n; i += 16) step(i, std::true_type{}, __mmask16(0xFFFF));
    if (i < n) step(i, std::false_type{}, tail16(n - i));
    copy_passthrough(sh, in + h * in_hs, out + h * out_hs);
  }
}

// Half: 16 pairs per step, (x[k..k+16), x[R+k..R+k+16)) in binary64.
template <typename E, bool kNative, bool kIdentity>
void rotate_half(const RowShape& sh, const double* c, const double* s, const E* in, std::int64_t in_hs, E* out,
                 std::int64_t out_hs, std::int64_t heads, bool stream, double*, const SlowPath& sp) {
  const int r = sh.block;
  const __m512d k_err = _mm512_set1_pd(sh.err_scale);
  const bool aligned_rows = (r % 16) == 0;
  for (std::int64_t h = 0; h < heads; ++h) {
    const E* x = in + h * in_hs + sh.offset;
    E* y = out + h * out_hs + sh.offset;
    const bool st = stream && aligned_rows && (reinterpret_cast<std::uintptr_t>(y) % (16 * sizeof(E))) == 0;
    auto step = [&](int k, auto full, __mmask16 m) {
      constexpr bool kFull = decltype(full)::value;
      const __mmask8 ml = static_cast<__mmask8>(m), mh = static_cast<__mmask8>(m >> 8);
      const In16 xa = load16(x + k, m, kFull), xb = load16(x + r + k, m, kFull);
      const __m512d xa0 = _mm512_cvtps_pd(_mm512_castps512_ps256(xa.f)), xa1 = _mm512_cvtps_pd(_mm512_extractf32x8_ps(xa.f, 1));
      const __m512d xb0 = _mm512_cvtps_pd(_mm512_castps512_ps256(xb.f)), xb1 = _mm512_cvtps_pd(_mm512_extractf32x8_ps(xb.f, 1));
      const __m512d c0 = kFull ? _mm512_loadu_pd(c + k) : _mm512_maskz_loadu_pd(ml, c + k);
      const __m512d c1 = kFull ? _mm512_loadu_pd(c + k + 8) : _mm512_maskz_loadu_pd(mh, c + k + 8);
      const __m512d s0 = kFull ? _mm512_loadu_pd(s + k) : _mm512_maskz_loadu_pd(ml, s + k);
      const __m512d s1 = kFull ? _mm512_loadu_pd(s + k + 8) : _mm512_maskz_loadu_pd(mh, s + k + 8);
      const __m512d e0 = _mm512_mul_pd(k_err, _mm512_add_pd(abs8(xa0), abs8(xb0)));
      const __m512d e1 = _mm512_mul_pd(k_err, _mm512_add_pd(abs8(xa1), abs8(xb1)));
      Out16<E, kNative> ya = round16<E, kNative>(_mm512_fmsub_pd(xa0, c0, _mm512_mul_pd(xb0, s0)),
                                                 _mm512_fmsub_pd(xa1, c1, _mm512_mul_pd(xb1, s1)), e0, e1);
      Out16<E, kNative> yb = round16<E, kNative>(_mm512_fmadd_pd(xb0, c0, _mm512_mul_pd(xa0, s0)),
                                                 _mm512_fmadd_pd(xb1, c1, _mm512_mul_pd(xa1, s1)), e0, e1);
      const __mmask16 rot = kIdentity ? rotates16(sh.element_rotates + k) : __mmask16(0xFFFF);
      const unsigned fa = static_cast<unsigned>(~ya.pass & rot & m) & 0xFFFFu, fb = static_cast<unsigned>(~yb.pass & rot & m) & 0xFFFFu;
      if (__builtin_expect((fa | fb) != 0, 0)) {
        auto pair_of = [&](bool second_half) {
          return [&, second_half](int j, int& kk, int& ia, int& ib, bool& second) {
            kk = k + j;
            ia = kk;
            ib = kk + r;
            second = second_half;
          };
        };
        if (fa) fix16(ya, fa, x, sp, pair_of(false));
        if (fb) fix16(yb, fb, x, sp, pair_of(true));
      }
      put16<E, kNative, kIdentity>(y + k, ya, xa, rot, m, kFull, st);
      put16<E, kNative, kIdentity>(y + r + k, yb, xb, rot, m, kFull, st);
    };
    int k = 0;
    for (; k + 16 <= r; k += 16) step(k, std::true_type{}, __mmask16(0xFFFF));
    if (k < r) step(k, std::false_type{}, tail16(r - k));
    copy_passthrough(sh, in + h * in_hs, out + h * out_hs);
  }
}

template <typename E, bool kNative>
void rotate(const RowShape& sh, const double* c, const double* s, const E* in, std::int64_t in_hs, E* out,
            std::int64_t out_hs, std::int64_t heads, bool stream, double* scratch, const SlowPath& sp) {
  if (sh.layout == Layout::interleaved) {
    if (sh.any_identity) rotate_interleaved<E, kNative, true>(sh, c, s, in, in_hs, out, out_hs, heads, stream, scratch, sp);
    else rotate_interleaved<E, kNative, false>(sh, c, s, in, in_hs, out, out_hs, heads, stream, scratch, sp);
  } else {
    if (sh.any_identity) rotate_half<E, kNative, true>(sh, c, s, in, in_hs, out, out_hs, heads, stream, scratch, sp);
    else rotate_half<E, kNative, false>(sh, c, s, in, in_hs, out, out_hs, heads, stream, scratch, sp);
  }
}

void rotate_f32(const RowShape& sh, const double* c, const double* s, const float* in, std::int64_t in_hs, float* out,
                std::int64_t out_hs, std::int64_t heads, bool stream, double* scratch, const SlowPath& sp) {
  rotate<float, false>(sh, c, s, in, in_hs, out, out_hs, heads, stream, scratch, sp);
}
template <bool kNative>
void rotate_bf16(const RowShape& sh, const double* c, const double* s, const std::uint16_t* in, std::int64_t in_hs,
                 std::uint16_t* out, std::int64_t out_hs, std::int64_t heads, bool stream, double* scratch,
                 const SlowPath& sp) {
  rotate<std::uint16_t, kNative>(sh, c, s, in, in_hs, out, out_hs, heads, stream, scratch, sp);
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

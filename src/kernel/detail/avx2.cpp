// The AVX2 path (AVX2 + FMA): the twin of scalar.cpp, operation for operation, so results agree
// bit for bit (ops.h). Compiled with -mavx2 -mfma -ffp-contract=off; only reached after path.cpp's
// CPUID/XCR0 probe. Everything is in an anonymous namespace (see avx512.cpp for why). Vector tails
// are finished by the same per-pair formulas in scalar form (__builtin_fma compiles to one VFMADD).
// Compiler builtins, not std::fma/std::isnan/std::bit_cast: those are inline library functions, and
// an unoptimised build could emit an FMA copy of one that the linker then hands to the scalar path.
#include <immintrin.h>

#include <cstdint>
#include <type_traits>

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

inline std::uint32_t bits32(float f) { return __builtin_bit_cast(std::uint32_t, f); }
inline float canonical(float y) { return __builtin_isnan(y) ? __builtin_bit_cast(float, 0x7FC00000u) : y; }
inline std::uint16_t bf16_rne(float f) {
  const std::uint32_t u = bits32(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC0;
  return static_cast<std::uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
inline double widen(float v) { return v; }
inline double widen(std::uint16_t b) { return __builtin_bit_cast(float, static_cast<std::uint32_t>(b) << 16); }

// scalar.cpp's finish(), with builtins (vector tails).
inline bool finish(double y, double e, float* out) {
  const float lo = static_cast<float>(y - e), hi = static_cast<float>(y + e);
  *out = canonical(static_cast<float>(y));
  return bits32(lo) == bits32(hi) && e < __builtin_huge_val();
}
inline bool finish(double y, double e, std::uint16_t* out) {
  const float lo = static_cast<float>(y - e), hi = static_cast<float>(y + e);
  *out = bf16_rne(static_cast<float>(y));
  return bf16_rne(lo) == bf16_rne(hi) && (bits32(lo) & 0xFFFFu) != 0x8000u && (bits32(hi) & 0xFFFFu) != 0x8000u &&
         e < __builtin_huge_val();
}
inline float slow_path(const SlowPath& sp, int k, float xa, float xb, bool b, float fast) { return slow_f32(sp, k, xa, xb, b, fast); }
inline std::uint16_t slow_path(const SlowPath& sp, int k, std::uint16_t xa, std::uint16_t xb, bool b, std::uint16_t fast) {
  return slow_bf16(sp, k, xa, xb, b, fast);
}

// One pair by scalar.cpp's formulas (vector tails); x, y point at the rotary part.
template <typename E>
inline void pair(const RowShape& sh, const E* x, E* y, int k, int a, int b, double c, double s, const SlowPath& sp) {
  if (sh.pair_identity[k]) {
    const E ea = x[a], eb = x[b];
    y[a] = ea;
    y[b] = eb;
    return;
  }
  const E ea = x[a], eb = x[b];
  const double xa = widen(ea), xb = widen(eb);
  const double ya = __builtin_fma(xa, c, -(xb * s));
  const double yb = __builtin_fma(xb, c, xa * s);
  const double e = sh.err_scale * (__builtin_fabs(xa) + __builtin_fabs(xb));
  E oa, ob;
  if (!finish(ya, e, &oa)) oa = slow_path(sp, k, ea, eb, false, oa);
  if (!finish(yb, e, &ob)) ob = slow_path(sp, k, ea, eb, true, ob);
  y[a] = oa;
  y[b] = ob;
}

// 8 elements in, as floats (exact for both formats), and 8 results out with the format's rounding.
inline __m256 load8(const float* p) { return _mm256_loadu_ps(p); }
inline __m256 load8(const std::uint16_t* p) {
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))), 16));
}
inline __m256 canonical8(__m256 y) {
  return _mm256_blendv_ps(y, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000)), _mm256_cmp_ps(y, y, _CMP_UNORD_Q));
}
// bf16 RNE of 8 floats as 32-bit lanes (NaN -> 0x7FC0).
inline __m256i bf16_lanes(__m256 y) {
  const __m256i u = _mm256_castps_si256(y);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  const __m256i r = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7FFF)), lsb), 16);
  return _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(r), _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC0)),
                                              _mm256_cmp_ps(y, y, _CMP_UNORD_Q)));
}
inline void store8(float* p, __m256 y, bool stream) {
  if (stream) _mm256_stream_ps(p, y);
  else _mm256_storeu_ps(p, y);
}
inline void store8(std::uint16_t* p, __m256i lanes, bool stream) {
  const __m128i v = _mm_packus_epi32(_mm256_castsi256_si128(lanes), _mm256_extracti128_si256(lanes, 1));  // <= 0xFFFF
  if (stream) _mm_stream_si128(reinterpret_cast<__m128i*>(p), v);
  else _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v);
}

// The fast path's 8 outputs from two halves of 4 doubles, with ops.h's rounding test: `out` holds
// the results (float lanes, or bf16 values in 32-bit lanes), the return value the lanes that pass.
struct Rounded8 {
  __m256 f;       // f32: the outputs (canonical NaN)
  __m256i b;      // bf16: the outputs in 32-bit lanes
  int pass;       // bit j set where lane j's rounding test passed
};
template <typename E>
inline Rounded8 round8(__m256d y0, __m256d y1, __m256d e0, __m256d e1) {
  const __m256 y = _mm256_set_m128(_mm256_cvtpd_ps(y1), _mm256_cvtpd_ps(y0));
  const __m256 lo = _mm256_set_m128(_mm256_cvtpd_ps(_mm256_sub_pd(y1, e1)), _mm256_cvtpd_ps(_mm256_sub_pd(y0, e0)));
  const __m256 hi = _mm256_set_m128(_mm256_cvtpd_ps(_mm256_add_pd(y1, e1)), _mm256_cvtpd_ps(_mm256_add_pd(y0, e0)));
  const __m256d inf = _mm256_set1_pd(__builtin_huge_val());
  const int finite = _mm256_movemask_pd(_mm256_cmp_pd(e0, inf, _CMP_LT_OQ)) | (_mm256_movemask_pd(_mm256_cmp_pd(e1, inf, _CMP_LT_OQ)) << 4);
  Rounded8 r;
  if constexpr (std::is_same_v<E, float>) {
    r.f = canonical8(y);
    r.pass = finite & _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_castps_si256(lo), _mm256_castps_si256(hi))));
  } else {
    r.b = bf16_lanes(y);
    const __m256i mask16 = _mm256_set1_epi32(0xFFFF), mid = _mm256_set1_epi32(0x8000);
    const __m256i lmid = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_castps_si256(lo), mask16), mid);
    const __m256i hmid = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_castps_si256(hi), mask16), mid);
    const __m256i same = _mm256_andnot_si256(_mm256_or_si256(lmid, hmid), _mm256_cmpeq_epi32(bf16_lanes(lo), bf16_lanes(hi)));
    r.pass = finite & _mm256_movemask_ps(_mm256_castsi256_ps(same));
  }
  return r;
}

inline __m256d abs4(__m256d v) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), v); }
inline __m256 rotates8(const std::uint8_t* flags) {
  const __m256i f = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(flags)));
  return _mm256_castsi256_ps(_mm256_cmpgt_epi32(f, _mm256_setzero_si256()));
}

// Replaces the lanes of `r` whose test failed (bits of `fail`) by the accurate path's values:
// lane j is component `second(j)` of block pair `pair(j)`.
template <typename E, typename PairOf>
inline void fix8(Rounded8& r, int fail, const E* x, const SlowPath& sp, PairOf pair_of) {
  alignas(32) float f[8];
  alignas(32) std::int32_t b[8];
  if constexpr (std::is_same_v<E, float>) _mm256_store_ps(f, r.f);
  else _mm256_store_si256(reinterpret_cast<__m256i*>(b), r.b);
  for (int j = 0; j < 8; ++j) {
    if (!((fail >> j) & 1)) continue;
    int k, ia, ib;
    bool second;
    pair_of(j, k, ia, ib, second);
    if constexpr (std::is_same_v<E, float>) f[j] = slow_path(sp, k, x[ia], x[ib], second, f[j]);
    else b[j] = slow_path(sp, k, x[ia], x[ib], second, static_cast<std::uint16_t>(b[j]));
  }
  if constexpr (std::is_same_v<E, float>) r.f = _mm256_load_ps(f);
  else r.b = _mm256_load_si256(reinterpret_cast<const __m256i*>(b));
}

template <typename E>
inline void put8(E* p, const Rounded8& r, __m256 keep_input, __m256 xf, bool any_identity, bool stream) {
  if constexpr (std::is_same_v<E, float>) {
    store8(p, any_identity ? _mm256_blendv_ps(xf, r.f, keep_input) : r.f, stream);
  } else {
    // Identity lanes: the input's bits (xf holds them shifted left by 16).
    const __m256i in = _mm256_srli_epi32(_mm256_castps_si256(xf), 16);
    store8(p, any_identity ? _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(in), _mm256_castsi256_ps(r.b), keep_input)) : r.b,
           stream);
  }
}

template <typename E>
void rotate(const RowShape& sh, const double* c, const double* s, const E* in, std::int64_t in_hs, E* out,
            std::int64_t out_hs, std::int64_t heads, bool stream, double* scratch, const SlowPath& sp) {
  const int r = sh.block;
  const __m256d k_err = _mm256_set1_pd(sh.err_scale);
  const __m256 all = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
  if (sh.layout == Layout::interleaved) {
    // Per-lane tables C = (c0, c0, c1, c1, ...), S = (-s0, s0, -s1, s1, ...): the pair swap times S
    // is (-(x_b s), x_a s) exactly, so y = fma(x, C, swap(x) S) is scalar's formula lane by lane.
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
      const E* x = in + h * in_hs + sh.offset;
      E* y = out + h * out_hs + sh.offset;
      const bool st = stream && full == n && (reinterpret_cast<std::uintptr_t>(y) % (sizeof(E) * 8)) == 0;
      for (int i = 0; i < full; i += 8) {
        const __m256 xf = load8(x + i);
        const __m256d xl = _mm256_cvtps_pd(_mm256_castps256_ps128(xf));
        const __m256d xh = _mm256_cvtps_pd(_mm256_extractf128_ps(xf, 1));
        const __m256d xls = _mm256_permute_pd(xl, 0x5), xhs = _mm256_permute_pd(xh, 0x5);
        const __m256d yl = _mm256_fmadd_pd(xl, _mm256_loadu_pd(cd + i), _mm256_mul_pd(xls, _mm256_loadu_pd(sd + i)));
        const __m256d yh = _mm256_fmadd_pd(xh, _mm256_loadu_pd(cd + i + 4), _mm256_mul_pd(xhs, _mm256_loadu_pd(sd + i + 4)));
        const __m256d el = _mm256_mul_pd(k_err, _mm256_add_pd(abs4(xl), abs4(xls)));
        const __m256d eh = _mm256_mul_pd(k_err, _mm256_add_pd(abs4(xh), abs4(xhs)));
        Rounded8 o = round8<E>(yl, yh, el, eh);
        const __m256 rot = sh.any_identity ? rotates8(sh.element_rotates + i) : all;
        const int fail = ~o.pass & _mm256_movemask_ps(rot);
        if (__builtin_expect(fail != 0, 0))
          fix8<E>(o, fail, x, sp, [&](int j, int& k, int& ia, int& ib, bool& second) {
            k = (i + j) / 2;
            ia = 2 * k;
            ib = 2 * k + 1;
            second = ((i + j) & 1) != 0;
          });
        put8<E>(y + i, o, rot, xf, sh.any_identity, st);
      }
      for (int k = full / 2; k < r; ++k) pair(sh, x, y, k, 2 * k, 2 * k + 1, c[k], s[k], sp);
      copy_passthrough(sh, in + h * in_hs, out + h * out_hs);
    }
    return;
  }
  const int full = r - r % 8;
  for (std::int64_t h = 0; h < heads; ++h) {
    const E* x = in + h * in_hs + sh.offset;
    E* y = out + h * out_hs + sh.offset;
    const bool st = stream && full == r && (reinterpret_cast<std::uintptr_t>(y) % (sizeof(E) * 8)) == 0 && (r * sizeof(E)) % (sizeof(E) * 8) == 0;
    for (int k = 0; k < full; k += 8) {
      const __m256 xaf = load8(x + k), xbf = load8(x + r + k);
      const __m256d xa0 = _mm256_cvtps_pd(_mm256_castps256_ps128(xaf)), xa1 = _mm256_cvtps_pd(_mm256_extractf128_ps(xaf, 1));
      const __m256d xb0 = _mm256_cvtps_pd(_mm256_castps256_ps128(xbf)), xb1 = _mm256_cvtps_pd(_mm256_extractf128_ps(xbf, 1));
      const __m256d c0 = _mm256_loadu_pd(c + k), c1 = _mm256_loadu_pd(c + k + 4);
      const __m256d s0 = _mm256_loadu_pd(s + k), s1 = _mm256_loadu_pd(s + k + 4);
      const __m256d e0 = _mm256_mul_pd(k_err, _mm256_add_pd(abs4(xa0), abs4(xb0)));
      const __m256d e1 = _mm256_mul_pd(k_err, _mm256_add_pd(abs4(xa1), abs4(xb1)));
      Rounded8 ya = round8<E>(_mm256_fmsub_pd(xa0, c0, _mm256_mul_pd(xb0, s0)), _mm256_fmsub_pd(xa1, c1, _mm256_mul_pd(xb1, s1)), e0, e1);
      Rounded8 yb = round8<E>(_mm256_fmadd_pd(xb0, c0, _mm256_mul_pd(xa0, s0)), _mm256_fmadd_pd(xb1, c1, _mm256_mul_pd(xa1, s1)), e0, e1);
      const __m256 rot = sh.any_identity ? rotates8(sh.element_rotates + k) : all;
      const int rot_bits = _mm256_movemask_ps(rot);
      const int fa = ~ya.pass & rot_bits, fb = ~yb.pass & rot_bits;
      if (__builtin_expect((fa | fb) != 0, 0)) {
        auto pair_of = [&](bool second_half) {
          return [&, second_half](int j, int& kk, int& ia, int& ib, bool& second) {
            kk = k + j;
            ia = kk;
            ib = kk + r;
            second = second_half;
          };
        };
        if (fa) fix8<E>(ya, fa, x, sp, pair_of(false));
        if (fb) fix8<E>(yb, fb, x, sp, pair_of(true));
      }
      put8<E>(y + k, ya, rot, xaf, sh.any_identity, st);
      put8<E>(y + r + k, yb, rot, xbf, sh.any_identity, st);
    }
    for (int k = full; k < r; ++k) pair(sh, x, y, k, k, k + r, c[k], s[k], sp);
    copy_passthrough(sh, in + h * in_hs, out + h * out_hs);
  }
}

void rotate_f32(const RowShape& sh, const double* c, const double* s, const float* in, std::int64_t in_hs, float* out,
                std::int64_t out_hs, std::int64_t heads, bool stream, double* scratch, const SlowPath& sp) {
  rotate<float>(sh, c, s, in, in_hs, out, out_hs, heads, stream, scratch, sp);
}
void rotate_bf16(const RowShape& sh, const double* c, const double* s, const std::uint16_t* in, std::int64_t in_hs,
                 std::uint16_t* out, std::int64_t out_hs, std::int64_t heads, bool stream, double* scratch,
                 const SlowPath& sp) {
  rotate<std::uint16_t>(sh, c, s, in, in_hs, out, out_hs, heads, stream, scratch, sp);
}

}  // namespace

const PathOps& avx2_ops() {
  static const PathOps ops{&sincos_row, &rotate_f32, &rotate_bf16};
  return ops;
}

}  // namespace ropecheck::kernel::detail

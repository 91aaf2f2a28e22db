// The AVX2 path (AVX2 + FMA + F16C): the twin of scalar.cpp, operation for operation, so results agree
// bit for bit (ops.h). Compiled with -mavx2 -mfma -ffp-contract=off; only reached after path.cpp's
// CPUID/XCR0 probe. Everything is in an anonymous namespace (see avx512.cpp for why). Vector tails
// are finished by the same per-pair formulas in scalar form (__builtin_fma compiles to one VFMADD).
// Compiler builtins, not std::fma/std::isnan/std::bit_cast: those are inline library functions, and
// an unoptimised build could emit an FMA copy of one that the linker then hands to the scalar path.
#include <immintrin.h>

#include <cstdint>
#include <type_traits>

#include "kernel/detail/head_groups.h"
#include "kernel/detail/lane_fixes.h"
#include "kernel/detail/ops.h"
#include "kernel/detail/retry.h"

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
// small_floats.h's widening and RN16 of the 16-bit formats, here (not the inline library functions:
// see the file comment): bfloat16 by its bits, float16 by F16C (VCVTPS2PH imm8 0 rounds as
// f16_from_float; a NaN, never kept by a passing test, is not canonicalised).
inline Bf16Bits round16(float f, Bf16Bits) {
  const std::uint32_t u = bits32(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return Bf16Bits{0x7FC0};
  return Bf16Bits{static_cast<std::uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16)};
}
inline F16Bits round16(float f, F16Bits) { return F16Bits{static_cast<std::uint16_t>(_cvtss_sh(f, 0))}; }
inline float widen16(Bf16Bits b) { return __builtin_bit_cast(float, static_cast<std::uint32_t>(b.bits) << 16); }
inline float widen16(F16Bits h) { return _cvtsh_ss(h.bits); }

// One pair by scalar.cpp's formulas, with builtins (the vector tails); x, y: the rotary part.
inline void pair(const RowShape& sh, const float* x, float* y, int k, int a, int b, double c, double s, const SlowPath& sp) {
  const float ea = x[a], eb = x[b];
  if (sh.pair_identity[k]) {
    y[a] = ea;
    y[b] = eb;
    return;
  }
  const double xa = ea, xb = eb;
  const double ya = __builtin_fma(xa, c, -(xb * s)), yb = __builtin_fma(xb, c, xa * s);
  const double e = sh.err_scale * __builtin_fmax(__builtin_fabs(xa), __builtin_fabs(xb));
  const bool finite = __builtin_isfinite(xa) && __builtin_isfinite(xb);
  auto finish = [&](double v, bool second) {
    const float lo = static_cast<float>(v - e), hi = static_cast<float>(v + e);
    if ((bits32(lo) == bits32(hi) || e == 0) && finite) return static_cast<float>(v);
    ++*sp.redone;
    return retry_f32(sp, k, ea, eb, second, c, s);
  };
  const float oa = finish(ya, false), ob = finish(yb, true);
  y[a] = oa;
  y[b] = ob;
}
template <typename E>
inline void pair(const RowShape& sh, const E* x, E* y, int k, int a, int b, double c, double s, const SlowPath& sp) {
  const E ea = x[a], eb = x[b];
  if (sh.pair_identity[k]) {
    y[a] = ea;
    y[b] = eb;
    return;
  }
  const float c32 = static_cast<float>(c), s32 = static_cast<float>(s), xa = widen16(ea), xb = widen16(eb);
  const float ya = __builtin_fmaf(xa, c32, -(xb * s32)), yb = __builtin_fmaf(xb, c32, xa * s32);
  const float sum = __builtin_fabsf(xa) + __builtin_fabsf(xb), e = sh.err_scale32 * sum;
  auto finish = [&](float v, bool second) {
    E out;
    if (level1_16(v, e, sum, &out, [](float w) { return round16(w, E{}); })) return out;
    ++*sp.redone;
    return retry_16(sh, sp, k, ea, eb, second, c, s);
  };
  const E oa = finish(ya, false), ob = finish(yb, true);
  y[a] = oa;
  y[b] = ob;
}

// The head loop (head_groups.h, 8 lanes per step): step(x, y, i) rotates and stores lanes
// [i, i + 8) for i < full and returns the lanes whose test failed (bits 8-15: the second component
// in the half layout); fix redoes them after the group; tail(x, y) does the pairs past `full` one
// by one.
template <typename E, typename Step, typename Fix, typename Tail>
void for_heads(const RowShape& sh, const E* in, std::int64_t in_hs, E* out, std::int64_t out_hs, std::int64_t heads,
               int full, const Scratch& scratch, std::int64_t* redone, Step step, Fix fix, Tail tail) {
  auto steps = [&](const E* x, E* y, auto note) {
    for (int i = 0; i < full; i += 8) note(step(x, y, i), i);
    tail(x, y);
  };
  for_head_groups(sh, in, in_hs, out, out_hs, heads, scratch, redone, steps, fix);
}

inline __m256 rotates8(const std::uint8_t* flags) {
  const __m256i f = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(flags)));
  return _mm256_castsi256_ps(_mm256_cmpgt_epi32(f, _mm256_setzero_si256()));
}

// ---- float32: binary64 (ops.h), then retry_f32 -------------------------------------------------

inline __m256d abs4(__m256d v) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), v); }
inline __m256 abs8(__m256 v) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v); }

// ops.h's binary64 test for 8 components (two halves of 4 doubles): the lanes that pass, with
// RN32(lo) in *out, which is RN32(y) wherever the test passes. As avx512.cpp's test16, hi is
// computed as -RN(-y - e) (the same value), so a zero pair (e = 0, y = +-0) passes with lo = hi
// and no test of e. Finiteness is tested on lo instead of the inputs, with the same lanes failing:
// for finite inputs y and e are finite, so lo is not NaN; when an input is infinite, e = +inf
// (or a NaN when the maximum met a NaN) and y is +-inf, NaN or finite, so lo = y - e is NaN or
// -inf with hi NaN or +inf: lo is NaN or unequal to hi; when an input is NaN, y is NaN (both
// components read both inputs) and so is lo. Pass: bits(lo) == bits(hi) and lo not NaN.
inline int test8(__m256d y0, __m256d y1, __m256d e0, __m256d e1, __m256* out) {
  if constexpr (kFloor) return *out = _mm256_set_m128(_mm256_cvtpd_ps(y1), _mm256_cvtpd_ps(y0)), 0xFF;  // bench only: detail/floor.h
  const __m256d one = _mm256_set1_pd(1.0);
  const __m256 lo = _mm256_set_m128(_mm256_cvtpd_ps(_mm256_sub_pd(y1, e1)), _mm256_cvtpd_ps(_mm256_sub_pd(y0, e0)));
  const __m256 minus_hi = _mm256_set_m128(_mm256_cvtpd_ps(_mm256_fnmsub_pd(y1, one, e1)), _mm256_cvtpd_ps(_mm256_fnmsub_pd(y0, one, e0)));
  *out = lo;
  const __m256i hi = _mm256_xor_si256(_mm256_castps_si256(minus_hi), _mm256_set1_epi32(static_cast<int>(0x80000000u)));
  const __m256 same = _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_castps_si256(lo), hi));
  return _mm256_movemask_ps(_mm256_and_ps(same, _mm256_cmp_ps(lo, lo, _CMP_ORD_Q)));
}
// ops.h's M = max(|x_a|, |x_b|) (a NaN may be dropped: test8 fails those lanes).
inline __m256d max_magnitude(__m256d a, __m256d b) { return _mm256_max_pd(abs4(a), abs4(b)); }

// ops.h's float16 threshold test for 8 components (two halves of 4 doubles): y32 = RN32(y); the
// lanes where |y32| >= t (t = max(2^-14, RN32(K16 M)), NaN when M is: the ordered compare fails)
// and y32's 13 low bits are not 0x1000, or where M = 0 and y32 = 0 (a zero pair); RN16(y32) in *out.
inline int test8h(__m256d y0, __m256d y1, __m256 t, __m256 m, __m128i* out) {
  const __m256 y32 = _mm256_set_m128(_mm256_cvtpd_ps(y1), _mm256_cvtpd_ps(y0));
  *out = _mm256_cvtps_ph(y32, 0);
  if constexpr (kFloor) return 0xFF;  // bench only: detail/floor.h
  const __m256 zero = _mm256_setzero_ps();
  const __m256 large = _mm256_cmp_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), y32), t, _CMP_GE_OQ);
  const __m256i midpoint = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_castps_si256(y32), _mm256_set1_epi32(0x1FFF)), _mm256_set1_epi32(0x1000));
  const __m256 zero_pair = _mm256_and_ps(_mm256_cmp_ps(m, zero, _CMP_EQ_OQ), _mm256_cmp_ps(y32, zero, _CMP_EQ_OQ));
  return _mm256_movemask_ps(_mm256_or_ps(_mm256_andnot_ps(_mm256_castsi256_ps(midpoint), large), zero_pair));
}
// t and M of ops.h's float16 test for 8 lanes from their M (binary32, exact): max(2^-14, K16 M)
// with the product second, so that a NaN M gives a NaN t.
inline __m256 threshold8(__m256 k16, __m256 m) { return _mm256_max_ps(_mm256_set1_ps(0x1p-14f), _mm256_mul_ps(k16, m)); }

template <bool kIdentity>
inline void put8(float* p, __m256 v, __m256 in, __m256 rot) {
  _mm256_storeu_ps(p, kIdentity ? _mm256_blendv_ps(in, v, rot) : v);
}

// Stores 8 16-bit values (below, with the 16-bit formats' code).
template <bool kIdentity, typename E>
inline void put8(E* p, __m128i v, __m128i in, __m256 rot);

// float32 (E = float; a template for for_heads' lambdas): the binary64 formula and test8.
template <typename E, bool kIdentity>
void rotate64_layout(const RowShape& sh, const double* c, const double* s, const E* in, std::int64_t in_hs, E* out,
                     std::int64_t out_hs, std::int64_t heads, const Scratch& scratch, const SlowPath& sp) {
  static_assert(std::is_same_v<E, float>);
  const int r = sh.block;
  const __m256d k_err = _mm256_set1_pd(sh.err_scale);
  auto retry = [&](int k, E a, E b, bool second, double ck, double sk) { return retry_f32(sp, k, a, b, second, ck, sk); };
  // Tests 8 components with e = K M (two halves) and stores them at p (identity lanes from the
  // input): the lanes that pass.
  auto test_put = [](E* p, __m256d y0, __m256d y1, __m256d e0, __m256d e1, __m256 xf, __m256 rot) {
    __m256 o;
    const int pass = test8(y0, y1, e0, e1, &o);
    put8<kIdentity>(p, o, xf, rot);
    return pass;
  };
  if (sh.layout == Layout::interleaved) {
    // Per-lane tables C = (c0, c0, c1, c1, ...), S = (-s0, s0, -s1, s1, ...): the pair swap times S
    // is (-(x_b s), x_a s) exactly, so y = fma(x, C, swap(x) S) is scalar's formula lane by lane.
    const int n = 2 * r, full = n - n % 8;
    double* cd = scratch.table;
    double* sd = cd + n + 8;
    for (int k = 0; k < r; ++k) {
      cd[2 * k] = c[k];
      cd[2 * k + 1] = c[k];
      sd[2 * k] = -s[k];
      sd[2 * k + 1] = s[k];
    }
    auto step = [&](const E* x, E* y, int i) -> std::uint32_t {
      const __m256 xf = _mm256_loadu_ps(x + i);
      const __m256d xl = _mm256_cvtps_pd(_mm256_castps256_ps128(xf)), xh = _mm256_cvtps_pd(_mm256_extractf128_ps(xf, 1));
      const __m256d xls = _mm256_permute_pd(xl, 0x5), xhs = _mm256_permute_pd(xh, 0x5);
      const __m256d yl = _mm256_fmadd_pd(xl, _mm256_loadu_pd(cd + i), _mm256_mul_pd(xls, _mm256_loadu_pd(sd + i)));
      const __m256d yh = _mm256_fmadd_pd(xh, _mm256_loadu_pd(cd + i + 4), _mm256_mul_pd(xhs, _mm256_loadu_pd(sd + i + 4)));
      const __m256d el = _mm256_mul_pd(k_err, max_magnitude(xl, xls));
      const __m256d eh = _mm256_mul_pd(k_err, max_magnitude(xh, xhs));
      const __m256 rot = kIdentity ? rotates8(sh.element_rotates + i) : __m256();
      const int pass = test_put(y + i, yl, yh, el, eh, xf, rot);
      return static_cast<std::uint32_t>(~pass & (kIdentity ? _mm256_movemask_ps(rot) : 0xFF));
    };
    auto tail = [&](const E* x, E* y) {
      for (int k = full / 2; k < r; ++k) pair(sh, x, y, k, 2 * k, 2 * k + 1, c[k], s[k], sp);
    };
    for_heads(sh, in, in_hs, out, out_hs, heads, full, scratch, sp.redone, step, fix_interleaved<8, E>(c, s, retry), tail);
    return;
  }
  const int full = r - r % 8;
  auto step = [&](const E* x, E* y, int k) -> std::uint32_t {
    const __m256 xaf = _mm256_loadu_ps(x + k), xbf = _mm256_loadu_ps(x + r + k);
    const __m256d xa0 = _mm256_cvtps_pd(_mm256_castps256_ps128(xaf)), xa1 = _mm256_cvtps_pd(_mm256_extractf128_ps(xaf, 1));
    const __m256d xb0 = _mm256_cvtps_pd(_mm256_castps256_ps128(xbf)), xb1 = _mm256_cvtps_pd(_mm256_extractf128_ps(xbf, 1));
    const __m256d c0 = _mm256_loadu_pd(c + k), c1 = _mm256_loadu_pd(c + k + 4);
    const __m256d s0 = _mm256_loadu_pd(s + k), s1 = _mm256_loadu_pd(s + k + 4);
    const __m256d e0 = _mm256_mul_pd(k_err, max_magnitude(xa0, xb0));
    const __m256d e1 = _mm256_mul_pd(k_err, max_magnitude(xa1, xb1));
    const __m256 rot = kIdentity ? rotates8(sh.element_rotates + k) : __m256();
    const int pa = test_put(y + k, _mm256_fmsub_pd(xa0, c0, _mm256_mul_pd(xb0, s0)), _mm256_fmsub_pd(xa1, c1, _mm256_mul_pd(xb1, s1)), e0, e1, xaf, rot);
    const int pb = test_put(y + r + k, _mm256_fmadd_pd(xb0, c0, _mm256_mul_pd(xa0, s0)), _mm256_fmadd_pd(xb1, c1, _mm256_mul_pd(xa1, s1)), e0, e1, xbf, rot);
    const int rb = kIdentity ? _mm256_movemask_ps(rot) : 0xFF;
    return static_cast<std::uint32_t>((~pa & rb) | ((~pb & rb) << 8));
  };
  auto tail = [&](const E* x, E* y) {
    for (int k = full; k < r; ++k) pair(sh, x, y, k, k, k + r, c[k], s[k], sp);
  };
  for_heads(sh, in, in_hs, out, out_hs, heads, full, scratch, sp.redone, step, fix_half<8, E>(r, c, s, retry), tail);
}

// ---- the 16-bit formats: binary32 level 1 (ops.h), then retry_16 -------------------------------

// 8 elements widened exactly, and RN16 of 8 floats, packed: bfloat16 by bits (exact for normal
// values, the lanes level 1 keeps). (float16 takes the binary64 formula: rotate64_layout.)
inline __m256 widen8(__m128i raw, Bf16Bits) { return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(raw), 16)); }
inline __m256 widen8(__m128i raw, F16Bits) { return _mm256_cvtph_ps(raw); }
// Eight 32-bit lanes that hold values <= 0xFFFF as eight 16-bit values.
inline __m128i pack16(__m256i lanes) { return _mm_packus_epi32(_mm256_castsi256_si128(lanes), _mm256_extracti128_si256(lanes, 1)); }
inline __m128i round8(__m256 v, F16Bits) { return _mm256_cvtps_ph(v, 0); }
[[maybe_unused]] inline __m128i round8(__m256 v, Bf16Bits) {  // the floor rows only (bench)
  const __m256i u = _mm256_castps_si256(v);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  return pack16(_mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7FFF)), lsb), 16));
}
// The lanes whose e lies outside [2^-100, 2^100] (bits 0x0D800000 and 0x71800000; a NaN or a
// negative e, -0 included, is outside): u = bits(e) lies in [A, B] exactly when u + 2^31 - A
// (mod 2^32), read as a signed integer, is <= -2^31 + (B - A) (the interval moved to the bottom
// of the signed range; every other u lands above it). One add and one compare.
inline int out_of_range8(__m256 e) {
  const __m256i w = _mm256_add_epi32(_mm256_castps_si256(e), _mm256_set1_epi32(static_cast<int>(0x80000000u - 0x0D800000u)));
  return _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(w, _mm256_set1_epi32(static_cast<int>(0x80000000u + (0x71800000u - 0x0D800000u))))));
}
// ops.h's binary32 test for 8 components (`out`: the lanes whose e is out of range; `zero`: the
// lanes with e = S = 0): the lanes that pass, RN16(y_exact) packed in *result: bfloat16 by the
// half-up keys of lo and hi (its output: lo's key), float16 by RN_f16 of both, compared as 16-bit
// values (one compare of the packed halves, no widening back to 32-bit lanes).
inline __m256i key8(__m256 v) { return _mm256_srli_epi32(_mm256_add_epi32(_mm256_castps_si256(v), _mm256_set1_epi32(0x8000)), 16); }
template <typename E>
inline int level1(__m256 y, __m256 e, int out, int zero, __m128i* result) {
  if constexpr (kFloor) return *result = round8(y, E{}), 0xFF;  // bench only: detail/floor.h
  const __m256 lo = _mm256_sub_ps(y, e), hi = _mm256_add_ps(y, e);
  int same;
  if constexpr (std::is_same_v<E, Bf16Bits>) {
    const __m256i bl = key8(lo);
    same = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(bl, key8(hi))));
    *result = pack16(bl);
  } else {
    const __m128i bl = round8(lo, E{}), eq = _mm_cmpeq_epi16(bl, round8(hi, E{}));
    same = _mm_movemask_epi8(_mm_packs_epi16(eq, eq)) & 0xFF;  // one bit per 16-bit lane
    *result = bl;
  }
  return (same & ~out) | zero;
}
inline int zero_pair8(__m256 e, __m256 sum) {
  return _mm256_movemask_ps(_mm256_castsi256_ps(
      _mm256_cmpeq_epi32(_mm256_or_si256(_mm256_castps_si256(e), _mm256_castps_si256(sum)), _mm256_setzero_si256())));
}
// bfloat16's level 2 in SIMD (avx512.cpp's level2_bf16, 4 lanes): the lanes whose inputs are finite
// (`finite`, bits 0-3) and whose lo = y - e, hi = y + e have one sign, magnitudes >= 2^-126 and
// one bf16_magnitude; sign | magnitude in the low 16 bits of each 64-bit lane of *out. Its passing
// lanes are retry_16's with the same output; the others go to retry_16.
inline int level2_bf16(__m256d y, __m256d e, int finite, __m256i* out) {
  const __m256d lo = _mm256_sub_pd(y, e), hi = _mm256_add_pd(y, e);
  const __m256i sign = _mm256_set1_epi64x(static_cast<long long>(0x8000000000000000ull));
  const __m256i blo = _mm256_castpd_si256(lo), bhi = _mm256_castpd_si256(hi);
  const __m256i ulo = _mm256_andnot_si256(sign, blo), uhi = _mm256_andnot_si256(sign, bhi);
  const __m256i below = _mm256_set1_epi64x(0x380FFFFFFFFFFFFF);  // the largest binary64 below 2^-126
  auto magnitude = [](__m256i u) {
    const __m256i key = _mm256_srli_epi64(_mm256_add_epi64(u, _mm256_set1_epi64x(std::int64_t{1} << 44)), 45);
    const __m256i m = _mm256_sub_epi64(key, _mm256_set1_epi64x(static_cast<long long>(kBf16KeyBias)));
    const __m256i top = _mm256_set1_epi64x(0x7F80);
    return _mm256_blendv_epi8(m, top, _mm256_cmpgt_epi64(m, top));  // m >= 0 where the lane is kept
  };
  const __m256i mlo = magnitude(ulo);
  const __m256i ok = _mm256_and_si256(_mm256_and_si256(_mm256_cmpgt_epi64(ulo, below), _mm256_cmpgt_epi64(uhi, below)),
                                      _mm256_cmpeq_epi64(mlo, magnitude(uhi)));
  const int one_sign = ~_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_xor_si256(blo, bhi))) & 0xF;
  *out = _mm256_or_si256(mlo, _mm256_srli_epi64(_mm256_and_si256(blo, sign), 48));
  return _mm256_movemask_pd(_mm256_castsi256_pd(ok)) & one_sign & finite;
}
// Writes the lanes of `bits` of 8 16-bit values.
template <typename E>
inline void put_lanes(E* p, __m128i v, int bits) {
  // Branch-free: the 8 outputs the step stored, blended with v where `bits` is set (a loop with a
  // branch per lane was mispredicted on most fixes).
  const __m128i lane_bit = _mm_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128);
  const __m128i take = _mm_cmpeq_epi16(_mm_and_si128(_mm_set1_epi16(static_cast<short>(bits)), lane_bit), lane_bit);
  const __m128i old = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm_blendv_epi8(old, v, take));
}
// The same from two level2_bf16 halves (lanes 0-3, 4-7: 16-bit values in 64-bit lanes).
template <typename E>
inline void put_lanes(E* p, __m256i lo, __m256i hi, int bits) {
  const __m256i low32 = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
  put_lanes(p, _mm_packus_epi32(_mm256_castsi256_si128(_mm256_permutevar8x32_epi32(lo, low32)),
                                _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(hi, low32))),  // <= 0xFFFF
            bits);
}
// The lanes of 8 floats that are finite.
inline int finite8(__m256 x) { return _mm256_movemask_ps(_mm256_cmp_ps(abs8(x), _mm256_set1_ps(__builtin_inff()), _CMP_LT_OQ)); }

template <bool kIdentity, typename E>
inline void put8(E* p, __m128i v, __m128i in, __m256 rot) {
  if constexpr (kIdentity) {
    const __m128i keep = _mm_packs_epi32(_mm256_castsi256_si128(_mm256_castps_si256(rot)), _mm256_extracti128_si256(_mm256_castps_si256(rot), 1));
    v = _mm_blendv_epi8(in, v, keep);
  }
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v);
}

template <typename E, bool kIdentity>
void rotate16_layout(const RowShape& sh, const double* c, const double* s, const E* in, std::int64_t in_hs, E* out,
                     std::int64_t out_hs, std::int64_t heads, const Scratch& scratch, const SlowPath& sp) {
  const int r = sh.block;
  const __m256 k_err = _mm256_set1_ps(sh.err_scale32);
  auto retry = [&](int k, E a, E b, bool second, double ck, double sk) { return retry_16(sh, sp, k, a, b, second, ck, sk); };
  float* cf = reinterpret_cast<float*>(scratch.table);
  if (sh.layout == Layout::interleaved) {
    const int n = 2 * r, full = n - n % 8;
    float* sf = cf + n + 8;
    for (int k = 0; k < r; ++k) {
      const float ck = static_cast<float>(c[k]), sk = static_cast<float>(s[k]);
      cf[2 * k] = ck;
      cf[2 * k + 1] = ck;
      sf[2 * k] = -sk;
      sf[2 * k + 1] = sk;
    }
    auto step = [&](const E* x, E* y, int i) -> std::uint32_t {
      const __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i));
      const __m256 xv = widen8(raw, E{}), xs = _mm256_permute_ps(xv, 0xB1);
      const __m256 yv = _mm256_fmadd_ps(xv, _mm256_loadu_ps(cf + i), _mm256_mul_ps(xs, _mm256_loadu_ps(sf + i)));
      const __m256 sum = _mm256_add_ps(abs8(xv), abs8(xs)), e = _mm256_mul_ps(k_err, sum);
      __m128i o;
      const int pass = level1<E>(yv, e, out_of_range8(e), zero_pair8(e, sum), &o);
      const __m256 rot = kIdentity ? rotates8(sh.element_rotates + i) : __m256();
      put8<kIdentity>(y + i, o, raw, rot);
      return static_cast<std::uint32_t>(~pass & (kIdentity ? _mm256_movemask_ps(rot) : 0xFF));
    };
    auto tail = [&](const E* x, E* y) {
      for (int k = full / 2; k < r; ++k) pair(sh, x, y, k, 2 * k, 2 * k + 1, c[k], s[k], sp);
    };
    const auto per_lane = fix_interleaved<8, E>(c, s, retry);
    // Level 2 of a failed step (level2_bf16): lanes i .. i + 7 are pairs i/2 .. i/2 + 3 (full steps
    // only), binary64 tables C = (c0, c0, c1, c1, ...), S = (-s0, s0, ...) as in rotate64_layout.
    const __m256d k64 = _mm256_set1_pd(sh.err_scale), even_sign = _mm256_setr_pd(-0.0, 0.0, -0.0, 0.0);
    const __m256 k16 = _mm256_set1_ps(sh.err_scale16);
    auto fix = [&](const E* x, E* y, int i, std::uint32_t bits) {
      const __m256 xv = widen8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i)), E{});
      const __m256d x0 = _mm256_cvtps_pd(_mm256_castps256_ps128(xv)), x1 = _mm256_cvtps_pd(_mm256_extractf128_ps(xv, 1));
      const __m256d o0 = _mm256_permute_pd(x0, 0x5), o1 = _mm256_permute_pd(x1, 0x5);
      const __m256d c4 = _mm256_loadu_pd(c + i / 2), s4 = _mm256_loadu_pd(s + i / 2);
      const __m256d y0 = _mm256_fmadd_pd(x0, _mm256_permute4x64_pd(c4, 0x50), _mm256_mul_pd(o0, _mm256_xor_pd(_mm256_permute4x64_pd(s4, 0x50), even_sign)));
      const __m256d y1 = _mm256_fmadd_pd(x1, _mm256_permute4x64_pd(c4, 0xFA), _mm256_mul_pd(o1, _mm256_xor_pd(_mm256_permute4x64_pd(s4, 0xFA), even_sign)));
      int pass;
      if constexpr (std::is_same_v<E, Bf16Bits>) {
        const int f = finite8(xv), both = f & (f >> 1) & 0x55, fin = both | (both << 1);
        __m256i r0, r1;
        pass = level2_bf16(y0, _mm256_mul_pd(k64, max_magnitude(x0, o0)), fin & 0xF, &r0) |
               (level2_bf16(y1, _mm256_mul_pd(k64, max_magnitude(x1, o1)), fin >> 4, &r1) << 4);
        put_lanes(y + i, r0, r1, static_cast<int>(bits) & pass);
      } else {  // float16: ops.h's threshold test on y32 = RN32(y)
        const __m256 m = _mm256_max_ps(abs8(xv), abs8(_mm256_permute_ps(xv, 0xB1)));
        __m128i o;
        pass = test8h(y0, y1, threshold8(k16, m), m, &o);
        put_lanes(y + i, o, static_cast<int>(bits) & pass);
      }
      if (const std::uint32_t left = bits & ~static_cast<std::uint32_t>(pass); left != 0) per_lane(x, y, i, left);
    };
    for_heads(sh, in, in_hs, out, out_hs, heads, full, scratch, sp.redone, step, fix, tail);
    return;
  }
  const int full = r - r % 8;
  float* sf = cf + r + 8;
  for (int k = 0; k < r; ++k) {
    cf[k] = static_cast<float>(c[k]);
    sf[k] = static_cast<float>(s[k]);
  }
  auto step = [&](const E* x, E* y, int k) -> std::uint32_t {
    const __m128i ra = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + k));
    const __m128i rb = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + r + k));
    const __m256 xa = widen8(ra, E{}), xb = widen8(rb, E{}), cv = _mm256_loadu_ps(cf + k), sv = _mm256_loadu_ps(sf + k);
    const __m256 sum = _mm256_add_ps(abs8(xa), abs8(xb)), e = _mm256_mul_ps(k_err, sum);
    const int range = out_of_range8(e), zero = zero_pair8(e, sum);
    __m128i oa, ob;
    const int pa = level1<E>(_mm256_fmsub_ps(xa, cv, _mm256_mul_ps(xb, sv)), e, range, zero, &oa);
    const int pb = level1<E>(_mm256_fmadd_ps(xb, cv, _mm256_mul_ps(xa, sv)), e, range, zero, &ob);
    const __m256 rot = kIdentity ? rotates8(sh.element_rotates + k) : __m256();
    put8<kIdentity>(y + k, oa, ra, rot);
    put8<kIdentity>(y + r + k, ob, rb, rot);
    const int rb8 = kIdentity ? _mm256_movemask_ps(rot) : 0xFF;
    return static_cast<std::uint32_t>((~pa & rb8) | ((~pb & rb8) << 8));
  };
  auto tail = [&](const E* x, E* y) {
    for (int k = full; k < r; ++k) pair(sh, x, y, k, k, k + r, c[k], s[k], sp);
  };
  const auto per_lane = fix_half<8, E>(r, c, s, retry);
  // Level 2 of a failed step (level2_bf16): pairs k .. k + 7 (full steps only), bits 0-7 the first
  // components, 8-15 the second, the formula of rotate64_layout.
  const __m256d k64 = _mm256_set1_pd(sh.err_scale);
  const __m256 k16 = _mm256_set1_ps(sh.err_scale16);
  auto fix = [&](const E* x, E* y, int k, std::uint32_t bits) {
    const __m256 xa = widen8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + k)), E{});
    const __m256 xb = widen8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + r + k)), E{});
    const __m256d xa0 = _mm256_cvtps_pd(_mm256_castps256_ps128(xa)), xa1 = _mm256_cvtps_pd(_mm256_extractf128_ps(xa, 1));
    const __m256d xb0 = _mm256_cvtps_pd(_mm256_castps256_ps128(xb)), xb1 = _mm256_cvtps_pd(_mm256_extractf128_ps(xb, 1));
    const __m256d c0 = _mm256_loadu_pd(c + k), c1 = _mm256_loadu_pd(c + k + 4), s0 = _mm256_loadu_pd(s + k), s1 = _mm256_loadu_pd(s + k + 4);
    const __m256d ya0 = _mm256_fmsub_pd(xa0, c0, _mm256_mul_pd(xb0, s0)), ya1 = _mm256_fmsub_pd(xa1, c1, _mm256_mul_pd(xb1, s1));
    const __m256d yb0 = _mm256_fmadd_pd(xb0, c0, _mm256_mul_pd(xa0, s0)), yb1 = _mm256_fmadd_pd(xb1, c1, _mm256_mul_pd(xa1, s1));
    int pa, pb;
    if constexpr (std::is_same_v<E, Bf16Bits>) {
      const __m256d e0 = _mm256_mul_pd(k64, max_magnitude(xa0, xb0)), e1 = _mm256_mul_pd(k64, max_magnitude(xa1, xb1));
      const int fin = finite8(xa) & finite8(xb);
      __m256i ra0, ra1, rb0, rb1;
      pa = level2_bf16(ya0, e0, fin & 0xF, &ra0) | (level2_bf16(ya1, e1, fin >> 4, &ra1) << 4);
      pb = level2_bf16(yb0, e0, fin & 0xF, &rb0) | (level2_bf16(yb1, e1, fin >> 4, &rb1) << 4);
      put_lanes(y + k, ra0, ra1, static_cast<int>(bits) & pa);
      put_lanes(y + r + k, rb0, rb1, static_cast<int>(bits >> 8) & pb);
    } else {  // float16: ops.h's threshold test on y32 = RN32(y)
      const __m256 m = _mm256_max_ps(abs8(xa), abs8(xb)), t = threshold8(k16, m);
      __m128i oa, ob;
      pa = test8h(ya0, ya1, t, m, &oa);
      pb = test8h(yb0, yb1, t, m, &ob);
      put_lanes(y + k, oa, static_cast<int>(bits) & pa);
      put_lanes(y + r + k, ob, static_cast<int>(bits >> 8) & pb);
    }
    if (const std::uint32_t left = bits & ~static_cast<std::uint32_t>(pa | (pb << 8)); left != 0) per_lane(x, y, k, left);
  };
  for_heads(sh, in, in_hs, out, out_hs, heads, full, scratch, sp.redone, step, fix, tail);
}

void rotate_f32(const RowShape& sh, const double* c, const double* s, const float* in, std::int64_t in_hs, float* out,
                std::int64_t out_hs, std::int64_t heads, const Scratch& scratch, const SlowPath& sp) {
  if (sh.any_identity) rotate64_layout<float, true>(sh, c, s, in, in_hs, out, out_hs, heads, scratch, sp);
  else rotate64_layout<float, false>(sh, c, s, in, in_hs, out, out_hs, heads, scratch, sp);
}
template <typename E>
void rotate16(const RowShape& sh, const double* c, const double* s, const E* in, std::int64_t in_hs, E* out,
              std::int64_t out_hs, std::int64_t heads, const Scratch& scratch, const SlowPath& sp) {
  if (sh.any_identity) rotate16_layout<E, true>(sh, c, s, in, in_hs, out, out_hs, heads, scratch, sp);
  else rotate16_layout<E, false>(sh, c, s, in, in_hs, out, out_hs, heads, scratch, sp);
}

}  // namespace

const PathOps& avx2_ops() {
  static const PathOps ops{&sincos_row, &rotate_f32, &rotate16<Bf16Bits>, &rotate16<F16Bits>};
  return ops;
}

}  // namespace ropecheck::kernel::detail

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

#include "kernel/detail/head_groups.h"
#include "kernel/detail/lane_fixes.h"
#include "kernel/detail/ops.h"
#include "kernel/detail/retry.h"

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
inline __mmask16 rotates16(const std::uint8_t* flags) {
  return _mm_cmpneq_epi8_mask(_mm_loadu_si128(reinterpret_cast<const __m128i*>(flags)), _mm_setzero_si128());
}

// The head loop every rotation shares (head_groups.h): step(x, y, i, full, m) rotates lanes
// [i, i + 16) of one head's rotary part, stores them, and returns the lanes whose test failed (bits
// 0-15; bits 16-31 for the second component in the half layout); fix redoes them after the group.
template <typename E, typename Step, typename Fix>
void for_heads(const RowShape& sh, const E* in, std::int64_t in_hs, E* out, std::int64_t out_hs, std::int64_t heads,
               int lanes, const Scratch& scratch, std::int64_t* redone, Step step, Fix fix) {
  auto steps = [&](const E* x, E* y, auto note) {
    int i = 0;
    for (; i + 16 <= lanes; i += 16) note(step(x, y, i, std::true_type{}, __mmask16(0xFFFF)), i);
    if (i < lanes) note(step(x, y, i, std::false_type{}, tail16(lanes - i)), i);
  };
  for_head_groups(sh, in, in_hs, out, out_hs, heads, scratch, redone, steps, fix);
}

// ---- float32: binary64 fast path and test (ops.h), then retry_f32 ------------------------------

// ops.h's binary64 test for 16 components (two halves of 8 doubles) whose inputs are finite in
// `finite`: the lanes that pass, with RN32(lo) in *out, which is RN32(y) wherever the test passes
// (lo <= y <= hi round alike). hi is computed as -RN(-y - e), the same value, so that e = 0 (a zero
// pair) passes with y = -0 too.
inline __mmask16 test16(__m512d y0, __m512d y1, __m512d e0, __m512d e1, __mmask16 finite, __m512* out) {
  auto narrow = [](__m512d a, __m512d b) { return _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(a)), _mm512_cvtpd_ps(b), 1); };
  if constexpr (kFloor) return *out = narrow(y0, y1), __mmask16(0xFFFF);  // bench only: detail/floor.h
  const __m512d one = _mm512_set1_pd(1.0);
  const __m512 lo = narrow(_mm512_sub_pd(y0, e0), _mm512_sub_pd(y1, e1));
  const __m512 minus_hi = narrow(_mm512_fnmsub_pd(y0, one, e0), _mm512_fnmsub_pd(y1, one, e1));
  *out = lo;
  const __m512i hi = _mm512_xor_si512(_mm512_castps_si512(minus_hi), _mm512_set1_epi32(static_cast<int>(0x80000000u)));
  return _mm512_mask_cmpeq_epi32_mask(finite, _mm512_castps_si512(lo), hi);
}
// ops.h's float16 threshold test for 16 components (two halves of 8 doubles): y32 = RN32(y); the
// lanes where |y32| >= t (t = max(2^-14, RN32(K16 M)), NaN when M is: the ordered compare fails)
// and y32's 13 low bits are not 0x1000, or where M = 0 and y32 = 0 (a zero pair); RN16(y32) in *out.
inline __mmask16 test16h(__m512d y0, __m512d y1, __m512 t, __m512 m, __m256i* out) {
  const __m512 y32 = _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(y0)), _mm512_cvtpd_ps(y1), 1);
  *out = _mm512_cvtps_ph(y32, 0);
  if constexpr (kFloor) return __mmask16(0xFFFF);  // bench only: detail/floor.h
  const __m512 zero = _mm512_setzero_ps();
  const __mmask16 large = _mm512_cmp_ps_mask(_mm512_abs_ps(y32), t, _CMP_GE_OQ);
  const __mmask16 off_midpoint = _mm512_mask_cmpneq_epi32_mask(large, _mm512_and_si512(_mm512_castps_si512(y32), _mm512_set1_epi32(0x1FFF)),
                                                              _mm512_set1_epi32(0x1000));
  const __mmask16 zero_pair = _mm512_mask_cmp_ps_mask(_mm512_cmp_ps_mask(m, zero, _CMP_EQ_OQ), y32, zero, _CMP_EQ_OQ);
  return _kor_mask16(off_midpoint, zero_pair);
}
// t of ops.h's float16 test for 16 lanes from their M (binary32, exact): max(2^-14, K16 M), the
// product second so that a NaN M gives a NaN t.
inline __m512 threshold16(__m512 k16, __m512 m) { return _mm512_max_ps(_mm512_set1_ps(0x1p-14f), _mm512_mul_ps(k16, m)); }
// ops.h's M = max(|a|, |b|): VRANGEPD, larger magnitude with the sign cleared (it may drop a NaN:
// the finite masks fail those lanes).
inline __m512d max_magnitude(__m512d a, __m512d b) { return _mm512_range_pd(a, b, 0x0B); }
inline __m512 max_magnitude(__m512 a, __m512 b) { return _mm512_range_ps(a, b, 0x0B); }
// The lanes of 16 floats that are finite: VFPCLASSPS for QNaN, SNaN, +inf and -inf, negated.
inline __mmask16 finite16(__m512 x) { return static_cast<__mmask16>(~_mm512_fpclass_ps_mask(x, 0x99)); }
// 8 floats widened to binary64 (the load and the conversion are one instruction).
inline __m512d load8d(const float* p, __mmask8 m, bool full) { return _mm512_cvtps_pd(full ? _mm256_loadu_ps(p) : _mm256_maskz_loadu_ps(m, p)); }

inline __m512 load16(const float* p, __mmask16 m, bool full) { return full ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(m, p); }
// Always inlined, like every helper taking several vectors: GCC 12 at -O2 with ASan/UBSan once
// produced wrong identity lanes through such a call left out of line (inlined, as -O3 does, right).
template <bool kIdentity>
__attribute__((always_inline)) inline void put16(float* p, __m512 v, __m512 in, __mmask16 rot, __mmask16 m, bool full) {
  if constexpr (kIdentity) v = _mm512_mask_blend_ps(rot, in, v);  // identity lanes keep the input
  if (full) _mm512_storeu_ps(p, v);
  else _mm512_mask_storeu_ps(p, m, v);
}

// Interleaved: 16 elements (8 pairs) per step, as two vectors of 4 pairs in binary64 with per-lane
// tables C = (c0, c0, c1, c1, ...), S = (-s0, s0, -s1, s1, ...): the pair swap times S is
// (-(x_b s), x_a s) exactly, so y = fma(x, C, swap(x) S) is scalar's formula lane by lane.
// (float32 only; E = float keeps for_heads' lambdas generic.)
template <typename E, bool kIdentity>
void rotate_interleaved_64(const RowShape& sh, const double* c, const double* s, const E* in, std::int64_t in_hs, E* out,
                           std::int64_t out_hs, std::int64_t heads, const Scratch& scratch, const SlowPath& sp) {
  static_assert(std::is_same_v<E, float>);
  const int n = 2 * sh.block;
  double* cd = scratch.table;                 // 64-byte aligned (ops.h)
  double* sd = cd + (n + 15) / 8 * 8;         // 64-byte aligned too: aligned loads in the hot loop
  for (int k = 0; k < sh.block; ++k) {
    cd[2 * k] = c[k];
    cd[2 * k + 1] = c[k];
    sd[2 * k] = -s[k];
    sd[2 * k + 1] = s[k];
  }
  const __m512d k_err = _mm512_set1_pd(sh.err_scale);
  auto step = [&](const E* x, E* y, int i, auto full, __mmask16 m) -> std::uint32_t {
    constexpr bool kFull = decltype(full)::value;
    const __mmask8 ml = static_cast<__mmask8>(m), mh = static_cast<__mmask8>(m >> 8);
    const __m512 xin = load16(x + i, m, kFull);
    const __m512d xl = _mm512_cvtps_pd(_mm512_castps512_ps256(xin));
    const __m512d xh = _mm512_cvtps_pd(_mm512_extractf32x8_ps(xin, 1));
    const __m512d xls = _mm512_permute_pd(xl, 0x55), xhs = _mm512_permute_pd(xh, 0x55);
    const __m512d cl = kFull ? _mm512_load_pd(cd + i) : _mm512_maskz_loadu_pd(ml, cd + i);
    const __m512d sl = kFull ? _mm512_load_pd(sd + i) : _mm512_maskz_loadu_pd(ml, sd + i);
    const __m512d ch = kFull ? _mm512_load_pd(cd + i + 8) : _mm512_maskz_loadu_pd(mh, cd + i + 8);
    const __m512d sh8 = kFull ? _mm512_load_pd(sd + i + 8) : _mm512_maskz_loadu_pd(mh, sd + i + 8);
    const __m512d yl = _mm512_fmadd_pd(xl, cl, _mm512_mul_pd(xls, sl));
    const __m512d yh = _mm512_fmadd_pd(xh, ch, _mm512_mul_pd(xhs, sh8));
    const __m512d el = _mm512_mul_pd(k_err, max_magnitude(xl, xls));
    const __m512d eh = _mm512_mul_pd(k_err, max_magnitude(xh, xhs));
    // A lane's pair is finite when both its elements are (lanes 2j and 2j + 1).
    const unsigned f = finite16(xin), both = f & (f >> 1) & 0x5555u;
    const __mmask16 rot = kIdentity ? rotates16(sh.element_rotates + i) : __mmask16(0xFFFF);
    __m512 o;
    const __mmask16 pass = test16(yl, yh, el, eh, static_cast<__mmask16>(both | (both << 1)), &o);
    put16<kIdentity>(y + i, o, xin, rot, m, kFull);
    return static_cast<std::uint32_t>(~pass & rot & m) & 0xFFFFu;
  };
  auto retry = [&](int k, E a, E b, bool second, double ck, double sk) { return retry_f32(sp, k, a, b, second, ck, sk); };
  for_heads(sh, in, in_hs, out, out_hs, heads, n, scratch, sp.redone, step, fix_interleaved<16, E>(c, s, retry));
}

// Half: 16 pairs per step, (x[k..k+16), x[R+k..R+k+16)) in binary64 (float32 only).
template <typename E, bool kIdentity>
void rotate_half_64(const RowShape& sh, const double* c, const double* s, const E* in, std::int64_t in_hs, E* out,
                    std::int64_t out_hs, std::int64_t heads, const Scratch& scratch, const SlowPath& sp) {
  static_assert(std::is_same_v<E, float>);
  const int r = sh.block;
  const __m512d k_err = _mm512_set1_pd(sh.err_scale);
  auto step = [&](const E* x, E* y, int k, auto full, __mmask16 m) -> std::uint32_t {
    constexpr bool kFull = decltype(full)::value;
    const __mmask8 ml = static_cast<__mmask8>(m), mh = static_cast<__mmask8>(m >> 8);
    const __m512 xa = load16(x + k, m, kFull), xb = load16(x + r + k, m, kFull);
    const __m512d xa0 = load8d(x + k, ml, kFull), xa1 = load8d(x + k + 8, mh, kFull);
    const __m512d xb0 = load8d(x + r + k, ml, kFull), xb1 = load8d(x + r + k + 8, mh, kFull);
    const __m512d c0 = kFull ? _mm512_loadu_pd(c + k) : _mm512_maskz_loadu_pd(ml, c + k);
    const __m512d c1 = kFull ? _mm512_loadu_pd(c + k + 8) : _mm512_maskz_loadu_pd(mh, c + k + 8);
    const __m512d s0 = kFull ? _mm512_loadu_pd(s + k) : _mm512_maskz_loadu_pd(ml, s + k);
    const __m512d s1 = kFull ? _mm512_loadu_pd(s + k + 8) : _mm512_maskz_loadu_pd(mh, s + k + 8);
    const __m512d e0 = _mm512_mul_pd(k_err, max_magnitude(xa0, xb0)), e1 = _mm512_mul_pd(k_err, max_magnitude(xa1, xb1));
    const __mmask16 finite = finite16(xa) & finite16(xb);
    const __m512d ya0 = _mm512_fmsub_pd(xa0, c0, _mm512_mul_pd(xb0, s0)), ya1 = _mm512_fmsub_pd(xa1, c1, _mm512_mul_pd(xb1, s1));
    const __m512d yb0 = _mm512_fmadd_pd(xb0, c0, _mm512_mul_pd(xa0, s0)), yb1 = _mm512_fmadd_pd(xb1, c1, _mm512_mul_pd(xa1, s1));
    const __mmask16 rot = kIdentity ? rotates16(sh.element_rotates + k) : __mmask16(0xFFFF);
    __m512 oa, ob;
    const __mmask16 pa = test16(ya0, ya1, e0, e1, finite, &oa), pb = test16(yb0, yb1, e0, e1, finite, &ob);
    put16<kIdentity>(y + k, oa, xa, rot, m, kFull);
    put16<kIdentity>(y + r + k, ob, xb, rot, m, kFull);
    return (static_cast<std::uint32_t>(~pa & rot & m) & 0xFFFFu) | ((static_cast<std::uint32_t>(~pb & rot & m) & 0xFFFFu) << 16);
  };
  auto retry = [&](int k, E a, E b, bool second, double ck, double sk) { return retry_f32(sp, k, a, b, second, ck, sk); };
  for_heads(sh, in, in_hs, out, out_hs, heads, r, scratch, sp.redone, step, fix_half<16, E>(r, c, s, retry));
}

// ---- the 16-bit formats: binary32 level 1 (ops.h), then retry_16 (levels 2 and 3) -------------

template <typename E>
inline __m256i load16(const E* p, __mmask16 m, bool full) {
  return full ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)) : _mm256_maskz_loadu_epi16(m, p);
}
template <bool kIdentity, typename E>
__attribute__((always_inline)) inline void put16(E* p, __m256i v, __m256i in, __mmask16 rot, __mmask16 m, bool full) {
  if constexpr (kIdentity) v = _mm256_mask_blend_epi16(rot, in, v);  // identity lanes keep the input
  if (full) _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
  else _mm256_mask_storeu_epi16(p, m, v);
}

// A 16-bit format's conversions for 16 lanes: widen (exact) and RN16 of 16 floats, exact for the
// lanes level 1 keeps. bfloat16: by its bits (Bf16Bitwise), or VCVTNEPS2BF16 (Bf16Native; it
// differs only on subnormals and NaN, where level 1 fails either way: ops.h). (float16 takes the
// binary64 formula with float32: rotate64, test16h.)
struct Bf16Bitwise {
  using E = Bf16Bits;
  static __m512 widen(__m256i raw) { return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(raw), 16)); }
  static __m256i round(__m512 v) {
    const __m512i u = _mm512_castps_si512(v);
    const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
    return _mm512_cvtepi32_epi16(_mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7FFF)), lsb), 16));
  }
  // Level 1's output for a lane that passes (ops.h): lo's half-up key, narrowed.
  static __m256i passed(__m512 /*y*/, __m512i key_lo) { return _mm512_cvtepi32_epi16(key_lo); }
};
struct Bf16Native {
  using E = Bf16Bits;
  static __m512 widen(__m256i raw) { return Bf16Bitwise::widen(raw); }
  static __m256i round(__m512 v) { return (__m256i)_mm512_cvtneps_pbh(v); }
  // RN_bf16(y): a lane that passes has y normal and strictly between lo and hi (ops.h), so it is no
  // midpoint and VCVTNEPS2BF16 (flushing only subnormals) rounds it to the keys' value.
  static __m256i passed(__m512 y, __m512i /*key_lo*/) { return round(y); }
};
// float16 by F16C (AVX-512 F): VCVTPH2PS (exact), VCVTPS2PH imm8 0 (RN_f16 of the binary32 value,
// subnormals included).
struct F16Convert {
  using E = F16Bits;
  static __m512 widen(__m256i raw) { return _mm512_cvtph_ps(raw); }
  static __m256i round(__m512 v) { return _mm512_cvtps_ph(v, 0); }
};

// ops.h's binary32 test for 16 components y, error scales e (`range`: the lanes with e in
// [2^-100, 2^100]; `zero`: the lanes with e = S = 0): the lanes that pass, RN16(y_exact) in *out.
// bfloat16 by the half-up keys of lo and hi (F::passed gives the output), float16 by RN_f16 of both.
template <typename F>
inline __mmask16 level1(__m512 y, __m512 e, __mmask16 range, __mmask16 zero, __m256i* out) {
  if constexpr (kFloor) return *out = F::round(y), __mmask16(0xFFFF);  // bench only: detail/floor.h
  const __m512 lo = _mm512_sub_ps(y, e), hi = _mm512_add_ps(y, e);
  if constexpr (std::is_same_v<typename F::E, Bf16Bits>) {
    const __m512i half = _mm512_set1_epi32(0x8000);
    const __m512i kl = _mm512_srli_epi32(_mm512_add_epi32(_mm512_castps_si512(lo), half), 16);
    const __m512i kh = _mm512_srli_epi32(_mm512_add_epi32(_mm512_castps_si512(hi), half), 16);
    *out = F::passed(y, kl);
    return _kor_mask16(_mm512_mask_cmpeq_epi32_mask(range, kl, kh), zero);
  } else {
    const __m256i bl = F::round(lo), bh = F::round(hi);
    *out = bl;
    return _kor_mask16(_mm256_mask_cmpeq_epi16_mask(range, bl, bh), zero);
  }
}
// The lanes of a zero pair: e = S = 0 (S the sum |x_a| + |x_b|; e = 0 alone may be an underflow).
inline __mmask16 zero_pair(__m512 e, __m512 sum) {
  const __m512i both = _mm512_or_si512(_mm512_castps_si512(e), _mm512_castps_si512(sum));
  return _mm512_testn_epi32_mask(both, both);
}
// The lanes whose e (+0 to +inf, or a NaN with the sign bit clear) lies in [2^-100, 2^100], by
// its bits: one unsigned compare.
inline __mmask16 in_range(__m512 e) {
  const __m512i u = _mm512_sub_epi32(_mm512_castps_si512(e), _mm512_set1_epi32(0x0D800000));  // 2^-100
  return _mm512_cmple_epu32_mask(u, _mm512_set1_epi32(0x71800000 - 0x0D800000));              // 2^100
}

// bfloat16's level 2 in SIMD (retry.h): a step with a failed lane is redone whole in binary64. For 8
// components y with e = K M (binary64) and `finite` the lanes whose inputs are: the lanes whose lo =
// y - e and hi = y + e have one sign, magnitudes >= 2^-126 and one bf16_magnitude (by the bits:
// floor((|v| bits + 2^44) / 2^45) - kBf16KeyBias, at most 0x7F80), with sign | magnitude in the
// low 16 bits of each 64-bit lane of *out. retry_16 passes each such lane with the same output; the
// others (subnormal ends, mixed signs, a midpoint within e) go to retry_16, which redoes level 2 and
// then level 3, so the same lanes reach level 3 as on every other path.
inline __mmask8 level2_bf16(__m512d y, __m512d e, __mmask8 finite, __m512i* out) {
  const __m512d lo = _mm512_sub_pd(y, e), hi = _mm512_add_pd(y, e);
  const __m512i sign = _mm512_set1_epi64(static_cast<long long>(0x8000000000000000ull));
  const __m512i blo = _mm512_castpd_si512(lo), bhi = _mm512_castpd_si512(hi);
  const __m512i ulo = _mm512_andnot_si512(sign, blo), uhi = _mm512_andnot_si512(sign, bhi);
  const __m512i smallest = _mm512_set1_epi64(0x3810000000000000);  // 2^-126
  __mmask8 pass = _mm512_mask_cmpge_epu64_mask(finite, ulo, smallest);
  pass = _mm512_mask_cmpge_epu64_mask(pass, uhi, smallest);
  pass = _mm512_mask_testn_epi64_mask(pass, _mm512_xor_si512(blo, bhi), sign);  // one sign
  auto magnitude = [](__m512i u) {
    const __m512i key = _mm512_srli_epi64(_mm512_add_epi64(u, _mm512_set1_epi64(std::int64_t{1} << 44)), 45);
    return _mm512_min_epu64(_mm512_sub_epi64(key, _mm512_set1_epi64(static_cast<long long>(kBf16KeyBias))), _mm512_set1_epi64(0x7F80));
  };
  const __m512i mlo = magnitude(ulo);
  pass = _mm512_mask_cmpeq_epi64_mask(pass, mlo, magnitude(uhi));
  *out = _mm512_or_si512(mlo, _mm512_srli_epi64(_mm512_and_si512(blo, sign), 48));
  return pass;
}
inline __mmask8 tail8(int left) { return left >= 8 ? __mmask8(0xFF) : static_cast<__mmask8>((1u << left) - 1); }
// 16 lanes of two level2_bf16 halves as 16-bit lanes.
inline __m256i lanes16_of(__m512i lo, __m512i hi) { return _mm256_set_m128i(_mm512_cvtepi64_epi16(hi), _mm512_cvtepi64_epi16(lo)); }

// The binary32 table entries RN32(c~), RN32(s~) of n pairs into c32, s32.
inline void narrow_row(int n, const double* c, const double* s, float* c32, float* s32) {
  for (int k = 0; k < n; k += 8) {
    const __mmask8 m = n - k >= 8 ? __mmask8(0xFF) : static_cast<__mmask8>((1u << (n - k)) - 1);
    _mm256_mask_storeu_ps(c32 + k, m, _mm512_cvtpd_ps(_mm512_maskz_loadu_pd(m, c + k)));
    _mm256_mask_storeu_ps(s32 + k, m, _mm512_cvtpd_ps(_mm512_maskz_loadu_pd(m, s + k)));
  }
}

// Interleaved: 16 elements (8 pairs) per step in binary32, per-lane tables C, S as for float32.
template <typename F, bool kIdentity, typename E = typename F::E>
void rotate_interleaved_16(const RowShape& sh, const double* c, const double* s, const E* in, std::int64_t in_hs, E* out,
                           std::int64_t out_hs, std::int64_t heads, const Scratch& scratch, const SlowPath& sp) {
  const int n = 2 * sh.block;
  float* cf = reinterpret_cast<float*>(scratch.table);  // 64-byte aligned (ops.h)
  float* sf = cf + (n + 15) / 16 * 16;
  for (int k = 0; k < sh.block; ++k) {
    const float ck = static_cast<float>(c[k]), sk = static_cast<float>(s[k]);
    cf[2 * k] = ck;
    cf[2 * k + 1] = ck;
    sf[2 * k] = -sk;
    sf[2 * k + 1] = sk;
  }
  const __m512 k_err = _mm512_set1_ps(sh.err_scale32);
  auto step = [&](const E* x, E* y, int i, auto full, __mmask16 m) -> std::uint32_t {
    constexpr bool kFull = decltype(full)::value;
    const __m256i raw = load16(x + i, m, kFull);
    const __m512 xv = F::widen(raw), xs = _mm512_permute_ps(xv, 0xB1);
    const __m512 cv = kFull ? _mm512_load_ps(cf + i) : _mm512_maskz_loadu_ps(m, cf + i);
    const __m512 sv = kFull ? _mm512_load_ps(sf + i) : _mm512_maskz_loadu_ps(m, sf + i);
    const __m512 yv = _mm512_fmadd_ps(xv, cv, _mm512_mul_ps(xs, sv));
    const __m512 sum = _mm512_add_ps(_mm512_abs_ps(xv), _mm512_abs_ps(xs)), e = _mm512_mul_ps(k_err, sum);
    __m256i o;
    const __mmask16 pass = level1<F>(yv, e, in_range(e), zero_pair(e, sum), &o);
    const __mmask16 rot = kIdentity ? rotates16(sh.element_rotates + i) : __mmask16(0xFFFF);
    put16<kIdentity>(y + i, o, raw, rot, m, kFull);
    return static_cast<std::uint32_t>(~pass & rot & m) & 0xFFFFu;
  };
  auto retry = [&](int k, E a, E b, bool second, double ck, double sk) { return retry_16(sh, sp, k, a, b, second, ck, sk); };
  const auto per_lane = fix_interleaved<16, E>(c, s, retry);
  // Level 2 of a failed step (level2_bf16, or test16h for float16): lanes i .. i + 15 are pairs
  // i/2 .. i/2 + 7, with the binary64 tables C = (c0, c0, c1, c1, ...), S = (-s0, s0, ...) as in rotate_interleaved_64.
  const __m512d k64 = _mm512_set1_pd(sh.err_scale);
  const __m512 k16 = _mm512_set1_ps(sh.err_scale16);
  const __m512i first_four = _mm512_set_epi64(3, 3, 2, 2, 1, 1, 0, 0), last_four = _mm512_set_epi64(7, 7, 6, 6, 5, 5, 4, 4);
  const __m512i even_sign = _mm512_set_epi64(0, static_cast<long long>(0x8000000000000000ull), 0, static_cast<long long>(0x8000000000000000ull), 0,
                                             static_cast<long long>(0x8000000000000000ull), 0, static_cast<long long>(0x8000000000000000ull));
  auto fix = [&](const E* x, E* y, int i, std::uint32_t bits) {
    const __m512 xv = F::widen(_mm256_maskz_loadu_epi16(tail16(n - i), x + i));
    const __m512d x0 = _mm512_cvtps_pd(_mm512_castps512_ps256(xv)), x1 = _mm512_cvtps_pd(_mm512_extractf32x8_ps(xv, 1));
    const __m512d o0 = _mm512_permute_pd(x0, 0x55), o1 = _mm512_permute_pd(x1, 0x55);
    const __mmask8 pairs = tail8(sh.block - i / 2);
    const __m512d c8 = _mm512_maskz_loadu_pd(pairs, c + i / 2), s8 = _mm512_maskz_loadu_pd(pairs, s + i / 2);
    auto signed_s = [&](__m512i idx) { return _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(_mm512_permutexvar_pd(idx, s8)), even_sign)); };
    const __m512d y0 = _mm512_fmadd_pd(x0, _mm512_permutexvar_pd(first_four, c8), _mm512_mul_pd(o0, signed_s(first_four)));
    const __m512d y1 = _mm512_fmadd_pd(x1, _mm512_permutexvar_pd(last_four, c8), _mm512_mul_pd(o1, signed_s(last_four)));
    std::uint32_t pass;
    __m256i o;
    if constexpr (std::is_same_v<E, Bf16Bits>) {
      const unsigned f = finite16(xv), both = f & (f >> 1) & 0x5555u, fin = both | (both << 1);
      __m512i r0, r1;
      const __mmask8 p0 = level2_bf16(y0, _mm512_mul_pd(k64, max_magnitude(x0, o0)), static_cast<__mmask8>(fin), &r0);
      const __mmask8 p1 = level2_bf16(y1, _mm512_mul_pd(k64, max_magnitude(x1, o1)), static_cast<__mmask8>(fin >> 8), &r1);
      pass = p0 | (static_cast<std::uint32_t>(p1) << 8);
      o = lanes16_of(r0, r1);
    } else {  // float16: ops.h's threshold test on y32 = RN32(y)
      const __m512 m = max_magnitude(xv, _mm512_permute_ps(xv, 0xB1));
      pass = test16h(y0, y1, threshold16(k16, m), m, &o);
    }
    _mm256_mask_storeu_epi16(y + i, static_cast<__mmask16>(bits & pass), o);
    if (const std::uint32_t left = bits & ~pass; left != 0) per_lane(x, y, i, left);
  };
  for_heads(sh, in, in_hs, out, out_hs, heads, n, scratch, sp.redone, step, fix);
}

// Half: 16 pairs per step in binary32.
template <typename F, bool kIdentity, typename E = typename F::E>
void rotate_half_16(const RowShape& sh, const double* c, const double* s, const E* in, std::int64_t in_hs, E* out,
                    std::int64_t out_hs, std::int64_t heads, const Scratch& scratch, const SlowPath& sp) {
  const int r = sh.block;
  float* cf = reinterpret_cast<float*>(scratch.table);  // 64-byte aligned (ops.h)
  float* sf = cf + (r + 15) / 16 * 16;
  narrow_row(r, c, s, cf, sf);
  const __m512 k_err = _mm512_set1_ps(sh.err_scale32);
  auto step = [&](const E* x, E* y, int k, auto full, __mmask16 m) -> std::uint32_t {
    constexpr bool kFull = decltype(full)::value;
    const __m256i ra = load16(x + k, m, kFull), rb = load16(x + r + k, m, kFull);
    const __m512 xa = F::widen(ra), xb = F::widen(rb);
    const __m512 cv = kFull ? _mm512_load_ps(cf + k) : _mm512_maskz_loadu_ps(m, cf + k);
    const __m512 sv = kFull ? _mm512_load_ps(sf + k) : _mm512_maskz_loadu_ps(m, sf + k);
    const __m512 ya = _mm512_fmsub_ps(xa, cv, _mm512_mul_ps(xb, sv));
    const __m512 yb = _mm512_fmadd_ps(xb, cv, _mm512_mul_ps(xa, sv));
    const __m512 sum = _mm512_add_ps(_mm512_abs_ps(xa), _mm512_abs_ps(xb)), e = _mm512_mul_ps(k_err, sum);
    const __mmask16 range = in_range(e), zero = zero_pair(e, sum);
    __m256i oa, ob;
    const __mmask16 pa = level1<F>(ya, e, range, zero, &oa), pb = level1<F>(yb, e, range, zero, &ob);
    const __mmask16 rot = kIdentity ? rotates16(sh.element_rotates + k) : __mmask16(0xFFFF);
    put16<kIdentity>(y + k, oa, ra, rot, m, kFull);
    put16<kIdentity>(y + r + k, ob, rb, rot, m, kFull);
    return (static_cast<std::uint32_t>(~pa & rot & m) & 0xFFFFu) | ((static_cast<std::uint32_t>(~pb & rot & m) & 0xFFFFu) << 16);
  };
  auto retry = [&](int k, E a, E b, bool second, double ck, double sk) { return retry_16(sh, sp, k, a, b, second, ck, sk); };
  const auto per_lane = fix_half<16, E>(r, c, s, retry);
  // Level 2 of a failed step (level2_bf16, or test16h for float16): pairs k .. k + 15, bits 0-15
  // the first components, 16-31 the second, the formula of rotate_half_64.
  const __m512d k64 = _mm512_set1_pd(sh.err_scale);
  const __m512 k16 = _mm512_set1_ps(sh.err_scale16);
  auto fix = [&](const E* x, E* y, int k, std::uint32_t bits) {
    const __mmask16 valid = tail16(r - k);
    const __mmask8 v0 = static_cast<__mmask8>(valid), v1 = static_cast<__mmask8>(valid >> 8);
    const __m512 xa = F::widen(_mm256_maskz_loadu_epi16(valid, x + k)), xb = F::widen(_mm256_maskz_loadu_epi16(valid, x + r + k));
    const __m512d xa0 = _mm512_cvtps_pd(_mm512_castps512_ps256(xa)), xa1 = _mm512_cvtps_pd(_mm512_extractf32x8_ps(xa, 1));
    const __m512d xb0 = _mm512_cvtps_pd(_mm512_castps512_ps256(xb)), xb1 = _mm512_cvtps_pd(_mm512_extractf32x8_ps(xb, 1));
    const __m512d c0 = _mm512_maskz_loadu_pd(v0, c + k), c1 = _mm512_maskz_loadu_pd(v1, c + k + 8);
    const __m512d s0 = _mm512_maskz_loadu_pd(v0, s + k), s1 = _mm512_maskz_loadu_pd(v1, s + k + 8);
    const __m512d ya0 = _mm512_fmsub_pd(xa0, c0, _mm512_mul_pd(xb0, s0)), ya1 = _mm512_fmsub_pd(xa1, c1, _mm512_mul_pd(xb1, s1));
    const __m512d yb0 = _mm512_fmadd_pd(xb0, c0, _mm512_mul_pd(xa0, s0)), yb1 = _mm512_fmadd_pd(xb1, c1, _mm512_mul_pd(xa1, s1));
    std::uint32_t pa, pb;
    __m256i oa, ob;
    if constexpr (std::is_same_v<E, Bf16Bits>) {
      const __m512d e0 = _mm512_mul_pd(k64, max_magnitude(xa0, xb0)), e1 = _mm512_mul_pd(k64, max_magnitude(xa1, xb1));
      const unsigned fin = finite16(xa) & finite16(xb);
      __m512i ra0, ra1, rb0, rb1;
      pa = level2_bf16(ya0, e0, static_cast<__mmask8>(fin), &ra0) |
           (static_cast<std::uint32_t>(level2_bf16(ya1, e1, static_cast<__mmask8>(fin >> 8), &ra1)) << 8);
      pb = level2_bf16(yb0, e0, static_cast<__mmask8>(fin), &rb0) |
           (static_cast<std::uint32_t>(level2_bf16(yb1, e1, static_cast<__mmask8>(fin >> 8), &rb1)) << 8);
      oa = lanes16_of(ra0, ra1);
      ob = lanes16_of(rb0, rb1);
    } else {  // float16: ops.h's threshold test on y32 = RN32(y)
      const __m512 m = max_magnitude(xa, xb), t = threshold16(k16, m);
      pa = test16h(ya0, ya1, t, m, &oa);
      pb = test16h(yb0, yb1, t, m, &ob);
    }
    _mm256_mask_storeu_epi16(y + k, static_cast<__mmask16>(bits & pa), oa);
    _mm256_mask_storeu_epi16(y + r + k, static_cast<__mmask16>((bits >> 16) & pb), ob);
    if (const std::uint32_t left = bits & ~(pa | (pb << 16)); left != 0) per_lane(x, y, k, left);
  };
  for_heads(sh, in, in_hs, out, out_hs, heads, r, scratch, sp.redone, step, fix);
}

template <typename E>
void rotate64(const RowShape& sh, const double* c, const double* s, const E* in, std::int64_t in_hs, E* out,
              std::int64_t out_hs, std::int64_t heads, const Scratch& scratch, const SlowPath& sp) {
  if (sh.layout == Layout::interleaved) {
    if (sh.any_identity) rotate_interleaved_64<E, true>(sh, c, s, in, in_hs, out, out_hs, heads, scratch, sp);
    else rotate_interleaved_64<E, false>(sh, c, s, in, in_hs, out, out_hs, heads, scratch, sp);
  } else {
    if (sh.any_identity) rotate_half_64<E, true>(sh, c, s, in, in_hs, out, out_hs, heads, scratch, sp);
    else rotate_half_64<E, false>(sh, c, s, in, in_hs, out, out_hs, heads, scratch, sp);
  }
}
template <typename F, typename E = typename F::E>
void rotate16(const RowShape& sh, const double* c, const double* s, const E* in, std::int64_t in_hs, E* out,
              std::int64_t out_hs, std::int64_t heads, const Scratch& scratch, const SlowPath& sp) {
  if (sh.layout == Layout::interleaved) {
    if (sh.any_identity) rotate_interleaved_16<F, true>(sh, c, s, in, in_hs, out, out_hs, heads, scratch, sp);
    else rotate_interleaved_16<F, false>(sh, c, s, in, in_hs, out, out_hs, heads, scratch, sp);
  } else {
    if (sh.any_identity) rotate_half_16<F, true>(sh, c, s, in, in_hs, out, out_hs, heads, scratch, sp);
    else rotate_half_16<F, false>(sh, c, s, in, in_hs, out, out_hs, heads, scratch, sp);
  }
}

}  // namespace

const PathOps& avx512_ops() {
  static const PathOps ops{&sincos_row, &rotate64<float>, &rotate16<Bf16Bitwise>, &rotate16<F16Convert>};
  return ops;
}

const PathOps& avx512_bf16_ops() {
  static const PathOps ops{&sincos_row, &rotate64<float>, &rotate16<Bf16Native>, &rotate16<F16Convert>};
  return ops;
}

}  // namespace ropecheck::kernel::detail

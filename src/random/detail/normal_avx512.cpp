// The AVX-512 twin of normal_sampler.cpp's scalar reference (detail/normal_ops.h lists the
// operations): 8 Philox blocks per register, one block per 64-bit lane, so VPMULUDQ's 32x32->64
// product of each lane's low word is exactly one Philox multiply (hi = product >> 32, lo = the low
// word, whose high-half garbage later instructions ignore or shift out). Then the same +, -, *, /,
// sqrt as the scalar code, no FMA, in the same order, so the bits agree. Compiled with -mavx512f
// -mavx512dq -mavx512vl -ffp-contract=off; reached only after cpu/path.cpp's CPUID/XCR0 probe.
// Everything is in an anonymous namespace (no inline function shared with baseline files).
#include <immintrin.h>

#include <cstring>

#include "random/detail/normal_ops.h"

namespace ropecheck::detail::normal {
namespace {

constexpr int kLanes = 8;

inline __m512d set(double v) { return _mm512_set1_pd(v); }
inline __m512i seti(std::uint64_t v) { return _mm512_set1_epi64(static_cast<long long>(v)); }

struct RoundKeys {
  __m512i k0[kPhiloxRounds], k1[kPhiloxRounds];
  RoundKeys(std::uint64_t seed) {
    std::uint32_t a = static_cast<std::uint32_t>(seed), b = static_cast<std::uint32_t>(seed >> 32);
    for (int r = 0; r < kPhiloxRounds; ++r, a += kPhiloxW0, b += kPhiloxW1) {
      k0[r] = seti(a);
      k1[r] = seti(b);
    }
  }
};

// Philox4x32-10 of G groups of 8 blocks, interleaved round by round (one group's rounds form a
// 10-step chain of multiply, shift and xor: alone it would leave the multipliers idle). c0..c3 are
// the counters {stream lo, stream hi, j lo, j hi} per lane; on return the low 32 bits of each lane
// of c0..c3 are the words w0..w3 (the high halves are garbage).
template <int G>
[[gnu::always_inline]] inline void philox8(const RoundKeys& keys, __m512i* c0, __m512i* c1, __m512i* c2, __m512i* c3) {
  const __m512i m0 = seti(kPhiloxM0), m1 = seti(kPhiloxM1);
  for (int r = 0; r < kPhiloxRounds; ++r) {
    for (int g = 0; g < G; ++g) {
      const __m512i p0 = _mm512_mul_epu32(c0[g], m0), p1 = _mm512_mul_epu32(c2[g], m1);
      // 0x96: a ^ b ^ c.
      c0[g] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p1, 32), c1[g], keys.k0[r], 0x96);
      c2[g] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p0, 32), c3[g], keys.k1[r], 0x96);
      c1[g] = p1;
      c3[g] = p0;
    }
  }
}

// ((hi << 32) | (lo & 0xFFFFFFFF)) >> 11 (0xF8: a | (b & c)).
inline __m512i top53(__m512i hi, __m512i lo) {
  return _mm512_srli_epi64(_mm512_ternarylogic_epi64(_mm512_slli_epi64(hi, 32), lo, seti(0xFFFFFFFFu), 0xF8), 11);
}

inline __m512d log_unit8(__m512d u) {
  const __m512i ub = _mm512_castpd_si512(u);
  __m512i k = _mm512_sub_epi64(_mm512_srli_epi64(ub, 52), seti(1023));
  const __m512i m = _mm512_and_si512(ub, seti((std::uint64_t{1} << 52) - 1));
  const __m512i i = _mm512_and_si512(_mm512_add_epi64(m, seti(std::uint64_t{0x95f64} << 32)), seti(std::uint64_t{1} << 52));
  const __m512d x = _mm512_castsi512_pd(_mm512_or_si512(m, _mm512_xor_si512(i, seti(std::uint64_t{0x3ff} << 52))));
  k = _mm512_add_epi64(k, _mm512_srli_epi64(i, 52));
  const __m512d f = _mm512_sub_pd(x, set(1.0));
  const __m512i hx = _mm512_srli_epi64(m, 32);
  const __mmask8 hfsq_form =
      _mm512_cmpgt_epi64_mask(_mm512_or_si512(_mm512_sub_epi64(hx, seti(kLogHfsqLo)), _mm512_sub_epi64(seti(kLogHfsqHi), hx)),
                              _mm512_setzero_si512());
  const __m512d s = _mm512_div_pd(f, _mm512_add_pd(set(2.0), f));
  const __m512d dk = _mm512_cvtepi64_pd(k);
  const __m512d z = _mm512_mul_pd(s, s);
  const __m512d w = _mm512_mul_pd(z, z);
  const __m512d t1 = _mm512_mul_pd(
      w, _mm512_add_pd(set(kLg2), _mm512_mul_pd(w, _mm512_add_pd(set(kLg4), _mm512_mul_pd(w, set(kLg6))))));
  const __m512d t2 = _mm512_mul_pd(
      z, _mm512_add_pd(set(kLg1),
                       _mm512_mul_pd(w, _mm512_add_pd(set(kLg3), _mm512_mul_pd(w, _mm512_add_pd(set(kLg5),
                                                                                                 _mm512_mul_pd(w, set(kLg7))))))));
  const __m512d r = _mm512_add_pd(t2, t1);
  const __m512d dk_hi = _mm512_mul_pd(dk, set(kLn2Hi)), dk_lo = _mm512_mul_pd(dk, set(kLn2Lo));
  const __m512d hfsq = _mm512_mul_pd(_mm512_mul_pd(set(0.5), f), f);
  const __m512d with_hfsq = _mm512_sub_pd(
      dk_hi, _mm512_sub_pd(
                 _mm512_sub_pd(hfsq, _mm512_add_pd(_mm512_mul_pd(s, _mm512_add_pd(hfsq, r)), dk_lo)), f));
  const __m512d plain =
      _mm512_sub_pd(dk_hi, _mm512_sub_pd(_mm512_sub_pd(_mm512_mul_pd(s, _mm512_sub_pd(f, r)), dk_lo), f));
  return _mm512_mask_blend_pd(hfsq_form, plain, with_hfsq);
}

inline void sincos_turn8(__m512i b, __m512d* c, __m512d* s) {
  const __m512i f = _mm512_and_si512(b, seti((std::uint64_t{1} << kOctantBits) - 1));
  const __mmask8 odd = _mm512_test_epi64_mask(b, seti(std::uint64_t{1} << kOctantBits));
  const __m512i r = _mm512_mask_sub_epi64(f, odd, seti(std::uint64_t{1} << kOctantBits), f);
  const __m512i rl = _mm512_and_si512(r, seti((std::uint64_t{1} << kTurnSplitBits) - 1));
  const __m512d rd = _mm512_cvtepi64_pd(r), rhd = _mm512_cvtepi64_pd(_mm512_sub_epi64(r, rl)),
                rld = _mm512_cvtepi64_pd(rl);
  const __m512d p1 = _mm512_mul_pd(rhd, set(kTurnK1)), p2 = _mm512_mul_pd(rld, set(kTurnK1)),
                p3 = _mm512_mul_pd(rd, set(kTurnK2));
  const __m512d s2 = _mm512_add_pd(p2, p3);
  const __m512d bp = _mm512_sub_pd(s2, p2);
  const __m512d e2 = _mm512_add_pd(_mm512_sub_pd(p2, _mm512_sub_pd(s2, bp)), _mm512_sub_pd(p3, bp));
  const __m512d xh = _mm512_add_pd(p1, s2);
  const __m512d xl = _mm512_add_pd(_mm512_add_pd(_mm512_sub_pd(p1, xh), s2), e2);
  const __m512d z = _mm512_mul_pd(xh, xh);
  const __m512d w = _mm512_mul_pd(z, z);
  const __m512d rc = _mm512_add_pd(
      _mm512_mul_pd(z, _mm512_add_pd(set(kC1), _mm512_mul_pd(z, _mm512_add_pd(set(kC2), _mm512_mul_pd(z, set(kC3)))))),
      _mm512_mul_pd(_mm512_mul_pd(w, w),
                    _mm512_add_pd(set(kC4), _mm512_mul_pd(z, _mm512_add_pd(set(kC5), _mm512_mul_pd(z, set(kC6)))))));
  const __m512d hz = _mm512_mul_pd(set(0.5), z);
  const __m512d wc = _mm512_sub_pd(set(1.0), hz);
  const __m512d cos_x = _mm512_add_pd(
      wc, _mm512_add_pd(_mm512_sub_pd(_mm512_sub_pd(set(1.0), wc), hz), _mm512_sub_pd(_mm512_mul_pd(z, rc), _mm512_mul_pd(xh, xl))));
  const __m512d rs = _mm512_add_pd(
      _mm512_add_pd(set(kS2), _mm512_mul_pd(z, _mm512_add_pd(set(kS3), _mm512_mul_pd(z, set(kS4))))),
      _mm512_mul_pd(_mm512_mul_pd(z, w), _mm512_add_pd(set(kS5), _mm512_mul_pd(z, set(kS6)))));
  const __m512d v = _mm512_mul_pd(z, xh);
  const __m512d sin_x = _mm512_sub_pd(
      xh, _mm512_sub_pd(_mm512_sub_pd(_mm512_mul_pd(z, _mm512_sub_pd(_mm512_mul_pd(set(0.5), xl), _mm512_mul_pd(v, rs))), xl),
                        _mm512_mul_pd(v, set(kS1))));
  // Swap for octants 1, 2, 5, 6: bit 51 of b + 2^50. Negate cos for 2..5: bit 52 of b + 2^51;
  // sin for 4..7: bit 52 of b. Moved to bit 63 and xored in (0x78: a ^ (b & c)).
  const __mmask8 swap = _mm512_test_epi64_mask(_mm512_add_epi64(b, seti(std::uint64_t{1} << kOctantBits)),
                                               seti(std::uint64_t{1} << (kOctantBits + 1)));
  const __m512d cv = _mm512_mask_blend_pd(swap, cos_x, sin_x);
  const __m512d sv = _mm512_mask_blend_pd(swap, sin_x, cos_x);
  const __m512i sign = seti(std::uint64_t{1} << 63);
  const __m512i cneg = _mm512_slli_epi64(_mm512_add_epi64(b, seti(std::uint64_t{1} << (kOctantBits + 1))), 11);
  const __m512i sneg = _mm512_slli_epi64(b, 11);
  *c = _mm512_castsi512_pd(_mm512_ternarylogic_epi64(_mm512_castpd_si512(cv), cneg, sign, 0x78));
  *s = _mm512_castsi512_pd(_mm512_ternarylogic_epi64(_mm512_castpd_si512(sv), sneg, sign, 0x78));
}

// Lane l holds block base + {0, 4, 1, 5, 2, 6, 3, 7}[l], so that unpacklo/unpackhi of the (cos,
// sin) deviates give blocks base..base+3 and base+4..base+7 in output order.
inline __m512i lane_blocks(std::uint64_t base) {
  return _mm512_and_si512(_mm512_add_epi64(seti(base), _mm512_setr_epi64(0, 4, 1, 5, 2, 6, 3, 7)),
                          seti((std::uint64_t{1} << 63) - 1));
}

// The 16 G deviates of blocks base..base+8G-1, in output order, as 2G registers. (always_inline:
// at -O2, GCC 12 otherwise reports its own intrinsics' _mm512_undefined_* placeholders as
// uninitialized in the out-of-line copy.)
template <int G>
[[gnu::always_inline]] inline void deviates(const RoundKeys& keys, __m512i s0, __m512i s1, std::uint64_t base,
                                            __m512d* out) {
  __m512i c0[G], c1[G], c2[G], c3[G];
  for (int g = 0; g < G; ++g) {
    c0[g] = s0;
    c1[g] = s1;
    c2[g] = lane_blocks(base + static_cast<std::uint64_t>(kLanes * g));
    c3[g] = _mm512_srli_epi64(c2[g], 32);
  }
  philox8<G>(keys, c0, c1, c2, c3);
  // Stage by stage over the groups, so that independent chains sit next to each other in the
  // instruction stream (one group's log or sincos is a long dependency chain).
  __m512d rho[G], c[G], s[G];
  for (int g = 0; g < G; ++g) {
    const __m512i a = top53(c1[g], c0[g]);
    rho[g] = _mm512_mul_pd(_mm512_cvtepi64_pd(_mm512_add_epi64(a, seti(1))), set(0x1p-53));
  }
  for (int g = 0; g < G; ++g) rho[g] = _mm512_sqrt_pd(_mm512_mul_pd(set(-2.0), log_unit8(rho[g])));
  for (int g = 0; g < G; ++g) sincos_turn8(top53(c3[g], c2[g]), &c[g], &s[g]);
  for (int g = 0; g < G; ++g) {
    const __m512d d0 = _mm512_mul_pd(rho[g], c[g]), d1 = _mm512_mul_pd(rho[g], s[g]);
    out[2 * g] = _mm512_unpacklo_pd(d0, d1);
    out[2 * g + 1] = _mm512_unpackhi_pd(d0, d1);
  }
}

constexpr int kBatch = 4;  // groups per main-loop step

void fill(std::uint64_t seed, std::uint64_t stream, std::uint64_t first, double* out, std::size_t n) {
  const RoundKeys keys(seed);
  const __m512i s0 = seti(stream & 0xFFFFFFFFu), s1 = seti(stream >> 32);
  std::uint64_t j = first >> 1;
  std::size_t done = 0;  // deviates of out written
  __m512d d[2 * kBatch];
  // An odd first starts inside block j: its group goes through a buffer, dropping deviate 2j.
  if (first & 1) {
    alignas(64) double tmp[2 * kLanes];
    deviates<1>(keys, s0, s1, j, d);
    _mm512_store_pd(tmp, d[0]);
    _mm512_store_pd(tmp + kLanes, d[1]);
    done = n < 2 * kLanes - 1 ? n : 2 * kLanes - 1;
    std::memcpy(out, tmp + 1, done * sizeof(double));
    j += kLanes;
  }
  for (; done + 2 * kLanes * kBatch <= n; done += 2 * kLanes * kBatch, j += kLanes * kBatch) {
    deviates<kBatch>(keys, s0, s1, j, d);
    for (int k = 0; k < 2 * kBatch; ++k) _mm512_storeu_pd(out + done + kLanes * k, d[k]);
  }
  for (; done < n; done += 2 * kLanes, j += kLanes) {
    deviates<1>(keys, s0, s1, j, d);
    const std::size_t rest = n - done;
    const __mmask8 mlo = rest >= kLanes ? __mmask8(0xFF) : static_cast<__mmask8>((1u << rest) - 1);
    const __mmask8 mhi = rest >= 2 * kLanes ? __mmask8(0xFF)
                         : rest > kLanes    ? static_cast<__mmask8>((1u << (rest - kLanes)) - 1)
                                            : __mmask8(0);
    _mm512_mask_storeu_pd(out + done, mlo, d[0]);
    _mm512_mask_storeu_pd(out + done + kLanes, mhi, d[1]);
  }
}

void philox(std::uint64_t seed, std::uint64_t stream, std::uint64_t j0, std::uint32_t* words, std::size_t n) {
  const RoundKeys keys(seed);
  const __m512i s0 = seti(stream & 0xFFFFFFFFu), s1 = seti(stream >> 32);
  const __m512i m32 = seti(0xFFFFFFFFu);
  for (std::size_t i = 0; i < n; i += kLanes) {
    __m512i w[4] = {s0, s1, _mm512_and_si512(_mm512_add_epi64(seti(j0 + i), _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7)),
                                             seti((std::uint64_t{1} << 63) - 1))};
    w[3] = _mm512_srli_epi64(w[2], 32);
    philox8<1>(keys, &w[0], &w[1], &w[2], &w[3]);
    alignas(64) std::uint64_t lanes[4][kLanes];
    for (int k = 0; k < 4; ++k) _mm512_store_si512(lanes[k], _mm512_and_si512(w[k], m32));
    for (std::size_t l = 0; l < kLanes && i + l < n; ++l)
      for (int k = 0; k < 4; ++k) words[4 * (i + l) + static_cast<std::size_t>(k)] = static_cast<std::uint32_t>(lanes[k][l]);
  }
}

}  // namespace

const NormalOps& avx512_ops() {
  static const NormalOps ops{&fill, &philox};
  return ops;
}

}  // namespace ropecheck::detail::normal

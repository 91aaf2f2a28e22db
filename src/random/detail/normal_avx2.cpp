// The AVX2 twin of normal_sampler.cpp's scalar reference (detail/normal_ops.h lists the
// operations): 4 Philox blocks per register, one block per 64-bit lane (VPMULUDQ multiplies each
// lane's low word: one Philox multiply per lane), then the same +, -, *, /, sqrt as the scalar code,
// no FMA, in the same order, so the bits agree. AVX2 has no int64 -> double conversion: integers
// below 2^52 convert exactly through the 2^52 exponent trick, a < 2^53 as 2^26 ah + al (exact), so
// every conversion gives the value the scalar cast gives. Compiled with -mavx2 -ffp-contract=off;
// reached only after cpu/path.cpp's CPUID/XCR0 probe. Everything is in an anonymous namespace.
#include <immintrin.h>

#include <cstring>

#include "random/detail/normal_ops.h"

namespace ropecheck::detail::normal {
namespace {

constexpr int kLanes = 4;

inline __m256d set(double v) { return _mm256_set1_pd(v); }
inline __m256i seti(std::uint64_t v) { return _mm256_set1_epi64x(static_cast<long long>(v)); }

// Exact conversions: 0 <= x < 2^52, and |x| < 2^51 for the signed one.
inline __m256d u52_to_pd(__m256i x) {
  return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(x, seti(0x4330000000000000u))), set(0x1p52));
}
inline __m256d s51_to_pd(__m256i x) {
  return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_add_epi64(x, seti(0x4338000000000000u))), set(0x1.8p52));
}

struct RoundKeys {
  __m256i k0[kPhiloxRounds], k1[kPhiloxRounds];
  RoundKeys(std::uint64_t seed) {
    std::uint32_t a = static_cast<std::uint32_t>(seed), b = static_cast<std::uint32_t>(seed >> 32);
    for (int r = 0; r < kPhiloxRounds; ++r, a += kPhiloxW0, b += kPhiloxW1) {
      k0[r] = seti(a);
      k1[r] = seti(b);
    }
  }
};

// Philox4x32-10 of G groups of 4 blocks, interleaved round by round; as normal_avx512.cpp's philox8.
template <int G>
inline void philox4(const RoundKeys& keys, __m256i* c0, __m256i* c1, __m256i* c2, __m256i* c3) {
  const __m256i m0 = seti(kPhiloxM0), m1 = seti(kPhiloxM1);
  for (int r = 0; r < kPhiloxRounds; ++r) {
    for (int g = 0; g < G; ++g) {
      const __m256i p0 = _mm256_mul_epu32(c0[g], m0), p1 = _mm256_mul_epu32(c2[g], m1);
      c0[g] = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p1, 32), c1[g]), keys.k0[r]);
      c2[g] = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p0, 32), c3[g]), keys.k1[r]);
      c1[g] = p1;
      c3[g] = p0;
    }
  }
}

inline __m256i top53(__m256i hi, __m256i lo) {
  return _mm256_srli_epi64(_mm256_or_si256(_mm256_slli_epi64(hi, 32), _mm256_and_si256(lo, seti(0xFFFFFFFFu))), 11);
}

inline __m256d log_unit4(__m256d u) {
  const __m256i ub = _mm256_castpd_si256(u);
  __m256i k = _mm256_sub_epi64(_mm256_srli_epi64(ub, 52), seti(1023));
  const __m256i m = _mm256_and_si256(ub, seti((std::uint64_t{1} << 52) - 1));
  const __m256i i = _mm256_and_si256(_mm256_add_epi64(m, seti(std::uint64_t{0x95f64} << 32)), seti(std::uint64_t{1} << 52));
  const __m256d x = _mm256_castsi256_pd(_mm256_or_si256(m, _mm256_xor_si256(i, seti(std::uint64_t{0x3ff} << 52))));
  k = _mm256_add_epi64(k, _mm256_srli_epi64(i, 52));
  const __m256d f = _mm256_sub_pd(x, set(1.0));
  const __m256i hx = _mm256_srli_epi64(m, 32);
  const __m256d hfsq_form = _mm256_castsi256_pd(_mm256_cmpgt_epi64(
      _mm256_or_si256(_mm256_sub_epi64(hx, seti(kLogHfsqLo)), _mm256_sub_epi64(seti(kLogHfsqHi), hx)), _mm256_setzero_si256()));
  const __m256d s = _mm256_div_pd(f, _mm256_add_pd(set(2.0), f));
  const __m256d dk = s51_to_pd(k);
  const __m256d z = _mm256_mul_pd(s, s);
  const __m256d w = _mm256_mul_pd(z, z);
  const __m256d t1 = _mm256_mul_pd(
      w, _mm256_add_pd(set(kLg2), _mm256_mul_pd(w, _mm256_add_pd(set(kLg4), _mm256_mul_pd(w, set(kLg6))))));
  const __m256d t2 = _mm256_mul_pd(
      z, _mm256_add_pd(set(kLg1),
                       _mm256_mul_pd(w, _mm256_add_pd(set(kLg3), _mm256_mul_pd(w, _mm256_add_pd(set(kLg5),
                                                                                                 _mm256_mul_pd(w, set(kLg7))))))));
  const __m256d r = _mm256_add_pd(t2, t1);
  const __m256d dk_hi = _mm256_mul_pd(dk, set(kLn2Hi)), dk_lo = _mm256_mul_pd(dk, set(kLn2Lo));
  const __m256d hfsq = _mm256_mul_pd(_mm256_mul_pd(set(0.5), f), f);
  const __m256d with_hfsq = _mm256_sub_pd(
      dk_hi, _mm256_sub_pd(
                 _mm256_sub_pd(hfsq, _mm256_add_pd(_mm256_mul_pd(s, _mm256_add_pd(hfsq, r)), dk_lo)), f));
  const __m256d plain =
      _mm256_sub_pd(dk_hi, _mm256_sub_pd(_mm256_sub_pd(_mm256_mul_pd(s, _mm256_sub_pd(f, r)), dk_lo), f));
  return _mm256_blendv_pd(plain, with_hfsq, hfsq_form);
}

inline void sincos_turn4(__m256i b, __m256d* c, __m256d* s) {
  const __m256i octant_bit = seti(std::uint64_t{1} << kOctantBits);
  const __m256i f = _mm256_and_si256(b, seti((std::uint64_t{1} << kOctantBits) - 1));
  const __m256i odd = _mm256_cmpeq_epi64(_mm256_and_si256(b, octant_bit), octant_bit);
  const __m256i r = _mm256_blendv_epi8(f, _mm256_sub_epi64(octant_bit, f), odd);
  const __m256i rl = _mm256_and_si256(r, seti((std::uint64_t{1} << kTurnSplitBits) - 1));
  const __m256d rd = u52_to_pd(r), rhd = u52_to_pd(_mm256_sub_epi64(r, rl)), rld = u52_to_pd(rl);
  const __m256d p1 = _mm256_mul_pd(rhd, set(kTurnK1)), p2 = _mm256_mul_pd(rld, set(kTurnK1)),
                p3 = _mm256_mul_pd(rd, set(kTurnK2));
  const __m256d s2 = _mm256_add_pd(p2, p3);
  const __m256d bp = _mm256_sub_pd(s2, p2);
  const __m256d e2 = _mm256_add_pd(_mm256_sub_pd(p2, _mm256_sub_pd(s2, bp)), _mm256_sub_pd(p3, bp));
  const __m256d xh = _mm256_add_pd(p1, s2);
  const __m256d xl = _mm256_add_pd(_mm256_add_pd(_mm256_sub_pd(p1, xh), s2), e2);
  const __m256d z = _mm256_mul_pd(xh, xh);
  const __m256d w = _mm256_mul_pd(z, z);
  const __m256d rc = _mm256_add_pd(
      _mm256_mul_pd(z, _mm256_add_pd(set(kC1), _mm256_mul_pd(z, _mm256_add_pd(set(kC2), _mm256_mul_pd(z, set(kC3)))))),
      _mm256_mul_pd(_mm256_mul_pd(w, w),
                    _mm256_add_pd(set(kC4), _mm256_mul_pd(z, _mm256_add_pd(set(kC5), _mm256_mul_pd(z, set(kC6)))))));
  const __m256d hz = _mm256_mul_pd(set(0.5), z);
  const __m256d wc = _mm256_sub_pd(set(1.0), hz);
  const __m256d cos_x = _mm256_add_pd(
      wc, _mm256_add_pd(_mm256_sub_pd(_mm256_sub_pd(set(1.0), wc), hz), _mm256_sub_pd(_mm256_mul_pd(z, rc), _mm256_mul_pd(xh, xl))));
  const __m256d rs = _mm256_add_pd(
      _mm256_add_pd(set(kS2), _mm256_mul_pd(z, _mm256_add_pd(set(kS3), _mm256_mul_pd(z, set(kS4))))),
      _mm256_mul_pd(_mm256_mul_pd(z, w), _mm256_add_pd(set(kS5), _mm256_mul_pd(z, set(kS6)))));
  const __m256d v = _mm256_mul_pd(z, xh);
  const __m256d sin_x = _mm256_sub_pd(
      xh, _mm256_sub_pd(_mm256_sub_pd(_mm256_mul_pd(z, _mm256_sub_pd(_mm256_mul_pd(set(0.5), xl), _mm256_mul_pd(v, rs))), xl),
                        _mm256_mul_pd(v, set(kS1))));
  // Swap for octants 1, 2, 5, 6 (bit 51 of b + 2^50, moved to the sign bit blendv reads); negate
  // cos for 2..5 (bit 52 of b + 2^51) and sin for 4..7 (bit 52 of b), moved to bit 63.
  const __m256d swap = _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_add_epi64(b, octant_bit), 12));
  const __m256d cv = _mm256_blendv_pd(cos_x, sin_x, swap);
  const __m256d sv = _mm256_blendv_pd(sin_x, cos_x, swap);
  const __m256i sign = seti(std::uint64_t{1} << 63);
  const __m256i cneg = _mm256_and_si256(_mm256_slli_epi64(_mm256_add_epi64(b, seti(std::uint64_t{1} << (kOctantBits + 1))), 11), sign);
  const __m256i sneg = _mm256_and_si256(_mm256_slli_epi64(b, 11), sign);
  *c = _mm256_castsi256_pd(_mm256_xor_si256(_mm256_castpd_si256(cv), cneg));
  *s = _mm256_castsi256_pd(_mm256_xor_si256(_mm256_castpd_si256(sv), sneg));
}

// Lane l holds block base + {0, 2, 1, 3}[l]: unpacklo/unpackhi then give output order.
inline __m256i lane_blocks(std::uint64_t base) {
  return _mm256_and_si256(_mm256_add_epi64(seti(base), _mm256_setr_epi64x(0, 2, 1, 3)), seti((std::uint64_t{1} << 63) - 1));
}

// The 8 G deviates of blocks base..base+4G-1 in output order, as 2G registers; stage by stage over
// the groups (see normal_avx512.cpp).
template <int G>
inline void deviates(const RoundKeys& keys, __m256i s0, __m256i s1, std::uint64_t base, __m256d* out) {
  __m256i c0[G], c1[G], c2[G], c3[G];
  for (int g = 0; g < G; ++g) {
    c0[g] = s0;
    c1[g] = s1;
    c2[g] = lane_blocks(base + static_cast<std::uint64_t>(kLanes * g));
    c3[g] = _mm256_srli_epi64(c2[g], 32);
  }
  philox4<G>(keys, c0, c1, c2, c3);
  __m256d rho[G], c[G], s[G];
  for (int g = 0; g < G; ++g) {
    const __m256i a = top53(c1[g], c0[g]);
    // RN(a + 1) exactly: a = 2^26 ah + al.
    const __m256d ad = _mm256_add_pd(_mm256_mul_pd(u52_to_pd(_mm256_srli_epi64(a, 26)), set(0x1p26)),
                                     u52_to_pd(_mm256_and_si256(a, seti((std::uint64_t{1} << 26) - 1))));
    rho[g] = _mm256_mul_pd(_mm256_add_pd(ad, set(1.0)), set(0x1p-53));
  }
  for (int g = 0; g < G; ++g) rho[g] = _mm256_sqrt_pd(_mm256_mul_pd(set(-2.0), log_unit4(rho[g])));
  for (int g = 0; g < G; ++g) sincos_turn4(top53(c3[g], c2[g]), &c[g], &s[g]);
  for (int g = 0; g < G; ++g) {
    const __m256d d0 = _mm256_mul_pd(rho[g], c[g]), d1 = _mm256_mul_pd(rho[g], s[g]);
    out[2 * g] = _mm256_unpacklo_pd(d0, d1);
    out[2 * g + 1] = _mm256_unpackhi_pd(d0, d1);
  }
}

constexpr int kBatch = 4;  // groups per main-loop step

void fill(std::uint64_t seed, std::uint64_t stream, std::uint64_t first, double* out, std::size_t n) {
  const RoundKeys keys(seed);
  const __m256i s0 = seti(stream & 0xFFFFFFFFu), s1 = seti(stream >> 32);
  std::uint64_t j = first >> 1;
  std::size_t done = 0;
  __m256d d[2 * kBatch];
  alignas(32) double tmp[2 * kLanes];
  // An odd first starts inside block j: its group goes through the buffer, dropping deviate 2j.
  if (first & 1) {
    deviates<1>(keys, s0, s1, j, d);
    _mm256_store_pd(tmp, d[0]);
    _mm256_store_pd(tmp + kLanes, d[1]);
    done = n < 2 * kLanes - 1 ? n : 2 * kLanes - 1;
    std::memcpy(out, tmp + 1, done * sizeof(double));
    j += kLanes;
  }
  for (; done + 2 * kLanes * kBatch <= n; done += 2 * kLanes * kBatch, j += kLanes * kBatch) {
    deviates<kBatch>(keys, s0, s1, j, d);
    for (int k = 0; k < 2 * kBatch; ++k) _mm256_storeu_pd(out + done + kLanes * k, d[k]);
  }
  for (; done + 2 * kLanes <= n; done += 2 * kLanes, j += kLanes) {
    deviates<1>(keys, s0, s1, j, d);
    _mm256_storeu_pd(out + done, d[0]);
    _mm256_storeu_pd(out + done + kLanes, d[1]);
  }
  if (done < n) {
    deviates<1>(keys, s0, s1, j, d);
    _mm256_store_pd(tmp, d[0]);
    _mm256_store_pd(tmp + kLanes, d[1]);
    std::memcpy(out + done, tmp, (n - done) * sizeof(double));
  }
}

void philox(std::uint64_t seed, std::uint64_t stream, std::uint64_t j0, std::uint32_t* words, std::size_t n) {
  const RoundKeys keys(seed);
  const __m256i s0 = seti(stream & 0xFFFFFFFFu), s1 = seti(stream >> 32);
  const __m256i m32 = seti(0xFFFFFFFFu);
  for (std::size_t i = 0; i < n; i += kLanes) {
    __m256i w[4] = {s0, s1, _mm256_and_si256(_mm256_add_epi64(seti(j0 + i), _mm256_setr_epi64x(0, 1, 2, 3)),
                                             seti((std::uint64_t{1} << 63) - 1))};
    w[3] = _mm256_srli_epi64(w[2], 32);
    philox4<1>(keys, &w[0], &w[1], &w[2], &w[3]);
    alignas(32) std::uint64_t lanes[4][kLanes];
    for (int k = 0; k < 4; ++k) _mm256_store_si256(reinterpret_cast<__m256i*>(lanes[k]), _mm256_and_si256(w[k], m32));
    for (std::size_t l = 0; l < kLanes && i + l < n; ++l)
      for (int k = 0; k < 4; ++k) words[4 * (i + l) + static_cast<std::size_t>(k)] = static_cast<std::uint32_t>(lanes[k][l]);
  }
}

}  // namespace

const NormalOps& avx2_ops() {
  static const NormalOps ops{&fill, &philox};
  return ops;
}

}  // namespace ropecheck::detail::normal

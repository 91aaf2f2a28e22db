// File: detail/normal_ops.h
// The per-path primitives behind normal_sampler.h, and the constants every twin shares. The scalar
// functions (normal_sampler.cpp) fix the semantics; normal_avx2.cpp and normal_avx512.cpp repeat
// them operation for operation (same +, -, *, /, sqrt in the same order, no FMA), so every path
// returns the same bits. Only constants live here: an inline function compiled into an AVX-512
// file could be the copy the linker keeps for baseline callers.
//
// Per Philox block (w0..w3, see normal_sampler.h), with a = ((w1 << 32) | w0) >> 11 and
// b = ((w3 << 32) | w2) >> 11:
//   log:  u = RN(a + 1) * 2^-53 (exact); L = log_unit(u), fdlibm e_log.c on the bits of u, without
//         its |f| < 2^-20 shortcut and with the k == 0 branches folded into the general formulas
//         (bit-identical to fdlibm, as 0 * ln2 terms add exact zeros).
//   rho:  sqrt(-2 * L).
//   turn: octant o = b >> 50, offset f = b mod 2^50; r = f for even o, 2^50 - f for odd o
//         (0 <= r <= 2^50), so the angle is an octant multiple of pi/4 -/+ x with x = 2 pi r 2^-53
//         in [0, pi/4]. x as an unevaluated sum xh + xl: r = rh + rl, rl = r mod 2^24;
//         p1 = rh K1, p2 = rl K1 (both exact: <= 27 + 25 and 24 + 25 bits), p3 = RN(r K2);
//         (s, se) = TwoSum(p2, p3); xh = RN(p1 + s); xl = ((p1 - xh) + s) + se (Fast2Sum: p1 = 0
//         or |p1| >= 2^24 K1 > |s|). K1 + K2 = 2 pi 2^-53 (1 + 2^-81 at most).
//   sin x, cos x: the FreeBSD (fdlibm) __kernel_sin(xh, xl, 1) and __kernel_cos(xh, xl).
//   octant: cos(2 pi t), sin(2 pi t) = (C, S) swapped for o in {1, 2, 5, 6}, cos negated for
//         o in {2, 3, 4, 5}, sin for o in {4, 5, 6, 7} (exact).
//   deviates: 2j = RN(rho * cos(2 pi t)), 2j + 1 = RN(rho * sin(2 pi t)).
#pragma once

#include <cstddef>
#include <cstdint>

#include "cpu/path.h"
#include "numeric/fdlibm_sincos.h"

namespace ropecheck::detail::normal {

// Philox4x32 (Random123 philox.h): multipliers and Weyl key increments.
inline constexpr std::uint32_t kPhiloxM0 = 0xD2511F53u, kPhiloxM1 = 0xCD9E8D57u;
inline constexpr std::uint32_t kPhiloxW0 = 0x9E3779B9u, kPhiloxW1 = 0xBB67AE85u;
inline constexpr int kPhiloxRounds = 10;

// fdlibm e_log.c: ln2 split so that k * kLn2Hi is exact for |k| < 2^11, and the Remez
// coefficients of (log(1+f) - 2s)/s - ... on s in [0, 0.1716] (|error| < 2^-58.45).
inline constexpr double kLn2Hi = 0x1.62e42feep-1, kLn2Lo = 0x1.a39ef35793c76p-33;
inline constexpr double kLg1 = 0x1.5555555555593p-1, kLg2 = 0x1.999999997fa04p-2, kLg3 = 0x1.2492494229359p-2,
                        kLg4 = 0x1.c71c51d8e78afp-3, kLg5 = 0x1.7466496cb03dep-3, kLg6 = 0x1.39a09d078c69fp-3,
                        kLg7 = 0x1.2f112df3e5244p-3;
static_assert(kLn2Hi == 6.93147180369123816490e-01 && kLn2Lo == 1.90821492927058770002e-10);
static_assert(kLg1 == 6.666666666666735130e-01 && kLg2 == 3.999999999940941908e-01 &&
              kLg3 == 2.857142874366239149e-01 && kLg4 == 2.222219843214978396e-01 &&
              kLg5 == 1.818357216161805012e-01 && kLg6 == 1.531383769920937332e-01 &&
              kLg7 == 1.479819860511658591e-01);
// fdlibm e_log.c's window on the top 20 mantissa bits hx in which it uses the hfsq formula.
inline constexpr std::int64_t kLogHfsqLo = 0x6147a, kLogHfsqHi = 0x6b851;

// 2 pi 2^-53 = K1 + K2 (+ < 2^-81 relative): K1 has 25 significant bits, K2 = RN(2 pi 2^-53 - K1).
inline constexpr double kTurnK1 = 0x1.921fb5p-51, kTurnK2 = 0x1.110b4611a6263p-77;
inline constexpr std::uint64_t kOctantBits = 50;        // b = o 2^50 + f
inline constexpr std::uint64_t kTurnSplitBits = 24;     // rl = r mod 2^24

// FreeBSD k_sin.c / k_cos.c coefficients (numeric/fdlibm_sincos.h states their bounds), the same
// constants as the RoPE kernel's sin/cos table.
using fdlibm::kC1, fdlibm::kC2, fdlibm::kC3, fdlibm::kC4, fdlibm::kC5, fdlibm::kC6;
using fdlibm::kS1, fdlibm::kS2, fdlibm::kS3, fdlibm::kS4, fdlibm::kS5, fdlibm::kS6;

struct NormalOps {
  // out[i] = deviate (first + i) of (seed, stream), i < n.
  void (*fill)(std::uint64_t seed, std::uint64_t stream, std::uint64_t first, double* out, std::size_t n);
  // words[4 i + w] = word w of Philox4x32-10 block (j0 + i) mod 2^63 of (seed, stream), i < n.
  void (*philox)(std::uint64_t seed, std::uint64_t stream, std::uint64_t j0, std::uint32_t* words, std::size_t n);
};

const NormalOps& scalar_ops();
const NormalOps& avx2_ops();
const NormalOps& avx512_ops();
const NormalOps& ops_for(cpu::Path path);

// The scalar reference's pieces, for the accuracy tests (tests/random/normal_sampler_test.cpp).
// log_unit: log u for u a positive normal double (fdlibm e_log.c, as above).
double log_unit(double u);
// cos and sin of 2 pi b 2^-53 for b < 2^53.
void sincos_turn(std::uint64_t b, double* c, double* s);

}  // namespace ropecheck::detail::normal

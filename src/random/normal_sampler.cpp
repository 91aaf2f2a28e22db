// The scalar reference of normal_sampler.h (the semantics; detail/normal_ops.h spells out every
// operation) and the per-path dispatch. Compiled for baseline x86-64 with -ffp-contract=off: every
// a * b + c below is a rounded product and a rounded sum, exactly as in the SIMD twins.
//
// Accuracy (ulp = ulp of the exact value's binade in binary64; "measured" = the max over the inputs
// of tests/random/normal_sampler_test.cpp against MPFR at 200 bits, a LOWER bound on the true max):
//  - log_unit(u), u in [2^-53, 1]: < 1 ulp, fdlibm's bound for e_log.c (argued in its comments, not
//    re-proved here; the test asserts it on every input). Measured max 0.80 ulp (u = 0x1.3f9a3e36afac5p-1)
//    over 10^5 seeded u (half uniform, half small) plus the edges 2^-53, 1 - 2^-53, 1, 1/2,
//    sqrt(1/2)'s neighbours and the ends of the hfsq window.
//  - cos(2 pi t), sin(2 pi t), t = b 2^-53: the reduction is exact but for x = xh + xl, whose error
//    is < 2^-78 |x| (K1 + K2 is off by < 2^-81 relative, the roundings of p3 and of xl add
//    < 2^-79 |x|); the FreeBSD kernels with a tail are < 1 ulp (their comments' bound). Measured max
//    0.73 ulp (cos) and 0.74 ulp (sin) over 10^5 seeded b plus every octant boundary +-2, t near
//    each quarter turn (cos or sin tiny) and t just below 1.
//  - deviates: relative error < (2^-53 [log, halved by sqrt] + 2^-53 [sqrt] + 2^-52 [cos/sin]
//    + 2^-53 [product]) (1 + O(2^-52)) < 2.51 2^-52, given the two stated bounds above. Measured
//    max 1.32 2^-52 over 2 10^4 seeded deviates.
#include "random/normal_sampler.h"

#include <Random123/philox.h>

#include <bit>
#include <cmath>

#include "random/detail/normal_ops.h"

namespace ropecheck {
namespace detail::normal {

double log_unit(double u) {
  const std::uint64_t ub = std::bit_cast<std::uint64_t>(u);
  std::int64_t k = static_cast<std::int64_t>(ub >> 52) - 1023;
  const std::uint64_t m = ub & ((std::uint64_t{1} << 52) - 1);
  // Normalise the mantissa into [sqrt(1/2), sqrt(2)): halve it when m >= sqrt(2) - 1 (the carry).
  const std::uint64_t i = (m + (std::uint64_t{0x95f64} << 32)) & (std::uint64_t{1} << 52);
  const double x = std::bit_cast<double>(m | (i ^ (std::uint64_t{0x3ff} << 52)));
  k += static_cast<std::int64_t>(i >> 52);
  const double f = x - 1.0;  // exact (Sterbenz)
  const std::int64_t hx = static_cast<std::int64_t>(m >> 32);
  const bool hfsq_form = ((hx - kLogHfsqLo) | (kLogHfsqHi - hx)) > 0;
  const double s = f / (2.0 + f);
  const double dk = static_cast<double>(k);
  const double z = s * s;
  const double w = z * z;
  const double t1 = w * (kLg2 + w * (kLg4 + w * kLg6));
  const double t2 = z * (kLg1 + w * (kLg3 + w * (kLg5 + w * kLg7)));
  const double r = t2 + t1;
  if (hfsq_form) {
    const double hfsq = 0.5 * f * f;
    return dk * kLn2Hi - ((hfsq - (s * (hfsq + r) + dk * kLn2Lo)) - f);
  }
  return dk * kLn2Hi - ((s * (f - r) - dk * kLn2Lo) - f);
}

void sincos_turn(std::uint64_t b, double* c, double* s) {
  const std::uint64_t o = b >> kOctantBits;
  const std::uint64_t f = b & ((std::uint64_t{1} << kOctantBits) - 1);
  const std::uint64_t r = (o & 1) ? (std::uint64_t{1} << kOctantBits) - f : f;
  const std::uint64_t rl = r & ((std::uint64_t{1} << kTurnSplitBits) - 1);
  const double rd = static_cast<double>(r), rhd = static_cast<double>(r - rl), rld = static_cast<double>(rl);
  const double p1 = rhd * kTurnK1, p2 = rld * kTurnK1, p3 = rd * kTurnK2;
  // TwoSum(p2, p3): s2 + e2 = p2 + p3 exactly.
  const double s2 = p2 + p3;
  const double bp = s2 - p2;
  const double e2 = (p2 - (s2 - bp)) + (p3 - bp);
  const double xh = p1 + s2;
  const double xl = ((p1 - xh) + s2) + e2;
  // FreeBSD k_cos.c / k_sin.c (iy = 1) at x = xh, y = xl.
  const double z = xh * xh;
  const double w = z * z;
  const double rc = z * (kC1 + z * (kC2 + z * kC3)) + w * w * (kC4 + z * (kC5 + z * kC6));
  const double hz = 0.5 * z;
  const double wc = 1.0 - hz;
  const double cos_x = wc + (((1.0 - wc) - hz) + (z * rc - xh * xl));
  const double rs = kS2 + z * (kS3 + z * kS4) + z * w * (kS5 + z * kS6);
  const double v = z * xh;
  const double sin_x = xh - ((z * (0.5 * xl - v * rs) - xl) - v * kS1);
  const bool swap = ((o + 1) >> 1) & 1;
  double cv = swap ? sin_x : cos_x;
  double sv = swap ? cos_x : sin_x;
  if (((o + 2) >> 2) & 1) cv = -cv;
  if ((o >> 2) & 1) sv = -sv;
  *c = cv;
  *s = sv;
}

namespace {

constexpr std::uint64_t kBlockMask = (std::uint64_t{1} << 63) - 1;

r123::Philox4x32::ctr_type philox_block(std::uint64_t seed, std::uint64_t stream, std::uint64_t j) {
  const r123::Philox4x32::key_type key = {{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}};
  const r123::Philox4x32::ctr_type ctr = {{static_cast<std::uint32_t>(stream), static_cast<std::uint32_t>(stream >> 32),
                                           static_cast<std::uint32_t>(j), static_cast<std::uint32_t>(j >> 32)}};
  return r123::Philox4x32()(ctr, key);
}

// The two deviates of block j.
void block_deviates(std::uint64_t seed, std::uint64_t stream, std::uint64_t j, double* d0, double* d1) {
  const auto w = philox_block(seed, stream, j);
  const std::uint64_t a = ((static_cast<std::uint64_t>(w[1]) << 32) | w[0]) >> 11;
  const std::uint64_t b = ((static_cast<std::uint64_t>(w[3]) << 32) | w[2]) >> 11;
  const double u = static_cast<double>(a + 1) * 0x1p-53;
  const double rho = std::sqrt(-2.0 * log_unit(u));
  double c, s;
  sincos_turn(b, &c, &s);
  *d0 = rho * c;
  *d1 = rho * s;
}

void fill(std::uint64_t seed, std::uint64_t stream, std::uint64_t first, double* out, std::size_t n) {
  std::uint64_t j = first >> 1;
  std::size_t i = 0;
  double d0, d1;
  if ((first & 1) && n > 0) {
    block_deviates(seed, stream, j, &d0, &d1);
    out[i++] = d1;
    j = (j + 1) & kBlockMask;
  }
  for (; i + 2 <= n; i += 2, j = (j + 1) & kBlockMask) block_deviates(seed, stream, j, out + i, out + i + 1);
  if (i < n) {
    block_deviates(seed, stream, j, &d0, &d1);
    out[i] = d0;
  }
}

void philox(std::uint64_t seed, std::uint64_t stream, std::uint64_t j0, std::uint32_t* words, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const auto w = philox_block(seed, stream, (j0 + i) & kBlockMask);
    for (int k = 0; k < 4; ++k) words[4 * i + static_cast<std::size_t>(k)] = w[static_cast<std::size_t>(k)];
  }
}

}  // namespace

const NormalOps& scalar_ops() {
  static const NormalOps ops{&fill, &philox};
  return ops;
}

const NormalOps& ops_for(cpu::Path path) {
  switch (path) {
    case cpu::Path::scalar: return scalar_ops();
#if ROPECHECK_X86
    case cpu::Path::avx2: return avx2_ops();
    case cpu::Path::avx512:
    case cpu::Path::avx512_bf16: return avx512_ops();
#else
    // Not built off x86 (cmake/Architecture.cmake), and never available there (cpu/path.h).
    case cpu::Path::avx2:
    case cpu::Path::avx512:
    case cpu::Path::avx512_bf16: break;
#endif
  }
  return scalar_ops();
}

}  // namespace detail::normal

double normal_deviate(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  double d;
  detail::normal::scalar_ops().fill(seed, stream, index, &d, 1);
  return d;
}

void normal_fill(std::uint64_t seed, std::uint64_t stream, std::uint64_t first, std::span<double> out,
                 cpu::Path path) {
  if (out.empty()) return;
  detail::normal::ops_for(path).fill(seed, stream, first, out.data(), out.size());
}

}  // namespace ropecheck

// round_rational_to_binary: exact rationals rounded to binary32 and bfloat16, with the ties and
// the near-ties (1/(3 2^80) off a midpoint: below what 64 bits hold, so a plain rounding to 64 bits
// would turn them into ties) written out by hand. Failures print q and the result in hex.
#include "numeric/round_to_binary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "numeric/mp_handles.h"
#include "tests/support/show.h"

namespace ropecheck {
namespace {

// q = n / d * 2^e + s / (3 * 2^t) (s in {-1, 0, 1}).
struct Q {
  Mpq v;
  Q(long n, unsigned long d, long e, int s = 0, unsigned long t = 0) {
    mpq_set_si(v.v, n, d);
    mpq_canonicalize(v.v);
    if (e >= 0) mpq_mul_2exp(v.v, v.v, static_cast<mp_bitcnt_t>(e));
    else mpq_div_2exp(v.v, v.v, static_cast<mp_bitcnt_t>(-e));
    if (s != 0) {
      Mpq eps;
      mpq_set_si(eps.v, s, 3);
      mpq_div_2exp(eps.v, eps.v, t);
      mpq_add(v.v, v.v, eps.v);
    }
  }
  std::string text() const { return show(v.v); }
};

double f32(const Q& q) { return round_rational_to_binary(q.v.v, 24, -126, 127); }
double bf16(const Q& q) { return round_rational_to_binary(q.v.v, 8, -126, 127); }

TEST(RoundRationalToBinary, TiesGoToEvenAndNearTiesToTheirSide) {
  // 16777475 lies between 16777474 and 16777476 (spacing 2 above 2^24); 16777476 = 2 x 8388738, even.
  const struct {
    Q q;
    double want;
  } cases[] = {
      {Q(16777475, 1, 0), 16777476},          {Q(16777477, 1, 0), 16777476},
      {Q(16777475, 1, 0, -1, 80), 16777474},  {Q(16777475, 1, 0, 1, 80), 16777476},
      {Q(16777477, 1, 0, 1, 80), 16777478},   {Q(-16777475, 1, 0, 1, 80), -16777474},
      {Q(-16777475, 1, 0), -16777476},        {Q(143 * 611250, 100, 0), 874087.5},  // below 2^24 halves are binary32 values
  };
  for (const auto& c : cases) EXPECT_EQ(f32(c.q), c.want) << "q=" << c.q.text() << " got=" << std::hexfloat << f32(c.q);
  // bfloat16: spacing 1 in [128, 256).
  EXPECT_EQ(bf16(Q(429, 2, 0)), 214.0);  // 214.5
  EXPECT_EQ(bf16(Q(431, 2, 0)), 216.0);  // 215.5
  EXPECT_EQ(bf16(Q(429, 2, 0, -1, 90)), 214.0);
  EXPECT_EQ(bf16(Q(429, 2, 0, 1, 90)), 215.0);
}

TEST(RoundRationalToBinary, SubnormalsAndOverflow) {
  const double q = std::ldexp(1.0, -149);  // binary32's quantum
  EXPECT_EQ(f32(Q(1, 1, -150)), 0.0);                 // q/2: the tie rounds to 0 (even)
  EXPECT_EQ(f32(Q(1, 1, -150, 1, 300)), q);           // just above q/2
  EXPECT_EQ(f32(Q(3, 1, -150)), 2 * q);               // 1.5 q: tie, to 2q
  EXPECT_EQ(f32(Q(3, 1, -150, -1, 300)), q);          // just below 1.5 q
  EXPECT_EQ(f32(Q(874087 * 2 + 1, 1, -150)), 874088 * q);  // 874087.5 q (the reference's case)
  EXPECT_TRUE(std::signbit(f32(Q(-1, 1, -151))));     // -q/4 rounds to -0
  EXPECT_EQ(f32(Q(1, 1, 128)), std::numeric_limits<double>::infinity());
  EXPECT_EQ(f32(Q(-1, 1, 128)), -std::numeric_limits<double>::infinity());
  // Just below the overflow threshold (2 - 2^-24) 2^127: the largest finite binary32.
  EXPECT_EQ(f32(Q((1L << 25) - 1, 1, 103, -1, 0)), std::ldexp(static_cast<double>((1L << 24) - 1), 104));
}

TEST(RoundRationalProduct, RoundsTheExactProductOfAStatedFactor) {
  // a = 1.43 (143/100, a config's attention factor) times binary32 inputs: 1.43 x 11732500 =
  // 16777475 is a binary32 tie (to 16777476, even); 1.43 x 611250 2^-149 = 874087.5 2^-149 a
  // subnormal tie (to 874088 2^-149); a double input 11732500 - 2^-20 lands just below the tie.
  Mpq a;
  mpq_set_si(a.v, 143, 100);
  mpq_canonicalize(a.v);
  EXPECT_EQ(round_rational_product(a.v, 11732500.0, 24, -126, 127), 16777476.0);
  EXPECT_EQ(round_rational_product(a.v, -11732500.0, 24, -126, 127), -16777476.0);
  EXPECT_EQ(round_rational_product(a.v, 11732500.0 - 0x1p-20, 24, -126, 127), 16777474.0);
  EXPECT_EQ(round_rational_product(a.v, std::ldexp(611250.0, -149), 24, -126, 127), std::ldexp(874088.0, -149));
  EXPECT_EQ(round_rational_product(a.v, 11732500.0, 53, -1022, 1023), 16777475.0);  // exact in binary64
}

}  // namespace
}  // namespace ropecheck

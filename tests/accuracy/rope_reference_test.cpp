// The MPFR reference against values computed another way: the identity at position 0, a rotation
// by a known angle recomputed with Boost's mpfr_float at 300 bits (rounded to bf16 by MPFR's own
// emin/emax/subnormalize emulation, independent of round_to_binary), correct rounding at the
// subnormal and overflow boundaries worked out by hand, and an exact bf16 tie that must be
// reported as undecided rather than guessed.
#include "tests/support/small_float_bits.h"
#include "accuracy/rope_reference.h"
#include "io/printf_string.h"

#include <gtest/gtest.h>

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdio>

#include "numeric/small_floats.h"
#include "numeric/precision.h"
#include "numeric/scalar.h"
#include "random/counter_rng.h"

namespace ropecheck::accuracy {
namespace {

std::uint32_t bits(float x) { return std::bit_cast<std::uint32_t>(x); }

// A finite float from 32 random bits (the exponent's top bit cleared when they encode inf/NaN).
float finite_from_bits(std::uint64_t b) {
  auto u = static_cast<std::uint32_t>(b);
  if ((u & 0x7F800000u) == 0x7F800000u) u &= ~0x40000000u;
  return std::bit_cast<float>(u);
}

// bf16 by MPFR's documented IEEE emulation: precision 8, emin -132, emax 128, check_range and
// subnormalize. y must be a normal-range value whose exponent lies in [-132, 128].
std::uint16_t mpfr_emulated_bf16(const Real& y) {
  const mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
  mpfr_t r;
  mpfr_init2(r, 8);
  mpfr_set_emin(-132);
  mpfr_set_emax(128);
  int t = mpfr_set(r, y.backend().data(), MPFR_RNDN);
  t = mpfr_check_range(r, t, MPFR_RNDN);
  mpfr_subnormalize(r, t, MPFR_RNDN);
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
  const float f = mpfr_get_flt(r, MPFR_RNDN);  // exact: 8 bits, in float's range
  mpfr_clear(r);
  return static_cast<std::uint16_t>(bits(f) >> 16);
}

TEST(RopeReference, PositionZeroIsTheIdentity) {
  const kernel::RopePlan plan(Spectrum(16, "10000"), kernel::Layout::interleaved);
  RopeReference ref(plan);
  ref.set_position(0);
  const CounterRng rng(3, 0);
  for (std::uint64_t i = 0; i < 2000; ++i) {
    const float xa = finite_from_bits(rng.bits(2 * i)), xb = finite_from_bits(rng.bits(2 * i + 1));
    const ExactPair e = ref.rotate(static_cast<int>(i % 8), xa, xb);
    ASSERT_TRUE(e.a.decided_in(Dtype::f32) && e.b.decided_in(Dtype::f32)) << hex_float(xa) << " " << hex_float(xb);
    ASSERT_EQ(f32_of(e.a), xa) << hex_float(xa) << " " << hex_float(xb) << " got " << hex_float(f32_of(e.a));
    ASSERT_EQ(f32_of(e.b), xb) << hex_float(xa) << " " << hex_float(xb) << " got " << hex_float(f32_of(e.b));
    ASSERT_EQ(e.a.value, static_cast<double>(xa));
    if (e.a.decided_in(Dtype::bf16)) {
      ASSERT_EQ(bf16_value(bf16_of(e.a)), bf16_value(bf16_bits(xa))) << hex_float(xa);
    }
  }
}

// g = 1 (d = 2: the single pair turns one radian per token) at p = 710, where 710 is close to a
// multiple of 2 pi (710 - 113 * 2 pi = -6.0e-5, cos 710 = 1 - 1.8e-9). Recomputed with Boost's mpfr_float at 300 bits.
TEST(RopeReference, RotationBy710RadiansMatchesMpfrFloatAt300Bits) {
  const kernel::RopePlan plan(Spectrum(2, "10000"), kernel::Layout::interleaved);
  RopeReference ref(plan);
  ref.set_position(710);
  const ScopedPrecision scope(300);
  Real s, c;
  sin_cos(Real(710), s, c);
  const CounterRng rng(11, 0);
  for (std::uint64_t i = 0; i < 500; ++i) {
    // Moderate values (exponents in [-20, 20]) so bf16 emulation stays in its exponent range.
    const auto mant = static_cast<std::uint32_t>(rng.bits(i) & 0x807FFFFFu);
    const auto ea = static_cast<std::uint32_t>(107 + rng.bits(1000 + i) % 41), eb = static_cast<std::uint32_t>(107 + rng.bits(2000 + i) % 41);
    const float xa = std::bit_cast<float>(mant | (ea << 23));
    const float xb = std::bit_cast<float>((static_cast<std::uint32_t>(rng.bits(3000 + i)) & 0x807FFFFFu) | (eb << 23));
    const Real ya = Real(xa) * c - Real(xb) * s, yb = Real(xa) * s + Real(xb) * c;
    const ExactPair e = ref.rotate(0, xa, xb);
    const float wa = mpfr_get_flt(ya.backend().data(), MPFR_RNDN), wb = mpfr_get_flt(yb.backend().data(), MPFR_RNDN);
    ASSERT_TRUE(e.a.decided_in(Dtype::f32) && e.b.decided_in(Dtype::f32) && e.a.decided_in(Dtype::bf16) && e.b.decided_in(Dtype::bf16));
    EXPECT_EQ(bits(f32_of(e.a)), bits(wa)) << "x_a " << hex_float(xa) << " x_b " << hex_float(xb) << " got " << hex_float(f32_of(e.a)) << " want " << hex_float(wa);
    EXPECT_EQ(bits(f32_of(e.b)), bits(wb)) << "x_a " << hex_float(xa) << " x_b " << hex_float(xb) << " got " << hex_float(f32_of(e.b)) << " want " << hex_float(wb);
    EXPECT_EQ(bf16_of(e.a), mpfr_emulated_bf16(ya)) << "x_a " << hex_float(xa) << " x_b " << hex_float(xb);
    EXPECT_EQ(bf16_of(e.b), mpfr_emulated_bf16(yb)) << "x_a " << hex_float(xa) << " x_b " << hex_float(xb);
    EXPECT_EQ(e.a.value, ya.convert_to<double>());
  }
  // float32 of cos(710) is 1.0 (the Theorem 5.3 remark): the rotation of (1, 0).
  const ExactPair one = ref.rotate(0, 1.0f, 0.0f);
  EXPECT_EQ(f32_of(one.a), 1.0f);
  EXPECT_EQ(one.a.value, c.convert_to<double>());
  EXPECT_LT(one.a.value, 1.0 - 1e-9);
}

// A slow pair of a d = 128 spectrum at the largest position the kernel's goal covers: the angle
// p g_k ~ 2^40 needs the reference's exact formation of p * g.
TEST(RopeReference, LargePositionMatchesMpfrFloatAt300Bits) {
  const kernel::RopePlan plan(Spectrum(128, "10000"), kernel::Layout::half);
  RopeReference ref(plan);
  const std::int64_t p = (std::int64_t{1} << 40) - 1;
  ref.set_position(p);
  const ScopedPrecision scope(300);
  for (int k : {1, 5, 63}) {
    const Real g = pow(Real(10000), Real(-2 * k) / 128);
    Real s, c;
    sin_cos(Real(g * p), s, c);
    const float xa = 0.7f, xb = -1.3f;
    const ExactPair e = ref.rotate(k, xa, xb);
    const Real ya = Real(xa) * c - Real(xb) * s, yb = Real(xa) * s + Real(xb) * c;
    EXPECT_EQ(bits(f32_of(e.a)), bits(mpfr_get_flt(ya.backend().data(), MPFR_RNDN))) << "k=" << k;
    EXPECT_EQ(bits(f32_of(e.b)), bits(mpfr_get_flt(yb.backend().data(), MPFR_RNDN))) << "k=" << k;
    EXPECT_EQ(e.a.value, ya.convert_to<double>()) << "k=" << k;
    double cd = 0, sd = 0;
    ref.cos_sin_double(k, cd, sd);
    EXPECT_EQ(cd, c.convert_to<double>());
    EXPECT_EQ(sd, s.convert_to<double>());
  }
}

// Hand-worked subnormal cases with g = 1: cos 1 = 0.5403, sin 1 = 0.8415, cos 2 = -0.4161,
// sin 2 = 0.9093, cos 3 = -0.98999.
TEST(RopeReference, SubnormalRoundingByHand) {
  const kernel::RopePlan plan(Spectrum(2, "10000"), kernel::Layout::interleaved);
  RopeReference ref(plan);
  const float tiny = 0x1p-149f;
  ref.set_position(1);
  ExactPair e = ref.rotate(0, tiny, 0.0f);
  EXPECT_EQ(f32_of(e.a), tiny);  // 0.54 of the smallest subnormal: above the half, rounds up
  EXPECT_EQ(f32_of(e.b), tiny);  // 0.84
  e = ref.rotate(0, 3 * tiny, 0.0f);
  EXPECT_EQ(f32_of(e.a), 2 * tiny);  // 1.62 quanta
  EXPECT_EQ(f32_of(e.b), 3 * tiny);  // 2.52 quanta
  ref.set_position(2);
  e = ref.rotate(0, tiny, 0.0f);
  EXPECT_EQ(f32_of(e.a), 0.0f);  // -0.42 quanta: below the half, rounds to (negative) zero
  EXPECT_TRUE(std::signbit(f32_of(e.a)));
  EXPECT_EQ(f32_of(e.b), tiny);
  ref.set_position(3);
  e = ref.rotate(0, tiny, 0.0f);
  EXPECT_EQ(f32_of(e.a), -tiny);
  // bf16: the smallest bf16 subnormal is 2^-133 (a float subnormal: exact input).
  const float tiny16 = 0x1p-133f;
  ref.set_position(1);
  e = ref.rotate(0, tiny16, 0.0f);
  EXPECT_EQ(bf16_of(e.a), 0x0001);
  EXPECT_EQ(bf16_of(e.b), 0x0001);
  // 0.54 * 2^-133 as float is about 2^-133.9, far above float's subnormal quantum: f32 keeps it.
  EXPECT_NEAR(f32_of(e.a), 0.5403023f * tiny16, 1e-7 * tiny16);
  ref.set_position(2);
  e = ref.rotate(0, tiny16, 0.0f);
  EXPECT_EQ(bf16_of(e.a), 0x8000);  // -0.42 bf16 quanta: -0
  // The smallest normal times cos 1 lands in the subnormal range of both formats: 0.5403 * 2^-126
  // = 0.5403 * 2^7 bf16 quanta = 69.16 -> 69 (0x0045); in f32, 0.5403 * 2^23 quanta.
  ref.set_position(1);
  e = ref.rotate(0, 0x1p-126f, 0.0f);
  EXPECT_EQ(bf16_of(e.a), 0x0045);
  EXPECT_EQ(bits(f32_of(e.a)), static_cast<std::uint32_t>(std::lround(0.54030230586813972 * 0x1p23)));
}

// Overflow: (FLT_MAX, FLT_MAX) rotated by 1 radian has y_b = FLT_MAX (sin 1 + cos 1) = 1.38 FLT_MAX:
// infinity; y_a = FLT_MAX (cos 1 - sin 1) = -0.30 FLT_MAX: finite.
TEST(RopeReference, OverflowRoundsToInfinity) {
  const kernel::RopePlan plan(Spectrum(2, "10000"), kernel::Layout::interleaved);
  RopeReference ref(plan);
  ref.set_position(1);
  ExactPair e = ref.rotate(0, FLT_MAX, FLT_MAX);
  EXPECT_EQ(f32_of(e.b), INFINITY);
  EXPECT_EQ(bf16_of(e.b), 0x7F80);
  EXPECT_TRUE(std::isfinite(f32_of(e.a)));
  EXPECT_NEAR(f32_of(e.a) / FLT_MAX, 0.5403023 - 0.8414710, 1e-6);
  const float bf_max = bf16_value(0x7F7F);
  e = ref.rotate(0, -bf_max, -bf_max);
  EXPECT_EQ(bf16_of(e.b), 0xFF80);
}

// The rounding of MPFR values at the boundaries, by hand, and round_to_binary(24) == mpfr_get_flt.
TEST(RopeReference, RoundingBoundaries) {
  mpfr_t y;
  mpfr_init2(y, 200);
  auto set = [&](double a, double b) {  // y = a + b exactly
    mpfr_set_d(y, a, MPFR_RNDN);
    mpfr_add_d(y, y, b, MPFR_RNDN);
  };
  // Overflow threshold of f32: FLT_MAX + 2^103 is the tie between FLT_MAX (odd) and 2^128: rounds up.
  set(FLT_MAX, 0x1p103);
  EXPECT_EQ(round_to_f32(y), INFINITY);
  EXPECT_EQ(round_to_binary(y, 24, -126, 127), HUGE_VAL);
  set(FLT_MAX, 0x1p103 - 0x1p60);
  EXPECT_EQ(round_to_f32(y), FLT_MAX);
  EXPECT_EQ(round_to_binary(y, 24, -126, 127), FLT_MAX);
  // bf16: max (2 - 2^-7) 2^127, half ulp 2^119.
  const double bmax = bf16_value(0x7F7F);
  set(bmax, 0x1p119);
  EXPECT_EQ(round_bf16_bits(y), 0x7F80);
  set(bmax, 0x1p119 - 0x1p90);
  EXPECT_EQ(round_bf16_bits(y), 0x7F7F);
  // Subnormal ties: 2^-150 (half the smallest subnormal) rounds to even = 0; 3 * 2^-150 to 2^-148.
  set(0x1p-150, 0);
  EXPECT_EQ(bits(round_to_f32(y)), 0u);
  EXPECT_EQ(round_to_binary(y, 24, -126, 127), 0.0);
  set(0x1p-150, 0x1p-200);
  EXPECT_EQ(round_to_f32(y), 0x1p-149f);
  EXPECT_EQ(round_to_binary(y, 24, -126, 127), 0x1p-149);
  set(3 * 0x1p-150, 0);
  EXPECT_EQ(round_to_binary(y, 24, -126, 127), 0x1p-148);
  set(-0x1p-134, 0);
  EXPECT_EQ(round_bf16_bits(y), 0x8000);  // -half the smallest bf16 subnormal: -0
  set(-0x1p-134, -0x1p-190);
  EXPECT_EQ(round_bf16_bits(y), 0x8001);
  set(3 * 0x1p-134, 0);
  EXPECT_EQ(round_bf16_bits(y), 0x0002);
  // Below the smallest normal, just under the carry into it: 2^-126 - 2^-134 (bf16) is the tie
  // between 127 quanta (odd) and 128 quanta = 2^-126 (even, the smallest normal).
  set(0x1p-126, -0x1p-134);
  EXPECT_EQ(round_bf16_bits(y), 0x0080);
  // round_to_binary(24) against mpfr_get_flt on random 200-bit values over every binade.
  const CounterRng rng(5, 0);
  for (std::uint64_t i = 0; i < 20000; ++i) {
    const float f = finite_from_bits(rng.bits(i));
    const double extra = std::ldexp(rng.uniform_dyadic(100000 + i), std::ilogb(f == 0 ? 0x1p-149f : f) - 24);
    set(f, rng.bits(200000 + i) % 4 == 0 ? 0.5 * std::ldexp(1.0, std::ilogb(f == 0 ? 0x1p-149f : f) - 23) : extra);
    const float want = mpfr_get_flt(y, MPFR_RNDN);
    const double got = round_to_binary(y, 24, -126, 127);
    ASSERT_EQ(got, static_cast<double>(want)) << "f " << hex_float(f) << " want " << hex_float(want);
    ASSERT_EQ(std::signbit(got), std::signbit(want));
  }
  mpfr_clear(y);
}

// round_to_bf16 of an exact float is f32_to_bf16_rne (bf16.h's integer rounding): two independent
// implementations of RNE, checked on random bit patterns including subnormals and ties.
TEST(RopeReference, Bf16RoundingAgreesWithIntegerRne) {
  mpfr_t y;
  mpfr_init2(y, 24);
  const CounterRng rng(9, 0);
  for (std::uint64_t i = 0; i < 50000; ++i) {
    auto u = static_cast<std::uint32_t>(rng.bits(i));
    if (i % 3 == 0) u = (u & 0xFFFF0000u) | 0x8000u;  // an exact tie
    if (i % 5 == 0) u &= 0x807FFFFFu;                 // subnormal
    const float f = finite_from_bits(u);
    mpfr_set_flt(y, f, MPFR_RNDN);
    ASSERT_EQ(round_bf16_bits(y), bf16_bits(f)) << hex_float(f);
  }
  mpfr_clear(y);
}

// At position 0 the exact y_a of a float input is the input itself; 1 + 2^-8 is exactly the
// midpoint of two bf16 neighbours. The error bound is never zero, so no precision decides this tie:
// the reference must say so (and escalate to max_bits first), not guess.
TEST(RopeReference, ExactTieIsReportedUndecided) {
  const kernel::RopePlan plan(Spectrum(4, "10000"), kernel::Layout::interleaved);
  RopeReference ref(plan, 64, 256);
  ref.set_position(0);
  const ExactPair e = ref.rotate(1, 1.0f + 0x1p-8f, 0.5f);
  EXPECT_TRUE(e.a.decided_in(Dtype::f32));
  EXPECT_EQ(f32_of(e.a), 1.0f + 0x1p-8f);
  EXPECT_FALSE(e.a.decided_in(Dtype::bf16));
  EXPECT_TRUE(e.b.decided_in(Dtype::bf16));
  EXPECT_EQ(e.bits, 256u);
}

// At p = 0 the exact y_a is a x_a. With a stated decimal factor a = 1.43 and x_a = 611250 2^-149
// it is 874087.5 2^-149, a tie between two subnormals: an enclosure never decides it (and the
// reference's double bound, flushed to 0 at max_bits = 1024 before bounds were scaled by 2^P,
// once "decided" it on the odd side; found by KernelProperties.CorrectlyRoundedOnEveryPathFor
// GeneratedModels, seed 2). At angle 0 the reference rounds a x exactly in rational arithmetic:
// the even neighbour 874088; one grid step more, 874088.93 2^-149, rounds to 874089.
TEST(RopeReference, ExactTiesAtAngleZeroWithAStatedFactorAreDecidedExactly) {
  Scaling yarn;
  yarn.kind = Scaling::Kind::yarn;
  yarn.attention_factor = "1.43";
  const kernel::RopePlan plan(Spectrum(4, "10000").with_scaling(yarn), kernel::Layout::interleaved);
  RopeReference ref(plan);
  ref.set_position(0);
  const ExactPair tie = ref.rotate(0, std::ldexp(611250.0f, -149), 0.0f);
  EXPECT_TRUE(tie.a.decided_in(Dtype::f32));
  EXPECT_EQ(bits(f32_of(tie.a)), 874088u) << hex_float(f32_of(tie.a));
  EXPECT_EQ(tie.bits, 0u);  // decided in rational arithmetic
  const ExactPair above = ref.rotate(0, std::ldexp(611251.0f, -149), 0.0f);
  EXPECT_EQ(bits(f32_of(above.a)), 874089u) << hex_float(f32_of(above.a));
  // bfloat16: 1.43 x 150 = 214.5, a tie between 214 and 215: 214 (even).
  const ExactPair b = ref.rotate(1, 150.0f, -151.0f);
  EXPECT_EQ(bf16_value(bf16_of(b.a)), 214.0f);
  EXPECT_EQ(bf16_value(bf16_of(b.b)), -216.0f);
  // At p != 0 a rotating pair takes the enclosures (no tie is possible there).
  ref.set_position(5);
  EXPECT_GT(ref.rotate(0, 1.0f, 0.5f).bits, 0u);
}

TEST(RopeReference, CopiesAreIndependentAndAgree) {
  const kernel::RopePlan plan(Spectrum(8, "500000", Variant::p_rope, "0.5"), kernel::Layout::half);
  RopeReference a(plan);
  RopeReference b(a);
  a.set_position(123456789);
  b.set_position(987);
  RopeReference c(a);  // copies the position too
  const ExactPair ea = a.rotate(1, 1.5f, -2.25f), ec = c.rotate(1, 1.5f, -2.25f);
  EXPECT_EQ(bits(f32_of(ea.a)), bits(f32_of(ec.a)));
  EXPECT_EQ(b.position(), 987);
  EXPECT_THROW(a.rotate(3, 1.0f, 1.0f), std::invalid_argument);  // an identity pair of p-rope 0.5
  EXPECT_THROW(a.rotate(0, INFINITY, 1.0f), std::invalid_argument);
}

}  // namespace
}  // namespace ropecheck::accuracy

// The accurate path's double-double level (kernel/detail/double_double_level.h) against an exact
// reference computed here: cos and sin of the same angle and the product at 640 bits, rounded once
// (numeric/round_to_binary.h). A decided output must be that rounding (soundness); outputs of
// ordinary size and near-cancellation outputs must be decided (the level is useful); an output
// within 2^-120 of a midpoint is below the level's error bound and must be left undecided (the
// bound is not too small). Every failure prints the operands in hex.
#include "kernel/detail/double_double_level.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <bit>
#include <string>

#include "numeric/mp_handles.h"
#include "numeric/round_to_binary.h"
#include "random/counter_rng.h"
#include "tests/support/random_floats.h"
#include "tests/support/show.h"

namespace ropecheck::kernel::detail {
namespace {

constexpr mpfr_prec_t kBits = 640;
constexpr std::uint64_t kSeed = 20261127;

DoubleDouble split(mpfr_srcptr v) {
  Mpfr rest(kBits);
  DoubleDouble d;
  d.hi = mpfr_get_d(v, MPFR_RNDN);
  mpfr_sub_d(rest.v, v, d.hi, MPFR_RNDN);
  d.lo = mpfr_get_d(rest.v, MPFR_RNDN);
  return d;
}

// One case: angle t (radians, a double), factor a = a.hi + a.lo exactly, inputs x_a, x_b.
struct Case {
  double t = 0;
  DoubleDouble a{1, 0};
  double xa = 0, xb = 0;
  bool second = false;
};

// The exact component at 640 bits (cos, sin of t at 640 bits: an error of 2^-640, far below any
// distance the tests use), and the angle as the level receives it (delta = 2^-105 covers the split).
struct Exact {
  Mpfr y{kBits};
  DoubleDoubleAngle angle;
  explicit Exact(const Case& c) {
    Mpfr tv(kBits), cv(kBits), sv(kBits), u(kBits), v(kBits), a(kBits);
    mpfr_set_d(tv.v, c.t, MPFR_RNDN);
    mpfr_sin_cos(sv.v, cv.v, tv.v, MPFR_RNDN);
    angle.c = split(cv.v);
    angle.s = split(sv.v);
    angle.delta = 0x1p-105;
    mpfr_mul_d(u.v, c.second ? sv.v : cv.v, c.xa, MPFR_RNDN);
    mpfr_mul_d(v.v, c.second ? cv.v : sv.v, c.xb, MPFR_RNDN);
    if (c.second) mpfr_add(u.v, u.v, v.v, MPFR_RNDN);
    else mpfr_sub(u.v, u.v, v.v, MPFR_RNDN);
    mpfr_set_d(a.v, c.a.hi, MPFR_RNDN);
    mpfr_add_d(a.v, a.v, c.a.lo, MPFR_RNDN);
    mpfr_mul(y.v, u.v, a.v, MPFR_RNDN);
  }
};

std::string operands(const Case& c, int precision) {
  char buf[300];
  std::snprintf(buf, sizeof buf, "p=%d t=%a a=%a+%a x_a=%a x_b=%a %s", precision, c.t, c.a.hi, c.a.lo, c.xa, c.xb,
                c.second ? "y_b" : "y_a");
  return buf;
}

// Bit i of a mask: kernel dtype kKernelDtypes[i].
int bit(Dtype f) { return 1 << kernel_dtype_index(f); }

// Decides c in every kernel dtype: returns which were decided (bit(f)); every decided value must be
// the exact value's rounding. *in_range (optional): the dtypes whose normal range holds the exact
// value's rounding, the only ones the level may decide (double_double_level.h).
int check(const Case& c, int* in_range = nullptr) {
  const Exact exact(c);
  int decided = 0;
  if (in_range) *in_range = 0;
  for (Dtype f : kKernelDtypes) {
    const double ref = round_to_dtype(exact.y.v, f);
    const DtypeInfo& info = dtype_info(f);
    const double largest = std::ldexp(2.0 - std::ldexp(1.0, 1 - info.precision), info.emax);
    if (in_range && std::fabs(ref) >= std::ldexp(1.0, info.emin_normal) && std::fabs(ref) <= largest) *in_range |= bit(f);
    double got = 0;
    if (!round_double_double(f, exact.angle, c.a, c.xa, c.xb, c.second, &got)) continue;
    decided |= bit(f);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(got), std::bit_cast<std::uint64_t>(ref))
        << operands(c, info.precision) << " ref=" << show(ref) << " got=" << show(got);
  }
  return decided;
}

TEST(DoubleDoubleLevel, DecidesOrdinaryOutputsCorrectly) {
  const CounterRng rng(kSeed, 1);
  int decided = 0, total = 0;
  for (std::uint64_t i = 0; i < 4000; ++i) {
    Case c;
    c.t = static_cast<double>(rng.bits(4 * i) >> 11) * 0x1p-53 * 12.0 - 6.0;
    c.a = {1.0 + static_cast<double>(rng.bits(4 * i + 1) >> 11) * 0x1p-53, 0.0};
    c.xa = moderate_float(rng, 4 * i + 2);
    c.xb = moderate_float(rng, 4 * i + 3);
    c.second = (i & 1) != 0;
    int in_range = 0;
    decided += std::popcount(static_cast<unsigned>(check(c, &in_range)));
    total += std::popcount(static_cast<unsigned>(in_range));
  }
  std::printf("[ ordinary ] %d of %d in-range outputs decided at double-double\n", decided, total);
  EXPECT_GE(total, 11000);  // nearly all of the 3 x 4000 are in every format's normal range
  // Undecided needs the exact value within a S 2^-99 of a midpoint: about 2^-75 of outputs.
  EXPECT_EQ(decided, total);
}

TEST(DoubleDoubleLevel, DecidesNearCancellationOutputsCorrectly) {
  // x_a = RN32(sin t), x_b = RN32(cos t): y_a = x_a cos t - x_b sin t cancels to about 2^-25 of S;
  // scaled pairs (m x_a, m x_b) with m up to 2^20 keep the cancellation.
  const CounterRng rng(kSeed, 2);
  int decided = 0, total = 0;
  for (std::uint64_t i = 0; i < 2000; ++i) {
    Case c;
    c.t = static_cast<double>(rng.bits(2 * i) >> 11) * 0x1p-53 * 6.0 + 0.01;
    const double m = std::ldexp(1.0, static_cast<int>(rng.bits(2 * i + 1) % 20));
    c.xa = static_cast<float>(m * std::sin(c.t));
    c.xb = static_cast<float>(m * std::cos(c.t));
    c.second = false;
    int in_range = 0;
    decided += std::popcount(static_cast<unsigned>(check(c, &in_range)));
    total += std::popcount(static_cast<unsigned>(in_range));
  }
  std::printf("[ cancellation ] %d of %d in-range outputs decided at double-double\n", decided, total);
  EXPECT_EQ(decided, total);
}

// The factor that puts the exact component at m (1 + sign 2^-d), m a midpoint of the format next to
// the component's value at factor 1: a = m (1 + sign 2^-d) / u rounded to a double-double, and the
// case uses that double-double as its exact factor.
Case near_midpoint(const CounterRng& rng, std::uint64_t i, Dtype f, int d, int sign) {
  const int precision = dtype_info(f).precision;
  Case c;
  c.t = static_cast<double>(rng.bits(3 * i) >> 11) * 0x1p-53 * 6.0 - 3.0;
  c.xa = moderate_float(rng, 3 * i + 1);
  c.xb = moderate_float(rng, 3 * i + 2);
  const Exact one(c);
  const double r = round_to_dtype(one.y.v, f);
  const double spacing = std::ldexp(1.0, std::ilogb(r) - (precision - 1));
  // target = m (1 + sign 2^-d) exactly at 640 bits, m = r + spacing / 2 (a midpoint, exact).
  Mpfr m(kBits), target(kBits), a(kBits);
  mpfr_set_d(m.v, r + (r > 0 ? spacing : -spacing) / 2, MPFR_RNDN);
  mpfr_mul_2si(target.v, m.v, -d, MPFR_RNDN);
  if (sign > 0) mpfr_add(target.v, m.v, target.v, MPFR_RNDN);
  else mpfr_sub(target.v, m.v, target.v, MPFR_RNDN);
  mpfr_div(a.v, target.v, one.y.v, MPFR_RNDN);
  c.a = split(a.v);
  return c;
}

TEST(DoubleDoubleLevel, DecidesNearAMidpointOnlyWhereItsBoundAllows) {
  const CounterRng rng(kSeed, 3);
  int decided60 = 0, decided120 = 0, cases = 0;
  for (std::uint64_t i = 0; i < 200; ++i)
    for (Dtype f : kKernelDtypes)
      for (int sign : {1, -1}) {
        ++cases;
        // 2^-60 of the output from a midpoint: far above a S 2^-99; decided, correctly.
        Case c = near_midpoint(rng, 4 * i, f, 60, sign);
        decided60 += (check(c) & bit(f)) != 0 ? 1 : 0;
        // 2^-120: below the bound, so the level must not decide it (at this precision; the other
        // format's precision may decide it, correctly: its midpoints are elsewhere).
        c = near_midpoint(rng, 4 * i + 2, f, 120, sign);
        const Exact exact(c);
        double got = 0;
        const bool here = round_double_double(f, exact.angle, c.a, c.xa, c.xb, c.second, &got);
        EXPECT_FALSE(here) << "decided 2^-120 from a midpoint: " << operands(c, dtype_info(f).precision) << " got=" << show(got);
        decided120 += here ? 1 : 0;
        check(c);  // whatever is decided is right
      }
  std::printf("[ midpoints ] 2^-60: %d of %d decided; 2^-120: %d of %d decided\n", decided60, cases, decided120, cases);
  EXPECT_EQ(decided60, cases);
}

TEST(DoubleDoubleLevel, LeavesSubnormalAndOverflowingOutputsToTheNextLevel) {
  Case c;
  c.t = 0.5;
  double got = 0;
  // Outputs below 2^-126: undecided (the format's spacing changes there).
  c.xa = 0x1p-130;
  c.xb = 0x1p-131;
  const Exact tiny(c);
  EXPECT_FALSE(round_double_double(Dtype::f32, tiny.angle, c.a, c.xa, c.xb, false, &got)) << operands(c, 24);
  // Outputs that round to infinity: undecided; just below the largest finite value: decided right.
  c.xa = 0x1.fep127;  // the largest bfloat16, a binary32 value too
  c.xb = 0;
  c.a = {1.5, 0};
  const Exact huge(c);
  EXPECT_FALSE(round_double_double(Dtype::f32, huge.angle, c.a, c.xa, c.xb, false, &got)) << operands(c, 24);
  c.a = {1.0, 0};
  c.t = 1e-30;  // cos t = 1 - 5e-61: rounds to x_a itself
  EXPECT_EQ(check(c), 3) << operands(c, 24);
}

}  // namespace
}  // namespace ropecheck::kernel::detail

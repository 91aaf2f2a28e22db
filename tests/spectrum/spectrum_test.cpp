#include "spectrum/spectrum.h"

#include <gtest/gtest.h>
#include <mpfr.h>

#include "io/input_error.h"
#include "numeric/decimal.h"
#include "numeric/precision.h"
#include "spectrum/frequencies.h"

namespace ropecheck {
namespace {

// theta^(-num/den) at `bits` with MPFR directly (an independent path from frequencies<T>).
Real reference_power(const char* theta, long num, long den, mpfr_prec_t bits) {
  Real t, e, out;
  for (Real* v : {&t, &e, &out}) mpfr_set_prec(v->backend().data(), bits);
  mpfr_set_str(t.backend().data(), theta, 10, MPFR_RNDN);
  mpfr_set_si(e.backend().data(), -num, MPFR_RNDN);
  mpfr_div_si(e.backend().data(), e.backend().data(), den, MPFR_RNDN);
  mpfr_pow(out.backend().data(), t.backend().data(), e.backend().data(), MPFR_RNDN);
  return out;
}

TEST(Spectrum, FastestIsExactlyOneAndSlowestMatchesTo60Digits) {
  ScopedPrecision p(256);
  struct Case { int d; const char* theta; };
  for (const Case c : {Case{256, "10000"}, Case{128, "500000"}, Case{96, "10000"}, Case{6, "1.5"}}) {
    const Spectrum s(c.d, c.theta);
    const auto g = frequencies<Real>(s);
    const auto gi = frequencies<Interval>(s);
    EXPECT_EQ(g[0], 1) << "d=" << c.d;
    EXPECT_EQ(lower_of(gi[0]), 1);
    EXPECT_EQ(upper_of(gi[0]), 1);
    // g_{d/2} = theta^(-(d-2)/d); the 400-bit reference is exact to 120 digits.
    const Real ref = reference_power(c.theta, c.d - 2, c.d, 400);
    const Real rel = abs(Real(g.back() - ref)) / ref;
    EXPECT_LT(rel, Real("1e-60")) << "d=" << c.d << " theta=" << c.theta << " g=" << to_decimal(g.back(), 70)
                                  << " ref=" << to_decimal(ref, 70);
    EXPECT_TRUE(contains(gi.back(), ref)) << "d=" << c.d;
  }
}

TEST(Spectrum, PRopeKeepsTheHighestFrequenciesWithTheirRoPEValues) {
  ScopedPrecision p(128);
  const auto rope = frequencies<Real>(Spectrum(256, "10000"));
  const Spectrum p75(256, "10000", Variant::p_rope, "0.75");
  EXPECT_EQ(p75.rotated_pairs(), 96);
  const auto g = frequencies<Real>(p75);
  for (int k = 0; k < 128; ++k) {
    if (k < 96) EXPECT_EQ(g[k], rope[k]) << "k=" << k;
    else EXPECT_EQ(g[k], 0) << "k=" << k;
  }
  EXPECT_EQ(Spectrum(256, "10000", Variant::p_rope, "0").rotated_pairs(), 0);
  EXPECT_EQ(Spectrum(256, "10000", Variant::p_rope, "1").rotated_pairs(), 128);
  EXPECT_EQ(Spectrum(256, "10000", Variant::p_rope, "0.25").rotated_pairs(), 32);
  // The paper's formula is Python float arithmetic: int(0.58 * 100 // 2) = 28, because
  // fl(0.58 * 100) = 57.99999999999999; the exact product 58 would give 29.
  EXPECT_EQ(Spectrum(100, "10000", Variant::p_rope, "0.58").rotated_pairs(), 28);
}

TEST(Spectrum, ReversedKeepsTheLowestFrequencies) {
  ScopedPrecision p(128);
  const auto rope = frequencies<Real>(Spectrum(256, "10000"));
  const Spectrum rev(256, "10000", Variant::reversed, "0.75");
  EXPECT_EQ(rev.rotated_pairs(), 96);
  const auto g = frequencies<Real>(rev);
  for (int k = 0; k < 128; ++k) {
    if (k >= 32) EXPECT_EQ(g[k], rope[k]) << "k=" << k;
    else EXPECT_EQ(g[k], 0) << "k=" << k;
  }
}

TEST(Spectrum, PartialRecomputesFrequenciesOverTheRotatedDims) {
  ScopedPrecision p(256);
  const Spectrum part(256, "10000", Variant::partial, "0.25");  // 32 pairs, 64 rotated dims
  EXPECT_EQ(part.rotated_pairs(), 32);
  const auto g = frequencies<Interval>(part);
  EXPECT_EQ(lower_of(g[0]), 1);
  EXPECT_TRUE(contains(g[31], reference_power("10000", 62, 64, 400)));  // theta^(-2*31/64)
  EXPECT_TRUE(contains(g[1], reference_power("10000", 2, 64, 400)));
  EXPECT_EQ(lower_of(g[32]), 0);
  EXPECT_EQ(upper_of(g[127]), 0);
}

TEST(Spectrum, NopeHasNoRotatingPair) {
  const Spectrum s(8, "10000", Variant::nope);
  EXPECT_EQ(s.rotated_pairs(), 0);
  for (double g : frequencies<double>(s)) EXPECT_EQ(g, 0.0);
}

TEST(Spectrum, FloatAndDoubleAgreeWithMPFRToTheirPrecision) {
  ScopedPrecision p(128);
  const Spectrum s(128, "500000");
  const auto gr = frequencies<Real>(s);
  const auto gd = frequencies<double>(s);
  const auto gf = frequencies<float>(s);
  for (size_t k = 0; k < gr.size(); ++k) {
    // pow is accurate to a few ulps in glibc; 8 ulps of each type is a loose but meaningful bound.
    EXPECT_LT(abs(Real(gd[k]) - gr[k]) / gr[k], Real(8 * 0x1p-53)) << "k=" << k;
    EXPECT_LT(abs(Real(gf[k]) - gr[k]) / gr[k], Real(8 * 0x1p-24)) << "k=" << k;
  }
}

TEST(Spectrum, BadInputNamesTheParameterAndTheRange) {
  // The library names its own parameters (io/input_error.h); the CLI renders them as flags
  // (tests/cli/cli_test.cpp checks --dim, --theta, --p-rope, --reversed, --partial).
  auto expect_input_error = [](auto make, const std::string& flag) {
    try {
      make();
      ADD_FAILURE() << "no error for " << flag;
    } catch (const InputError& e) {
      EXPECT_EQ(e.input(), flag) << e.what();
      EXPECT_NE(std::string(e.what()).find(flag), std::string::npos);
    }
  };
  expect_input_error([] { Spectrum(7, "10000"); }, "dim");
  expect_input_error([] { Spectrum(0, "10000"); }, "dim");
  expect_input_error([] { Spectrum(8, "1"); }, "theta");
  expect_input_error([] { Spectrum(8, "0.5"); }, "theta");
  expect_input_error([] { Spectrum(8, "abc"); }, "theta");
  expect_input_error([] { Spectrum(8, "1e400"); }, "theta");
  expect_input_error([] { Spectrum(8, "10000", Variant::p_rope, "1.5"); }, "fraction");
  expect_input_error([] { Spectrum(8, "10000", Variant::reversed, "-0.1"); }, "fraction");
  expect_input_error([] { Spectrum(8, "10000", Variant::partial, "x"); }, "fraction");
  // theta just above 1 is > 1 as a decimal even though it rounds to 1 in binary64.
  EXPECT_NO_THROW(Spectrum(8, "1.00000000000000000001"));
}

TEST(Spectrum, ParseVariantInvertsVariantName) {
  for (Variant v : {Variant::rope, Variant::nope, Variant::p_rope, Variant::reversed, Variant::partial})
    EXPECT_EQ(parse_variant(variant_name(v)), v) << variant_name(v);
  for (const char* bad : {"", "RoPE", "p_rope", "p-rope ", "alibi"}) {
    try {
      parse_variant(bad, "head.spectrum.variant");
      ADD_FAILURE() << "no error for '" << bad << "'";
    } catch (const InputError& e) {
      EXPECT_EQ(e.input(), "head.spectrum.variant") << e.what();
      EXPECT_NE(std::string(e.what()).find("p-rope"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace ropecheck

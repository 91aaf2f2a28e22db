#include "spectrum/scaling.h"

#include <gtest/gtest.h>

#include <cmath>

#include "io/input_error.h"
#include "numeric/precision.h"
#include "spectrum/frequencies.h"

namespace ropecheck {
namespace {

// transformers' _compute_llama3_parameters in binary64, written out independently.
double hf_llama3(double inv_freq) {
  const double factor = 8, low = 1, high = 4, old_ctx = 8192;
  const double low_w = old_ctx / low, high_w = old_ctx / high;
  const double wavelen = 2 * M_PI / inv_freq;
  if (wavelen < high_w) return inv_freq;
  if (wavelen > low_w) return inv_freq / factor;
  const double smooth = (old_ctx / wavelen - low) / (high - low);
  return (1 - smooth) * inv_freq / factor + smooth * inv_freq;
}

TEST(Scaling, Llama3MatchesTheShippedRuleOnEveryPair) {
  ScopedPrecision p(256);
  const Spectrum scaled(128, "500000", Variant::rope, "1", Scaling::llama3_1());
  const Spectrum plain(128, "500000");
  const auto gi = frequencies<Interval>(scaled);
  const auto g0 = frequencies<double>(plain);
  int kept = 0, divided = 0, smoothed = 0;
  for (size_t k = 0; k < gi.size(); ++k) {
    const double expected = hf_llama3(g0[k]);
    // binary64 reference: a few roundings of relative size 2^-53 each; 1e-13 leaves room for ~50.
    EXPECT_NEAR(to_double(gi[k]) / expected, 1.0, 1e-13) << "k=" << k;
    if (expected == g0[k]) ++kept;
    else if (expected == g0[k] / 8) ++divided;
    else ++smoothed;
    EXPECT_LT(upper_of(gi[k]) - lower_of(gi[k]), Real("1e-70"));
  }
  // Wavelength < 2048 for the fast pairs, > 8192 for the slow ones, a few in between.
  EXPECT_GT(kept, 20);
  EXPECT_GT(divided, 20);
  EXPECT_GT(smoothed, 0);
}

TEST(Scaling, LinearDividesEveryFrequency) {
  ScopedPrecision p(128);
  const auto g = frequencies<Real>(Spectrum(16, "10000", Variant::rope, "1", Scaling::linear("4")));
  const auto g0 = frequencies<Real>(Spectrum(16, "10000"));
  for (size_t k = 0; k < g.size(); ++k) EXPECT_EQ(g[k], g0[k] / 4);
}

TEST(Scaling, IntervalAtAThresholdEnclosesBothBranches) {
  ScopedPrecision p(128);
  // g with wavelength exactly 8192 (s = 0): the branch is undecided but the rule is continuous.
  const Interval g = 2 * pi_value<Interval>() / 8192;
  const Interval out = ScalingRule<Interval>(Scaling::llama3_1(), from_decimal<Interval>("500000"), 128)(g, 0);
  const Real expected = midpoint(g) / 8;
  EXPECT_TRUE(contains(out, expected));
  EXPECT_LT(upper_of(out) - lower_of(out), Real("1e-30"));
}

TEST(Scaling, ParseAcceptsTheFourFormsOnly) {
  EXPECT_EQ(parse_scaling("none").kind, Scaling::Kind::none);
  EXPECT_EQ(parse_scaling("llama3").kind, Scaling::Kind::llama3);
  EXPECT_EQ(parse_scaling("linear:2.5").factor, "2.5");
  EXPECT_THROW(parse_scaling("linear:0"), InputError);
  EXPECT_THROW(parse_scaling("linear:"), InputError);
  EXPECT_THROW(parse_scaling("yarn"), InputError);
  EXPECT_EQ(parse_scaling("llama3:32:1:4:8192").factor, "32");
}

}  // namespace
}  // namespace ropecheck

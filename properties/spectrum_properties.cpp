// Properties of spectra over generated dimensions, thetas, variants, fractions and scalings.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <set>

#include "generators.h"
#include "numeric/precision.h"
#include "spectrum/frequencies.h"
#include "spectrum/scaling_registry.h"
#include "spectrum/spectrum_json.h"

namespace ropecheck {
namespace {

// A new scaling kind (spectrum/scaling_registry.h) must be drawn by model_scalings, or no property
// sees it. At the nominal size (inRange's range scales with size) each of the 6 cases has
// probability 1/6: 600 draws miss one with probability 6 (5/6)^600 < 1e-46, and the seed is fixed,
// so the outcome is the same every run.
TEST(SpectrumGenerators, ModelScalingsDrawEveryRegisteredKind) {
  std::set<Scaling::Kind> drawn;
  const rc::Gen<Scaling> scalings = gen::model_scalings(4, true);
  rc::Random random(20261129);
  for (int draw = 0; draw < 600; ++draw) drawn.insert(scalings(random.split(), rc::kNominalSize).value().kind);
  for (const ScalingRuleInfo* rule : scaling_rules()) EXPECT_TRUE(drawn.count(rule->value)) << "model_scalings never draws " << rule->name;
}

RC_GTEST_PROP(SpectrumProperties, KeptCountIsThePapersFloatFormula, ()) {
  const int d = *gen::dimensions(512);
  const std::string f = *gen::fractions();
  const Variant v = *rc::gen::element(Variant::p_rope, Variant::reversed, Variant::partial);
  const Spectrum s(d, "10000", v, f);
  // Python: int(P * head_dim // 2), binary64.
  const int expected = static_cast<int>(std::floor(std::stod(f) * d / 2));
  RC_ASSERT(s.rotated_pairs() == expected);
  int rotated = 0;
  for (int k = 0; k < s.pairs(); ++k) rotated += s.rotated(k) ? 1 : 0;
  RC_ASSERT(rotated == expected);
  // p-rope and partial keep the first pairs (highest frequencies), reversed the last.
  if (expected > 0) RC_ASSERT(s.rotated(v == Variant::reversed ? s.pairs() - 1 : 0));
}

RC_GTEST_PROP(SpectrumProperties, RotatedFrequenciesDecreaseWithinZeroOne, ()) {
  ScopedPrecision p(256);
  const Spectrum s = *gen::spectra(64);
  const auto g = frequencies<Interval>(s);
  const Real top = s.scaling().kind == Scaling::Kind::linear ? Real(1) / Real(s.scaling().factor) : Real(1);
  int previous = -1;
  for (int k = 0; k < s.pairs(); ++k) {
    if (!s.rotated(k)) {
      RC_ASSERT(lower_of(g[k]) == 0 && upper_of(g[k]) == 0);
      continue;
    }
    RC_ASSERT(lower_of(g[k]) > 0);
    RC_ASSERT(upper_of(g[k]) <= top);
    // Strictly decreasing in exact arithmetic: never certainly increasing, and certainly
    // decreasing where no scaling threshold can blur it.
    if (previous >= 0) {
      RC_ASSERT(!certainly_less(g[previous], g[k]));
      if (s.scaling().kind != Scaling::Kind::llama3) RC_ASSERT(certainly_less(g[k], g[previous]));
    }
    previous = k;
  }
}

RC_GTEST_PROP(SpectrumProperties, PRopeAndReversedKeepRoPEValues, ()) {
  ScopedPrecision p(128);
  const int d = *gen::dimensions(128);
  const std::string theta = *gen::thetas();
  const std::string f = *gen::fractions();
  const auto rope = frequencies<Interval>(Spectrum(d, theta));
  for (Variant v : {Variant::p_rope, Variant::reversed}) {
    const Spectrum s(d, theta, v, f);
    const auto g = frequencies<Interval>(s);
    for (int k = 0; k < s.pairs(); ++k)
      if (s.rotated(k)) RC_ASSERT(overlaps(g[k], rope[k]));
  }
}

// The one JSON form of a spectrum (spectrum/spectrum_json.h) names it back, and the writer is
// canonical: what it wrote, read and written again, is the same JSON.
RC_GTEST_PROP(SpectrumProperties, JsonRoundTrips, ()) {
  const Spectrum s = *gen::spectra(256);
  const nlohmann::json j = spectrum_to_json(s);
  const Spectrum back = spectrum_from_json(nlohmann::json::parse(j.dump()), "generated");
  RC_ASSERT(back.describe() == s.describe());
  RC_ASSERT(back.rotated_pairs() == s.rotated_pairs());
  RC_ASSERT(spectrum_to_json(back) == j);
}

}  // namespace
}  // namespace ropecheck

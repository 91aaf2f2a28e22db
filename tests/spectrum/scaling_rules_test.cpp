// The frequency rules of scaling.h against two independent routes: values derived by hand at 120
// digits (Python's decimal module: g = exp(e ln theta), corr = d ln(C/(2 pi beta))/(2 ln theta),
// computed once and pasted), which every Interval must enclose; and a binary64
// transcription of transformers' formulas, which every double must match within a derived bound.
#include "spectrum/scaling_rules.h"

#include <gtest/gtest.h>

#include <cmath>

#include "io/input_error.h"
#include "numeric/precision.h"
#include "spectrum/attention_factor.h"
#include "spectrum/frequencies.h"

namespace ropecheck {
namespace {

std::string show(const Interval& x) { return "[" + lower_of(x).str(25) + ", " + upper_of(x).str(25) + "]"; }

// The hand values carry 80 significant digits (computed at 120 digits, so within 1e-79 relative of
// the exact number); the enclosure, at 256 bits (~77 digits), is wider than that error. The check: the enclosure widened by the
// reference's own error contains the reference, and is itself narrower than 1e-60.
void expect_encloses(const Interval& x, const char* reference, const char* what) {
  const Real ref(reference);
  const Real slack = abs(ref) * Real("1e-79");
  EXPECT_TRUE(lower_of(x) - slack <= ref && ref <= upper_of(x) + slack) << what << ": ref=" << reference << " got=" << show(x);
  EXPECT_LT(upper_of(x) - lower_of(x), abs(ref) * Real("1e-60")) << what << " got=" << show(x);
}

Scaling gpt_oss_yarn() {
  Scaling s;
  s.kind = Scaling::Kind::yarn;
  s.factor = "32";
  s.original_context = 4096;
  s.truncate = false;
  return s;
}

TEST(ScalingRules, YarnWithoutTruncationMatchesHandValues) {
  ScopedPrecision p(256);
  // gpt-oss: theta 150000, d 64, factor 32, C 4096, beta 32/1, truncate false. The note gives the
  // correction range 8.093 and 17.398 (vllm#27722); pair 12 sits inside the ramp.
  const Spectrum s(64, "150000", Variant::rope, "1", gpt_oss_yarn());
  const auto g = frequencies<Interval>(s);
  expect_encloses(g[12], "0.0067949594897322178331199237349080047023403745658430136354064966150811060165881501", "yarn g_12");
  // Below the range: kept (pair 8 < 8.09); above: divided by the factor (pair 18 > 17.4).
  const auto g0 = frequencies<Interval>(Spectrum(64, "150000"));
  EXPECT_TRUE(contains(g[8], midpoint(g0[8])));
  EXPECT_TRUE(contains(g[18], Real(midpoint(g0[18]) / 32)));
  expect_encloses(attention_factor<Interval>(s.scaling()), "1.3465735902799726547086160607290882840377500671801276270603400047466968109848474",
                  "0.1 ln 32 + 1");
}

// transformers' _compute_yarn_parameters in binary64, written out independently.
std::vector<double> hf_yarn(double base, int dim, double factor, double context, double beta_fast, double beta_slow, bool truncate) {
  auto corr = [&](double r) { return dim * std::log(context / (r * 2 * M_PI)) / (2 * std::log(base)); };
  double low = corr(beta_fast), high = corr(beta_slow);
  if (truncate) low = std::floor(low), high = std::ceil(high);
  low = std::max(low, 0.0);
  high = std::min(high, dim - 1.0);
  if (low == high) high += 0.001;
  std::vector<double> out;
  for (int i = 0; i < dim / 2; ++i) {
    const double pos = std::pow(base, 2.0 * i / dim);
    const double ramp = std::clamp((i - low) / (high - low), 0.0, 1.0);
    out.push_back(1 / (factor * pos) * ramp + 1 / pos * (1 - ramp));
  }
  return out;
}

TEST(ScalingRules, YarnMatchesTransformersInBinary64) {
  ScopedPrecision p(200);
  for (const bool truncate : {true, false}) {
    for (const auto& [theta, dim, factor, context] : std::vector<std::tuple<const char*, int, const char*, long long>>{
             {"1000000", 128, "4", 32768}, {"10000", 64, "40", 4096}, {"150000", 64, "32", 4096}, {"500000", 128, "8", 8192}}) {
      Scaling s;
      s.kind = Scaling::Kind::yarn;
      s.factor = factor;
      s.original_context = context;
      s.truncate = truncate;
      const Spectrum sp(dim, theta, Variant::rope, "1", s);
      const auto gi = frequencies<Interval>(sp);
      const auto gd = frequencies<double>(sp);
      const auto hf = hf_yarn(std::stod(theta), dim, std::stod(factor), double(context), 32, 1, truncate);
      for (int k = 0; k < dim / 2; ++k) {
        // binary64: pow, log and a handful of operations, each within 2^-53 relatively; the ramp's
        // error is amplified by (g - g/f)/(high - low) < g, so 1e-13 relative leaves a wide margin.
        EXPECT_NEAR(to_double(gi[k]) / hf[k], 1.0, 1e-13) << "theta=" << theta << " k=" << k << " truncate=" << truncate;
        EXPECT_NEAR(gd[k] / hf[k], 1.0, 1e-13) << "theta=" << theta << " k=" << k;
      }
    }
  }
}

TEST(ScalingRules, DynamicChangesTheBaseAtTheSequenceLength) {
  ScopedPrecision p(256);
  Scaling s;
  s.kind = Scaling::Kind::dynamic;
  s.factor = "2";
  s.max_position = 4096;
  s.sequence_length = 8192;
  const ScalingRule<Interval> rule(s, from_decimal<Interval>("10000"), 128);
  // theta' = 1e4 * (2*8192/4096 - 1)^(128/126)
  expect_encloses(rule.theta(), "30527.736748806698314810562497090960087914482435570988105382072266552167735921014", "theta'");
  const auto g = frequencies<Interval>(Spectrum(128, "10000", Variant::rope, "1", s));
  expect_encloses(g[63], "0.000038492732822981939322216096243183609385564934715987037665914228290597640232668271", "dynamic g_63");
  // At or below max_position nothing changes (transformers: S = max(seq_len, M)).
  s.sequence_length = 100;
  const auto unchanged = frequencies<Real>(Spectrum(128, "10000", Variant::rope, "1", s));
  const auto plain = frequencies<Real>(Spectrum(128, "10000"));
  for (size_t k = 0; k < plain.size(); ++k) EXPECT_EQ(unchanged[k], plain[k]) << "k=" << k;
  // vLLM's static rule: S = M * factor, the base f^2 - f + 1 = 3: transformers' base at S = 8192.
  s.vllm_static = true;
  const auto vllm = frequencies<Interval>(Spectrum(128, "10000", Variant::rope, "1", s));
  expect_encloses(vllm[63], "0.000038492732822981939322216096243183609385564934715987037665914228290597640232668271", "vLLM g_63");
}

TEST(ScalingRules, Llama3WithEqualBandFactorsIsAHardCut) {
  ScopedPrecision p(256);
  // Llama 4 Scout: factor 16, low = high = 1, C 8192: wavelength > 8192 divided by 16, else kept.
  const Spectrum s(128, "500000", Variant::rope, "1", Scaling::llama3("16", "1", "1", 8192));
  bool decided = false;
  const auto g = frequencies<Interval>(s, &decided);
  EXPECT_TRUE(decided);
  expect_encloses(g[40], "0.000017140510979762957390832665457914410585994700683776912075211300630057815309484516", "pair 40 (w = 22911)");
  const auto g0 = frequencies<Real>(Spectrum(128, "500000"));
  const auto gd = frequencies<double>(s);
  for (int k = 0; k < 64; ++k) {
    const double w = 2 * M_PI / static_cast<double>(g0[k]);
    const double expected = w > 8192 ? static_cast<double>(g0[k]) / 16 : static_cast<double>(g0[k]);
    EXPECT_NEAR(gd[k] / expected, 1.0, 1e-14) << "k=" << k << " w=" << w;
    EXPECT_TRUE(std::isfinite(to_double(g[k]))) << "k=" << k;
  }
}

TEST(ScalingRules, LongropeDividesByTheFactorsOfItsSide) {
  ScopedPrecision p(128);
  Scaling s;
  s.kind = Scaling::Kind::longrope;
  s.original_context = 4096;
  s.max_position = 131072;
  s.factor = "";
  s.short_factor = {"1", "1.5", "2", "4"};
  s.long_factor = {"1", "3", "7.5", "40"};
  const auto g0 = frequencies<Real>(Spectrum(8, "10000"));
  s.sequence_length = 4096;  // not beyond C: short
  auto g = frequencies<Real>(Spectrum(8, "10000", Variant::rope, "1", s));
  EXPECT_EQ(g[3], Real(g0[3] / 4));
  s.sequence_length = 4097;  // beyond C: long
  g = frequencies<Real>(Spectrum(8, "10000", Variant::rope, "1", s));
  EXPECT_EQ(g[3], Real(g0[3] / 40));
  EXPECT_EQ(g[2], Real(g0[2] / Real("7.5")));
  // Phi-3.5: f = M/C = 32, a = sqrt(1 + ln 32 / ln 4096) = sqrt(17/12).
  ScopedPrecision q(256);
  expect_encloses(attention_factor<Interval>(s), "1.1902380714238083329998999685612108797943618599837889722014051471276367344066703", "longrope a");
  s.attention_factor = "1.25";
  EXPECT_TRUE(contains(attention_factor<Interval>(s), Real("1.25")));
}

TEST(ScalingRules, AttentionFactorIsExactlyOneWhereTheRulesSaySo) {
  EXPECT_TRUE(unit_attention_factor(Scaling{}));
  EXPECT_TRUE(unit_attention_factor(Scaling::llama3_1()));
  Scaling deepseek = gpt_oss_yarn();
  deepseek.factor = "40";
  deepseek.mscale = "1.0";
  deepseek.mscale_all_dim = "1";
  EXPECT_TRUE(unit_attention_factor(deepseek));  // equal decimals: the ratio is exactly 1
  deepseek.mscale = "0";                          // Python truthiness: 0 falls back to m(f, 1)
  EXPECT_FALSE(unit_attention_factor(deepseek));
  Scaling small = gpt_oss_yarn();
  small.factor = "1";
  EXPECT_TRUE(unit_attention_factor(small));      // m(f, 1) = 1 for f <= 1
}

TEST(ScalingRules, BadParametersNameTheField) {
  Scaling s = gpt_oss_yarn();
  s.beta_fast = "0";
  try {
    Spectrum(64, "150000", Variant::rope, "1", s);
    FAIL() << "beta_fast 0 accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.input(), "scaling.beta_fast");
  }
  Scaling l;
  l.kind = Scaling::Kind::longrope;
  l.original_context = 4096;
  l.short_factor = {"1", "1"};
  l.long_factor = {"1", "1", "1"};
  l.factor = "2";
  try {
    Spectrum(8, "10000", Variant::rope, "1", l);
    FAIL() << "a list of 2 for 4 pairs accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.input(), "scaling.short_factor");
  }
  Scaling d;
  d.kind = Scaling::Kind::dynamic;
  d.factor = "2";
  d.max_position = 4096;
  EXPECT_THROW(Spectrum(2, "10000", Variant::rope, "1", d), InputError);  // d/(d-2) undefined
  EXPECT_THROW(parse_scaling("llama3:8:4:1:8192"), InputError);           // low > high
  EXPECT_EQ(parse_scaling("llama3:16:1:1:8192").describe(), Scaling::llama3("16", "1", "1", 8192).describe());
}

}  // namespace
}  // namespace ropecheck

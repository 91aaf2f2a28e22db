// The model zoo: every named model loads, agrees with the named configurations where both exist,
// and carries the values its sources give.
#include "spectrum/model_zoo.h"

#include <gtest/gtest.h>

#include "io/input_error.h"
#include "numeric/precision.h"
#include "spectrum/attention_factor.h"
#include "spectrum/frequencies.h"
#include "spectrum/request.h"

namespace ropecheck {
namespace {

TEST(ModelZoo, EveryModelLoadsWithASourcePerValue) {
  const auto names = zoo_names();
  EXPECT_GE(names.size(), 18u);
  for (const auto& name : names) {
    SCOPED_TRACE(name);
    const ModelDescription m = zoo_model(name);
    EXPECT_FALSE(m.layer_types.empty());
    EXPECT_FALSE(m.sources.empty());
    EXPECT_FALSE(m.title.empty());
    int layers = 0;
    for (const auto& lt : m.layer_types) layers += static_cast<int>(lt.layers.size());
    EXPECT_EQ(layers, m.layers);
  }
  EXPECT_THROW(zoo_model("no-such-model"), InputError);
}

TEST(ModelZoo, Llama31MatchesTheNamedConfiguration) {
  ScopedPrecision p(200);
  SpectrumRequest model, config;
  model.model = "llama-3.1-8b";
  config.config = "llama-3.1-8b";
  const ResolvedSpectrum a = resolve(model), b = resolve(config);
  EXPECT_EQ(a.context, b.context);
  const auto ga = frequencies<Real>(a.spectrum), gb = frequencies<Real>(b.spectrum);
  ASSERT_EQ(ga.size(), gb.size());
  for (size_t k = 0; k < ga.size(); ++k) EXPECT_EQ(ga[k], gb[k]) << "k=" << k;
}

TEST(ModelZoo, ShippedRulesAndFactors) {
  ScopedPrecision p(128);
  const auto af = [](const std::string& name, const std::string& layer = "") {
    return to_double(attention_factor<Interval>(zoo_model(name).layer_type(layer).spectrum->scaling()));
  };
  EXPECT_NEAR(af("gpt-oss-20b"), 1.3465735902799727, 1e-15);  // 0.1 ln 32 + 1
  EXPECT_NEAR(af("phi-3.5-mini"), 1.1902380714238083, 1e-15);  // sqrt(1 + ln 32 / ln 4096)
  EXPECT_EQ(af("deepseek-v3"), 1.0);                           // mscale = mscale_all_dim
  EXPECT_NEAR(af("qwen2.5-7b-yarn"), 1.1386294361119891, 1e-15);  // 0.1 ln 4 + 1
  const ModelDescription gemma3 = zoo_model("gemma-3-27b");
  EXPECT_EQ(gemma3.layer_type("full_attention").spectrum->scaling().kind, Scaling::Kind::linear);
  EXPECT_EQ(gemma3.layer_type("sliding_attention").spectrum->scaling().kind, Scaling::Kind::none);
  EXPECT_FALSE(zoo_model("gpt-oss-20b").layer_type("").spectrum->scaling().truncate);
  EXPECT_EQ(zoo_model("phi-4-mini").layer_type("").rotary_dims, 96);
  EXPECT_EQ(zoo_model("deepseek-v3").layer_type("").rotary_dims, 64);
  EXPECT_EQ(zoo_model("command-r").layer_type("").layout, Layout::interleaved);
}

TEST(ModelZoo, ResolveRefusesWhatAModelFixes) {
  SpectrumRequest r;
  r.model = "llama-3.1-8b";
  r.dim = 64;
  EXPECT_THROW(resolve(r), InputError);
  r.dim.reset();
  r.config = "gemma-7b";
  EXPECT_THROW(resolve(r), InputError);
  r.config.reset();
  r.layer_type = "nope";
  try {
    resolve(r);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.input(), "layer_type");
  }
  SpectrumRequest l4;
  l4.model = "llama-4-scout";
  l4.layer_type = "nope";
  EXPECT_THROW(resolve(l4), InputError);  // a NoPE layer type has no spectrum
  l4.layer_type = "rope";
  l4.variant = Variant::p_rope;
  l4.fraction = "0.75";
  EXPECT_EQ(resolve(l4).spectrum.variant(), Variant::p_rope);
}

}  // namespace
}  // namespace ropecheck

// The C ABI's version-2 plans (kernel/c_api.h) against the C++ kernel they wrap: for every zoo
// model and every layer type with RoPE, ropecheck_plan_from_model gives the geometry of
// RopePlan(layer) and ropecheck_plan_apply_f32/_bf16 give the bits and the slow-path counts of
// kernel::apply_rope, pass-through channels copied bit for bit. A config.json passed as text gives
// the plan of the same file named as a zoo model. c_api_test.c checks the rest from C alone (what
// a C caller can verify by itself, bad arguments, version 1).
//
// The test links libropecheck.so (its C symbols only) beside the static kernel library.
#include "kernel/c_api.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "kernel/apply_rope.h"
#include "numeric/small_floats.h"
#include "random/counter_rng.h"
#include "spectrum/model_zoo.h"
#include "spectrum/variant.h"

namespace ropecheck::kernel {
namespace {

constexpr std::uint64_t kSeed = 20261126;

struct PlanDeleter {
  void operator()(ropecheck_plan* p) const { ropecheck_plan_free(p); }
};
using PlanHandle = std::unique_ptr<ropecheck_plan, PlanDeleter>;

PlanHandle c_plan(const char* model, const char* config, const char* layer_type, std::int64_t sequence_length = 0) {
  ropecheck_plan* p = nullptr;
  const int rc = ropecheck_plan_from_model(model, config, layer_type, sequence_length, &p);
  EXPECT_EQ(rc, ROPECHECK_OK) << (model ? model : "config") << " " << (layer_type ? layer_type : "") << ": "
                              << ropecheck_last_error();
  return PlanHandle(p);
}

// Inputs: mostly moderate values of mixed magnitude, some raw bit patterns (NaN, inf, subnormals).
std::vector<float> random_f32(std::size_t n, std::uint64_t stream) {
  const CounterRng rng(kSeed, stream);
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t b = rng.bits(i);
    const std::uint32_t u = static_cast<std::uint32_t>(b >> 32);
    if (b % 16 == 0) x[i] = std::bit_cast<float>(u);
    else x[i] = std::bit_cast<float>((u & 0x807FFFFFu) | ((110u + static_cast<std::uint32_t>((b >> 8) % 30)) << 23));
  }
  return x;
}

std::vector<std::int64_t> random_positions(std::size_t n, std::uint64_t stream) {
  const CounterRng rng(kSeed, stream);
  std::vector<std::int64_t> p(n);
  for (std::size_t t = 0; t < n; ++t) {
    const std::uint64_t b = rng.bits(t);
    const int e = static_cast<int>(b % 63);  // up to 2^62
    const std::int64_t v = static_cast<std::int64_t>((b >> 1) & ((std::uint64_t{1} << e) - 1));
    p[t] = (b >> 63) ? -v : v;
  }
  p[0] = 0;
  return p;
}

ropecheck_tensor c_view(void* data, std::int64_t tokens, std::int64_t heads, int dim) {
  return ropecheck_tensor{data, tokens, heads, heads * dim, dim};
}

// Compares the C ABI with the C++ kernel on one layer type, f32 and bf16; checks pass-through.
void expect_same_as_kernel(const ropecheck_plan* c, const LayerType& layer, const std::string& what) {
  const RopePlan plan(layer);
  ASSERT_EQ(ropecheck_plan_head_dim(c), plan.dim()) << what;
  ASSERT_EQ(ropecheck_plan_head_dim(c), layer.head_dim) << what;
  EXPECT_EQ(ropecheck_plan_rotary_offset(c), layer.rotary_offset) << what;
  EXPECT_EQ(ropecheck_plan_rotary_dims(c), layer.rotary_dims) << what;
  EXPECT_EQ(std::string(ropecheck_plan_layout(c)), layout_name(layer.layout)) << what;
  EXPECT_EQ(std::string(ropecheck_plan_layer_type(c)), layer.name) << what;
  EXPECT_EQ(std::bit_cast<std::uint64_t>(ropecheck_plan_attention_factor(c)), std::bit_cast<std::uint64_t>(plan.attention_factor()))
      << what;
  EXPECT_NE(std::string(ropecheck_plan_describe(c)).find(plan.describe()), std::string::npos) << what;

  const int d = plan.dim();
  const std::int64_t tokens = 24, heads = 2;
  const std::size_t n = static_cast<std::size_t>(tokens * heads * d);
  const std::vector<std::int64_t> positions = random_positions(static_cast<std::size_t>(tokens), 1);
  const std::vector<float> x = random_f32(n, 2);
  std::vector<float> want(n), got(n);
  KernelStats want_stats;
  apply_rope(plan, positions, dense_view<const float>(x.data(), tokens, heads, d), dense_view(want.data(), tokens, heads, d),
             KernelOptions{cpu::default_path(), 1, &want_stats});
  ropecheck_tensor in = c_view(const_cast<float*>(x.data()), tokens, heads, d), out = c_view(got.data(), tokens, heads, d);
  ropecheck_stats stats{0, 0, 0};
  ASSERT_EQ(ropecheck_plan_apply_f32(c, positions.data(), &in, &out, 2, &stats), ROPECHECK_OK) << what << ": "
                                                                                                << ropecheck_last_error();
  EXPECT_EQ(stats.outputs, want_stats.outputs) << what;
  EXPECT_EQ(stats.slow, want_stats.slow) << what;
  EXPECT_EQ(stats.unresolved, 0) << what;
  EXPECT_EQ(stats.outputs, tokens * heads * layer.rotary_dims) << what;
  const int o = layer.rotary_offset, r = layer.rotary_dims;
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(std::bit_cast<std::uint32_t>(got[i]), std::bit_cast<std::uint32_t>(want[i])) << what << " f32 element " << i;
    const int channel = static_cast<int>(i % static_cast<std::size_t>(d));
    if (channel < o || channel >= o + r) {
      ASSERT_EQ(std::bit_cast<std::uint32_t>(got[i]), std::bit_cast<std::uint32_t>(x[i])) << what << " pass-through " << i;
    }
  }

  // The 16-bit formats: bfloat16 from x's high halves, float16 from its low halves (any bits).
  const auto sixteen = [&](auto tag, auto c_apply, const char* name, auto bits_from) {
    using E = decltype(tag);
    std::vector<E> xb(n), wantb(n), gotb(n);
    for (std::size_t i = 0; i < n; ++i) xb[i] = E{bits_from(std::bit_cast<std::uint32_t>(x[i]))};
    KernelStats want_stats_b;
    apply_rope(plan, positions, dense_view<const E>(xb.data(), tokens, heads, d), dense_view(wantb.data(), tokens, heads, d),
               KernelOptions{cpu::default_path(), 1, &want_stats_b});
    ropecheck_tensor inb = c_view(xb.data(), tokens, heads, d), outb = c_view(gotb.data(), tokens, heads, d);
    ropecheck_stats stats_b{0, 0, 0};
    ASSERT_EQ(c_apply(c, positions.data(), &inb, &outb, 1, &stats_b), ROPECHECK_OK) << what << ": " << ropecheck_last_error();
    EXPECT_EQ(stats_b.outputs, want_stats_b.outputs) << what;
    EXPECT_EQ(stats_b.slow, want_stats_b.slow) << what;
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(gotb[i].bits, wantb[i].bits) << what << " " << name << " element " << i;
      const int channel = static_cast<int>(i % static_cast<std::size_t>(d));
      if (channel < o || channel >= o + r) {
        ASSERT_EQ(gotb[i].bits, xb[i].bits) << what << " " << name << " pass-through " << i;
      }
    }
  };
  sixteen(Bf16Bits{}, ropecheck_plan_apply_bf16, "bf16", [](std::uint32_t u) { return static_cast<std::uint16_t>(u >> 16); });
  sixteen(F16Bits{}, ropecheck_plan_apply_f16, "f16", [](std::uint32_t u) { return static_cast<std::uint16_t>(u); });
}

TEST(CApiPlan, EveryZooModelAndLayerTypeMatchesTheKernelBitForBit) {
  int compared = 0;
  for (const std::string& name : zoo_names()) {
    const ModelDescription m = zoo_model(name);
    for (const LayerType& layer : m.layer_types) {
      const std::string what = name + " / " + layer.name;
      if (!layer.spectrum) {
        ropecheck_plan* p = reinterpret_cast<ropecheck_plan*>(&compared);  // must be overwritten with NULL
        EXPECT_EQ(ropecheck_plan_from_model(name.c_str(), nullptr, layer.name.c_str(), 0, &p), ROPECHECK_BAD_ARGUMENT) << what;
        EXPECT_EQ(p, nullptr) << what;
        EXPECT_NE(std::string(ropecheck_last_error()).find("layer_type"), std::string::npos) << ropecheck_last_error();
        continue;
      }
      const PlanHandle c = c_plan(name.c_str(), nullptr, layer.name.c_str());
      ASSERT_NE(c, nullptr) << what;
      expect_same_as_kernel(c.get(), layer, what);
      ++compared;
    }
  }
  EXPECT_GE(compared, 18);
}

// The default layer type (NULL or "") is the model's: its only one, or the first with RoPE.
TEST(CApiPlan, DefaultLayerTypeIsTheModels) {
  for (const char* name : {"gpt-oss-20b", "llama-4-scout", "gemma-3-27b", "deepseek-v3"}) {
    const ModelDescription m = zoo_model(name);
    const PlanHandle a = c_plan(name, nullptr, nullptr), b = c_plan(name, nullptr, "");
    ASSERT_TRUE(a && b);
    EXPECT_EQ(std::string(ropecheck_plan_layer_type(a.get())), m.layer_type("").name) << name;
    EXPECT_EQ(std::string(ropecheck_plan_layer_type(b.get())), m.layer_type("").name) << name;
  }
}

// LongRoPE at a sequence length within the original context uses the short factors: another plan.
TEST(CApiPlan, SequenceLengthSelectsLongRopeFactors) {
  ModelOptions shorter;
  shorter.sequence_length = 4096;
  const ModelDescription m = zoo_model("phi-3.5-mini", shorter);
  const PlanHandle c = c_plan("phi-3.5-mini", nullptr, nullptr, 4096);
  ASSERT_TRUE(c);
  expect_same_as_kernel(c.get(), m.layer_type(""), "phi-3.5-mini at 4096");
  const PlanHandle full = c_plan("phi-3.5-mini", nullptr, nullptr);
  EXPECT_NE(std::string(ropecheck_plan_describe(c.get())), std::string(ropecheck_plan_describe(full.get())));
}

// A config.json given as text resolves as the same file named as a zoo model.
TEST(CApiPlan, ConfigTextGivesTheZooModelsPlan) {
  for (const char* name : {"gpt-oss-20b", "deepseek-v3", "glm-4-9b", "phi-3.5-mini"}) {
    std::ifstream f(std::string(ROPECHECK_TEST_SOURCE_DIR) + "/src/spectrum/zoo/" + name + ".json");
    ASSERT_TRUE(f) << name;
    std::stringstream text;
    text << f.rdbuf();
    const PlanHandle c = c_plan(nullptr, text.str().c_str(), nullptr);
    ASSERT_TRUE(c) << name;
    expect_same_as_kernel(c.get(), zoo_model(name).layer_type(""), std::string(name) + " as config_json text");
    const PlanHandle z = c_plan(name, nullptr, nullptr);
    EXPECT_EQ(std::string(ropecheck_plan_attention_factor_text(c.get())), ropecheck_plan_attention_factor_text(z.get()));
  }
}

// The C ABI parses spec->variant with the library's one list (spectrum/variant.h): every variant
// of kVariants is accepted under its name, anything else refused naming spec->variant.
TEST(CApiPlan, EveryLibraryVariantParses) {
  std::vector<float> x(4, 0.5f), y(4);
  const std::int64_t position = 3;
  const ropecheck_tensor in{x.data(), 1, 1, 4, 4}, out{y.data(), 1, 1, 4, 4};
  for (const VariantInfo& v : kVariants) {
    const std::string name(v.name);
    const ropecheck_rope_spec spec{4, "10000", name.c_str(), "0.5", "half"};
    EXPECT_EQ(ropecheck_apply_rope_f32(&spec, &position, &in, &out, 1), ROPECHECK_OK) << name << ": " << ropecheck_last_error();
  }
  const ropecheck_rope_spec bad{4, "10000", "p_rope", "0.5", "half"};
  EXPECT_NE(ropecheck_apply_rope_f32(&bad, &position, &in, &out, 1), ROPECHECK_OK);
  EXPECT_NE(std::string(ropecheck_last_error()).find("spec->variant"), std::string::npos) << ropecheck_last_error();
}

}  // namespace
}  // namespace ropecheck::kernel

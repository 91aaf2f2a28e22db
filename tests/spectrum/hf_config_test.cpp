// Reading Hugging Face config.json files: both forms, per-layer configs, model-type rules, exact
// decimals, and bad configs refused with the field named.
#include "spectrum/hf_config.h"

#include <gtest/gtest.h>

#include "io/input_error.h"
#include "numeric/precision.h"
#include "spectrum/attention_factor.h"
#include "spectrum/frequencies.h"

namespace ropecheck {
namespace {

ModelDescription read(const std::string& text, const ModelOptions& o = {}) { return read_hf_config_text(text, "config.json", o); }

std::string input_of(const std::string& text) {
  try {
    read(text);
  } catch (const InputError& e) {
    return e.input();
  }
  return "(accepted)";
}

const char* kLlama = R"({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 32,
  "max_position_embeddings": 131072, "rope_theta": 500000.0,
  "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"}})";

TEST(HfConfig, LegacyLlamaReadsAsTheNamedConfiguration) {
  const ModelDescription m = read(kLlama);
  ASSERT_EQ(m.layer_types.size(), 1u);
  const LayerType& lt = m.layer_types[0];
  EXPECT_EQ(lt.name, "all");
  EXPECT_EQ(lt.head_dim, 128);
  EXPECT_EQ(lt.rotary_dims, 128);
  EXPECT_EQ(lt.layers.size(), 32u);
  EXPECT_EQ(lt.span(), 131072);
  ASSERT_TRUE(lt.spectrum);
  // The decimals as written ("500000.0", "8.0"), the same numbers as --config llama-3.1-8b.
  EXPECT_EQ(lt.spectrum->theta(), "500000.0");
  EXPECT_EQ(lt.spectrum->scaling().factor, "8.0");
  ScopedPrecision p(200);
  const auto a = frequencies<Real>(*lt.spectrum);
  const auto b = frequencies<Real>(Spectrum(128, "500000", Variant::rope, "1", Scaling::llama3_1()));
  for (size_t k = 0; k < a.size(); ++k) EXPECT_EQ(a[k], b[k]) << "k=" << k;
}

TEST(HfConfig, V5RopeParametersAndItsPerLayerDicts) {
  const ModelDescription single = read(R"({"model_type": "qwen3", "head_dim": 128, "hidden_size": 4096, "num_attention_heads": 32,
    "num_hidden_layers": 4, "max_position_embeddings": 131072,
    "rope_parameters": {"rope_type": "yarn", "rope_theta": 1000000.0, "factor": 4.0, "original_max_position_embeddings": 32768}})");
  ASSERT_TRUE(single.layer_types[0].spectrum);
  EXPECT_EQ(single.layer_types[0].spectrum->scaling().kind, Scaling::Kind::yarn);
  EXPECT_EQ(single.layer_types[0].spectrum->theta(), "1000000.0");
  EXPECT_EQ(single.layer_types[0].spectrum->scaling().original_context, 32768);

  const ModelDescription per_layer = read(R"({"model_type": "gemma3_text", "head_dim": 128, "hidden_size": 5376,
    "num_attention_heads": 32, "num_hidden_layers": 6, "max_position_embeddings": 131072, "sliding_window": 1024,
    "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention"],
    "rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000.0},
                        "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}})");
  ASSERT_EQ(per_layer.layer_types.size(), 2u);
  const LayerType& local = per_layer.layer_type("sliding_attention");
  const LayerType& global = per_layer.layer_type("full_attention");
  EXPECT_EQ(local.spectrum->theta(), "10000.0");
  EXPECT_EQ(local.spectrum->scaling().kind, Scaling::Kind::none);
  EXPECT_EQ(local.span(), 1024);  // the window
  EXPECT_EQ(global.spectrum->scaling().describe(), "linear 8.0");
  EXPECT_EQ(global.span(), 131072);
  EXPECT_EQ(global.layers, std::vector<int>{5});
}

TEST(HfConfig, ModelTypeRulesDecideTheRotaryPartAndLayout) {
  // DeepSeek MLA: rope part 64 after 128 nope channels, interleaved.
  const ModelDescription ds = read(R"({"model_type": "deepseek_v3", "hidden_size": 7168, "num_attention_heads": 128,
    "num_hidden_layers": 2, "max_position_embeddings": 163840, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "rope_theta": 10000,
    "rope_scaling": {"type": "yarn", "factor": 40, "original_max_position_embeddings": 4096, "beta_fast": 32, "beta_slow": 1,
                     "mscale": 1.0, "mscale_all_dim": 1.0}})");
  const LayerType& mla = ds.layer_types[0];
  EXPECT_EQ(mla.head_dim, 192);
  EXPECT_EQ(mla.rotary_offset, 128);
  EXPECT_EQ(mla.rotary_dims, 64);
  EXPECT_EQ(mla.pass_through_pairs(), 64);
  EXPECT_EQ(mla.layout, Layout::interleaved);
  EXPECT_TRUE(unit_attention_factor(mla.spectrum->scaling()));
  // Llama ignores partial_rotary_factor; Phi-3 and GLM read it (GLM interleaved, default 0.5).
  EXPECT_EQ(read(R"({"model_type": "llama", "hidden_size": 256, "num_attention_heads": 2, "num_hidden_layers": 1,
    "max_position_embeddings": 4096, "partial_rotary_factor": 0.5})").layer_types[0].rotary_dims, 128);
  EXPECT_EQ(read(R"({"model_type": "phi3", "hidden_size": 256, "num_attention_heads": 2, "num_hidden_layers": 1,
    "max_position_embeddings": 4096, "partial_rotary_factor": 0.75})").layer_types[0].rotary_dims, 96);
  const ModelDescription glm = read(R"({"model_type": "glm4", "head_dim": 128, "hidden_size": 4096, "num_attention_heads": 32,
    "num_hidden_layers": 1, "max_position_embeddings": 32768})");
  EXPECT_EQ(glm.layer_types[0].rotary_dims, 64);
  EXPECT_EQ(glm.layer_types[0].layout, Layout::interleaved);
  // GPT-NeoX: rotary_pct and rotary_emb_base.
  const ModelDescription neox = read(R"({"model_type": "gpt_neox", "hidden_size": 6144, "num_attention_heads": 64,
    "num_hidden_layers": 1, "max_position_embeddings": 2048, "rotary_pct": 0.25, "rotary_emb_base": 10000})");
  EXPECT_EQ(neox.layer_types[0].rotary_dims, 24);
  EXPECT_EQ(neox.layer_types[0].spectrum->theta(), "10000");
  // Llama 4: every 4th layer NoPE when no_rope_layers is empty; chunked attention on RoPE layers.
  const ModelDescription l4 = read(R"({"model_type": "llama4_text", "head_dim": 128, "hidden_size": 5120, "num_attention_heads": 40,
    "num_hidden_layers": 8, "max_position_embeddings": 10485760, "no_rope_layers": [], "attention_chunk_size": 8192, "rope_theta": 500000.0,
    "rope_scaling": {"factor": 16.0, "low_freq_factor": 1.0, "high_freq_factor": 1.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"}})");
  ASSERT_EQ(l4.layer_types.size(), 2u);
  EXPECT_EQ(l4.layer_type("nope").layers, (std::vector<int>{3, 7}));
  EXPECT_FALSE(l4.layer_type("nope").spectrum);
  EXPECT_EQ(l4.layer_type("rope").span(), 8192);
  EXPECT_EQ(l4.layer_type("").name, "rope");  // the first with RoPE
}

TEST(HfConfig, LongropeAndDynamicAreEvaluatedAtTheStatedLength) {
  std::string factors = "[";
  for (int i = 0; i < 48; ++i) factors += std::string(i ? "," : "") + "1.0800000429153442";
  factors += "]";
  const std::string phi = R"({"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 32, "num_hidden_layers": 1,
    "max_position_embeddings": 131072, "original_max_position_embeddings": 4096, "rope_theta": 10000.0,
    "rope_scaling": {"type": "longrope", "short_factor": )" + factors + R"(, "long_factor": )" + factors + "}}";
  const ModelDescription at_context = read(phi);
  const Scaling& s = at_context.layer_types[0].spectrum->scaling();
  EXPECT_TRUE(s.longrope_long());
  EXPECT_EQ(s.long_factor[0], "1.0800000429153442");  // the text, not its binary64
  ModelOptions short_run;
  short_run.sequence_length = 4096;
  EXPECT_FALSE(read(phi, short_run).layer_types[0].spectrum->scaling().longrope_long());
}

TEST(HfConfig, BadConfigsNameTheField) {
  EXPECT_EQ(input_of("{"), "config.json");
  EXPECT_EQ(input_of(R"({"num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 2})"), "config.json: max_position_embeddings");
  const std::string base = R"("num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 2, "max_position_embeddings": 4096)";
  EXPECT_EQ(input_of("{" + base + R"(, "rope_scaling": {"rope_type": "mrope"}})"), "config.json: rope_scaling.rope_type");
  EXPECT_EQ(input_of("{" + base + R"(, "rope_scaling": {"rope_type": "linear"}})"), "config.json: rope_scaling.factor");
  EXPECT_EQ(input_of("{" + base + R"(, "rope_theta": "ten thousand"})"), "config.json: rope_theta");
  EXPECT_EQ(input_of("{" + base + R"(, "rope_scaling": {"type": "linear", "rope_type": "yarn", "factor": 2}})"), "config.json: rope_scaling.type");
  EXPECT_EQ(input_of("{" + base + R"(, "rope_scaling": {"rope_type": "linear", "factor": 2}, "rope_parameters": {"rope_type": "default"}})"),
            "config.json: rope_scaling");
  EXPECT_EQ(input_of("{" + base + R"(, "rope_theta": 1.0})"), "config.json: rope_theta");
  EXPECT_EQ(input_of(R"({"num_hidden_layers": 1, "hidden_size": 65, "num_attention_heads": 2, "max_position_embeddings": 4096})"),
            "config.json: hidden_size");
  EXPECT_EQ(input_of("{" + base + R"(, "rope_scaling": {"rope_type": "llama3", "factor": 8, "low_freq_factor": 4, "high_freq_factor": 1, "original_max_position_embeddings": 8192}})"),
            "config.json: rope_scaling.high_freq_factor");
}


// Every count and size within spectrum/limits.h, checked where the description is built: each of
// these reached an allocation, a narrowing cast or an MPFI exception (exit 3) before.
TEST(HfConfig, AbsurdSizesAreRefusedWithTheFieldAndTheLimit) {
  const std::string base = R"("model_type": "llama", "hidden_size": 256, "num_attention_heads": 4, "max_position_embeddings": 4096)";
  // The base config with `extra`'s fields put over it.
  const auto with = [&](const std::string& extra) {
    nlohmann::json j = nlohmann::json::parse("{" + base + "}");
    j.update(nlohmann::json::parse("{" + extra + "}"));
    return j.dump();
  };
  const auto refused = [&](const std::string& extra, const std::string& field, const std::string& accepted) {
    try {
      read(with(extra));
      ADD_FAILURE() << extra << " accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.input(), "config.json: " + field) << extra << ": " << e.what();
      EXPECT_NE(e.accepted().find(accepted), std::string::npos) << extra << ": " << e.what();
    }
  };
  refused(R"("num_hidden_layers": 2, "head_dim": 2147483646)", "head_dim", "an integer in [2, 65536]");
  refused(R"("num_hidden_layers": 2, "head_dim": 8589934594)", "head_dim", "an integer in [2, 65536]");  // was cast to int 2
  refused(R"("num_hidden_layers": 2147483647)", "num_hidden_layers", "an integer in [1, 65536]");
  refused(R"("num_hidden_layers": 2, "num_key_value_heads": 1000000)", "num_key_value_heads", "an integer in [1, 65536]");
  refused(R"("num_hidden_layers": 2, "max_position_embeddings": 4611686018427387904)", "max_position_embeddings", "1099511627776]");
  refused(R"("num_hidden_layers": 2, "model_type": "deepseek_v3", "qk_rope_head_dim": 64, "qk_nope_head_dim": 2147483647)", "qk_nope_head_dim",
          "an integer in [0, 65472]");
  refused(R"("num_hidden_layers": 2, "sliding_window": 1152921504606846976)", "sliding_window", "1099511627776]");
  refused(R"("num_hidden_layers": 2, "rope_scaling": {"rope_type": "dynamic", "factor": 1e308})", "rope_scaling.factor", "(0, 2^40]");
  refused(R"("num_hidden_layers": 2, "rope_scaling": {"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 4611686018427387904})",
          "rope_scaling.original_max_position_embeddings", "1099511627776]");
  refused(R"("num_hidden_layers": 2, "model_type": "gemma2", "head_dim": 64, "attn_logit_softcapping": 0.0)", "attn_logit_softcapping", "> 0");
  EXPECT_EQ(input_of(R"({"num_hidden_layers": 2, "hidden_size": 8589934592, "num_attention_heads": 2, "max_position_embeddings": 4096})"),
            "config.json: hidden_size");
  // At the limits exactly: accepted.
  const ModelDescription m = read(with(R"("num_hidden_layers": 1, "head_dim": 65536, "max_position_embeddings": 1099511627776,
                                        "rope_scaling": {"rope_type": "dynamic", "factor": 1099511627776})"));
  EXPECT_EQ(m.layer_types.front().head_dim, 65536);
  // The document's limits (kConfigJsonLimits), from the C ABI's text as from a file.
  EXPECT_EQ(input_of(std::string(100, '[') + std::string(100, ']')), "config.json");
}

}  // namespace
}  // namespace ropecheck

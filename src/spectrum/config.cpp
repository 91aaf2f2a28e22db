#include "spectrum/config.h"

#include "io/input_error.h"

namespace ropecheck {

const std::vector<ModelConfig>& named_configs() {
  static const std::vector<ModelConfig> configs = {
      {"gemma-7b", 256, "10000", 8192, {}, "Gemma 7B: head_dim 256, rope_theta 1e4, 8192 context (the paper's Section 4-6 model)"},
      {"gemma-2b", 256, "10000", 8192, {}, "Gemma 2B: head_dim 256, rope_theta 1e4, 8192 context (the paper's Section 6 training runs)"},
      {"llama-3.1-8b", 128, "500000", 131072, Scaling::llama3_1(),
       "Llama 3.1 8B: head_dim 128, rope_theta 5e5, 131072 context, rope_scaling llama3 (factor 8, low 1, high 4, original 8192)"},
      {"llama-3.1-8b-unscaled", 128, "500000", 131072, {}, "Llama 3.1 8B without its llama3 frequency scaling"},
      {"roformer", 128, "10000", 512, {}, "RoFormer (Su et al.): theta 1e4, 512-token pre-training context, d=128 as in its long-term-decay bound"},
  };
  return configs;
}

std::string config_names() {
  std::string names;
  for (const auto& c : named_configs()) names += (names.empty() ? "" : ", ") + c.name;
  return names;
}

const ModelConfig& find_config(const std::string& name) {
  for (const auto& c : named_configs())
    if (c.name == name) return c;
  throw InputError("config", "one of " + config_names(), name);
}

}  // namespace ropecheck

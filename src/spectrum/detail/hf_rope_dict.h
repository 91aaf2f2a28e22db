// File: detail/hf_rope_dict.h
// One rope_scaling (legacy) or rope_parameters (v5) dict of a config.json as a rope_type's reader
// (scaling_registry.h) sees it: its fields read as exact decimal text, and the config-level values
// the rules default to. Every reader throws InputError naming the field ("config.json:
// rope_scaling.factor") and what is accepted.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/json_fields.h"

namespace ropecheck {

// A decimal given as a JSON number (or, leniently, as a decimal string: some configs quote them).
std::string hf_decimal_field(const nlohmann::json& dict, const JsonPlace& place, const std::string& key, const std::string& accepted);

struct HfRopeDict {
  const nlohmann::json& dict;
  const JsonPlace& place;
  long long max_position;                  // M: max_position_embeddings
  long long sequence_length;               // S: ModelOptions' sequence_length, else M
  bool vllm_dynamic;                       // ModelOptions: vLLM's static dynamic rule
  const std::string& model_type;
  bool top_level_original;                 // the config itself has original_max_position_embeddings (Phi-3)
  std::function<long long()> top_level_original_value;  // reads it (called only when needed)

  bool has(const std::string& key) const { return dict.contains(key); }
  // C: the dict's original_max_position_embeddings, else the top-level one, else M.
  long long original() const;
  std::string decimal(const std::string& key, const std::string& accepted) const { return hf_decimal_field(dict, place, key, accepted); }
  std::optional<std::string> optional_decimal(const std::string& key) const;
  std::vector<std::string> number_list(const std::string& key) const;
};

}  // namespace ropecheck

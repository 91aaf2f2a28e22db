// File: hf_config.h
// Reads a Hugging Face config.json into a ModelDescription (model.h), in both forms transformers
// accepts: legacy (rope_theta, rope_scaling with "type" or "rope_type", partial_rotary_factor) and
// v5 (rope_parameters, one dict or a dict per layer type with layer_types). Decimals are read as
// the text the file writes (io/json_exact.h), so every precision computes from the same numbers.
//
// Per model_type, what the model's reference code does (not always what transformers' generic
// utilities would read):
//   llama, mistral, mixtral, qwen2, qwen3, olmo2, gemma, gemma2, mistral3 text: one layer type,
//       head_dim or hidden_size/num_attention_heads, layout half; partial_rotary_factor is ignored
//       (transformers' Llama attention rotates the whole head whatever the field says).
//   llama4 (text_config): interleaved (Meta's complex freqs_cis); no_rope_layers (1 = RoPE) or
//       every nope_layer_interval-th layer NoPE (default 4).
//   gemma3 (text_config): full_attention layers use rope_theta and rope_scaling; sliding layers use
//       rope_local_base_freq without scaling; layer_types, or sliding_window_pattern (every n-th
//       layer full).
//   cohere: interleaved. cohere2: sliding layers RoPE, full layers NoPE (layer_types or
//       sliding_window_pattern).
//   deepseek_v2/v3, minicpm3: MLA; the rope part is qk_rope_head_dim after qk_nope_head_dim;
//       interleaved when rope_interleave is true (DeepSeek's view_as_complex), else half.
//   phi3: partial_rotary_factor (Phi-4-mini 0.75); longrope's C from the top-level
//       original_max_position_embeddings and its attention factor from M/C.
//   gpt_neox: rotary_pct, rotary_emb_base; half within the rotary part.
//   glm, glm4: partial_rotary_factor (default 0.5), interleaved within the rotary part.
//   gpt_oss: yarn (truncate false as shipped); layer_types.
//   Any other model_type is read as llama is, and says so in `read`.
// Limits: every count and size within spectrum/limits.h (head_dim, heads, layers, lengths), every
// document within kConfigJsonLimits: checked here, once, so that no command reaches an allocation
// sized by an absurd config.
// Context: max_position_embeddings. dynamic and longrope are evaluated at the sequence length
// `sequence_length` when given, else at the context (transformers' rule at a full context).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "io/json_reader.h"
#include "spectrum/model.h"

namespace ropecheck {

// config.json, as files, the zoo's and the C ABI's text: shipped configs are a few kB and nest 4
// deep; their longest list is longrope's factors, head_dim / 2 <= 32768 items (limits.h).
inline constexpr JsonLimits kConfigJsonLimits{std::size_t{16} << 20, 32, 65536};

struct ModelOptions {
  std::optional<long long> sequence_length;  // dynamic / longrope: S (default: the context)
  bool vllm_dynamic = false;                 // dynamic: vLLM's static rule instead of transformers'
};

// Returns: the model a config describes. `origin` names the document in errors (a file name).
// Throws InputError naming the field ("config.json: rope_scaling.factor") and what is accepted:
// an unknown rope_type, a missing required field, a string where a number belongs, contradicting
// fields (e.g. rope_scaling and rope_parameters both), a head geometry that does not divide.
ModelDescription read_hf_config(const nlohmann::json& config, const std::string& origin, const ModelOptions& options = {});

// Returns: read_hf_config of a config.json file's text (floats kept exact). Throws InputError.
ModelDescription read_hf_config_text(const std::string& text, const std::string& origin, const ModelOptions& options = {});

}  // namespace ropecheck

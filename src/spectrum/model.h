// File: model.h
// A model's RoPE as its Hugging Face config.json describes it: one or more layer types, each with
// its head geometry, rotary part, pair layout, spectrum (frequency rule and attention factor) and
// the layers that use it. `--model FILE|NAME` resolves to one of these (hf_config.h reads a file;
// model_zoo.h names the shipped ones).
//
// The spectrum of a layer type covers the rotary part only (its dim is rotary_dims; Gemma's
// proportional rule is p-rope over the whole head): the other head channels pass through unrotated
// and unscaled, so for every analysis they are position-independent (semantic) pairs, counted by
// pass_through_pairs(). A layer type without RoPE (NoPE layers) has rotary_dims 0 and no spectrum.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "spectrum/layout.h"
#include "spectrum/spectrum.h"

namespace ropecheck {

struct LayerType {
  std::string name;             // "all", or the config's layer type ("full_attention", ...)
  int head_dim = 0;             // width of a query/key head (MLA: qk_nope_head_dim + qk_rope_head_dim)
  int rotary_offset = 0;        // first rotary channel in the head (MLA: qk_nope_head_dim)
  int rotary_dims = 0;          // width of the rotary part; 0 for a NoPE layer type
  Layout layout = Layout::half; // pairing inside the rotary part
  std::optional<Spectrum> spectrum;  // over the rotary part; none for NoPE
  std::vector<int> layers;      // 0-based indices of the layers of this type
  long long context = 0;        // the context the model advertises (max_position_embeddings)
  std::optional<long long> window;  // sliding window or attention chunk of these layers, if any

  int pass_through_pairs() const { return (head_dim - rotary_dims) / 2; }
  // Returns: the longest query-key distance + 1 these layers attend over: the window when it is
  // shorter than the context, else the context. The analyses' "context" for this layer type.
  long long span() const { return window && *window < context ? *window : context; }
  // Returns: e.g. "half, rotary 64 of 192 (channels 128..191)".
  std::string describe_geometry() const;
};

// The attention around the rotation, for analyses of captured queries and keys (usage/): logits
// are scale * q.k (softcap: c tanh(logit / c) after scaling, Gemma 2), then the causal softmax.
// A RoPE attention factor a (a layer type's spectrum) multiplies cos and sin on top of this.
struct AttentionShape {
  int heads = 0;           // num_attention_heads
  int kv_heads = 0;        // num_key_value_heads (heads when absent); query head h reads kv head h / (heads / kv_heads)
  double scale = 0;        // binary64 value of the factor below (within 1 ulp)
  std::string scale_text;  // e.g. "head_dim^-1/2 = 1/sqrt(128)", "query_pre_attn_scalar^-1/2 = 1/sqrt(256)"
  std::optional<double> softcap;  // attn_logit_softcapping (Gemma 2)
};

struct ModelDescription {
  std::string name;        // zoo name, or the file name
  std::string model_type;  // the config's model_type ("llama", "deepseek_v3", ...)
  std::string title;       // zoo files: the model's title; else ""
  int layers = 0;          // num_hidden_layers
  AttentionShape attention;
  std::vector<LayerType> layer_types;
  std::vector<std::string> read;      // what was read, field by field (model-type rules included)
  std::vector<std::string> sources;   // zoo files: "field: source" per value
  std::vector<std::string> unconfirmed;  // zoo files: fields whose value no stored source confirmed

  // Returns: the layer type called `name`; with "" the only one, or the first with RoPE when the
  // model has several (e.g. Gemma 3's "full_attention" comes first). Throws InputError("layer_type",
  // the model's layer types, name).
  const LayerType& layer_type(const std::string& name) const;
};

}  // namespace ropecheck

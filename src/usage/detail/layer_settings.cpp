#include "usage/detail/layer_settings.h"

#include <string>

#include "io/input_error.h"

namespace ropecheck::usage::detail {

std::vector<const LayerType*> layer_types_of(const ModelDescription& model, const CaptureGeometry& g) {
  if (g.layers != model.layers)
    throw InputError("q", "a capture of the model's " + std::to_string(model.layers) + " layers (axis 1)", std::to_string(g.layers) + " layers");
  if (g.heads != model.attention.heads)
    throw InputError("q", "the model's " + std::to_string(model.attention.heads) + " query heads (axis 2)", std::to_string(g.heads));
  if (g.kv_heads != model.attention.kv_heads)
    throw InputError("k", "the model's " + std::to_string(model.attention.kv_heads) + " key/value heads (axis 2)", std::to_string(g.kv_heads));
  std::vector<const LayerType*> of(static_cast<size_t>(model.layers), nullptr);
  for (const LayerType& lt : model.layer_types) {
    if (g.head_dim != lt.head_dim)
      throw InputError("q", "head_dim " + std::to_string(lt.head_dim) + " (axis 4, the model's " + lt.name + " layers)", std::to_string(g.head_dim));
    for (int l : lt.layers) of[static_cast<size_t>(l)] = &lt;
  }
  return of;
}

AttentionSettings settings_of(const ModelDescription& model, const LayerType& lt, const UsageOptions& o) {
  AttentionSettings st{model.attention.scale, model.attention.softcap, lt.window, o.content_distance};
  st.max_offset = o.kind_rule.max_offset;
  st.strong_match = o.strong_match;
  st.keep_matches = o.break_rows;
  return st;
}

}  // namespace ropecheck::usage::detail

#include "spectrum/model.h"

#include "io/input_error.h"

namespace ropecheck {

std::string LayerType::describe_geometry() const {
  if (rotary_dims == 0) return "no RoPE (head " + std::to_string(head_dim) + ")";
  std::string d = layout_name(layout) + ", rotary " + std::to_string(rotary_dims) + " of " + std::to_string(head_dim);
  if (rotary_dims != head_dim)
    d += " (channels " + std::to_string(rotary_offset) + ".." + std::to_string(rotary_offset + rotary_dims - 1) + ")";
  return d;
}

const LayerType& ModelDescription::layer_type(const std::string& wanted) const {
  if (wanted.empty()) {
    for (const auto& lt : layer_types)
      if (lt.spectrum) return lt;
    return layer_types.front();
  }
  std::string names;
  for (const auto& lt : layer_types) {
    if (lt.name == wanted) return lt;
    names += (names.empty() ? "" : ", ") + lt.name;
  }
  throw InputError("layer_type", "one of " + names + " (the layer types of " + name + ")", wanted);
}

}  // namespace ropecheck

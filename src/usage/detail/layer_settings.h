// File: detail/layer_settings.h
// What usage.cpp and attention_maps.cpp both need of a model and a capture: each layer's type,
// checked against the capture, and a layer type's attention settings.
#pragma once

#include <vector>

#include "spectrum/model.h"
#include "usage/capture.h"
#include "usage/head_attention.h"
#include "usage/usage.h"

namespace ropecheck::usage::detail {

// Returns: the layer type of every layer. Throws InputError("q" or "k") when the capture does not
// fit the model (layer count, heads and kv heads, head_dim).
std::vector<const LayerType*> layer_types_of(const ModelDescription& model, const CaptureGeometry& g);

// Returns: the attention settings of a layer type: the model's scale and softcap, the layer's
// window, the options' kind rule and content-match rule.
AttentionSettings settings_of(const ModelDescription& model, const LayerType& lt, const UsageOptions& o);

}  // namespace ropecheck::usage::detail

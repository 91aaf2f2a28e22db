// File: model_table.h
// `ropecheck spectrum --model`: the spectrum table (table.h) of every layer type of a model, each
// headed by its geometry (rotary part, layout, pass-through pairs), its layers, its span and its
// attention factor. Pass-through channels are unrotated pairs: semantic at every context, and
// counted apart from the rotary part's semantic pairs.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "spectrum/model.h"

namespace ropecheck {

// Returns: "0-3, 5, 7-9" for sorted layer indices.
std::string layer_ranges(const std::vector<int>& layers);

// Returns: every layer type's table (or only `layer_type` when not empty), as text or JSON.
// context: overrides each layer type's span when given. Throws InputError for an unknown layer type.
std::string model_spectrum_text(const ModelDescription& m, const std::string& layer_type, std::optional<long long> context);
nlohmann::json model_spectrum_json(const ModelDescription& m, const std::string& layer_type, std::optional<long long> context);

}  // namespace ropecheck

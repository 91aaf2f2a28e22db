// File: model_zoo.h
// The models ropecheck ships descriptions of: one trimmed Hugging Face config.json per model in
// src/spectrum/zoo/ (compiled into the library), each with a "_ropecheck" member naming the source
// of every value and the fields no stored source confirmed. They are read by the same reader as a
// user's config.json (hf_config.h), so a zoo entry and its config file resolve identically.
#pragma once

#include <string>
#include <vector>

#include "spectrum/hf_config.h"

namespace ropecheck {

// Returns: the zoo's names, sorted.
std::vector<std::string> zoo_names();

// Returns: the zoo model `name`. Throws InputError("model", the zoo's names or a config.json path, name).
ModelDescription zoo_model(const std::string& name, const ModelOptions& options = {});

// Returns: the model `name_or_file` names: a zoo name, else a path to a config.json (the file's
// name becomes the model's name). Throws InputError for neither, or for a bad file (hf_config.h).
ModelDescription load_model(const std::string& name_or_file, const ModelOptions& options = {});

}  // namespace ropecheck

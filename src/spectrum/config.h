// File: config.h
// Named model configurations: the head dimension, base theta, context and frequency scaling that
// released models ship (from their published configs). --config NAME fills these; explicit flags
// override them.
#pragma once

#include <string>
#include <vector>

#include "spectrum/scaling.h"

namespace ropecheck {

struct ModelConfig {
  std::string name;
  int dim;
  std::string theta;
  long long context;
  Scaling scaling;
  std::string source;  // where the numbers come from
};

// Returns: every named configuration, in a fixed order.
const std::vector<ModelConfig>& named_configs();

// Returns: "gemma-7b, gemma-2b, ...": every name, for help texts and messages.
std::string config_names();

// Returns: the configuration called `name`. Throws InputError("config", list of names, name).
const ModelConfig& find_config(const std::string& name);

}  // namespace ropecheck

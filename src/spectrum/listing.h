// File: listing.h
// What `ropecheck models` and `ropecheck spectrum` print, as text and as JSON: one route for the
// CLI and the Python module, so that both give the same rows for the same request.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "spectrum/request.h"

namespace ropecheck {

// The model zoo (model_zoo.h): one row per model and layer type (layers, rotary part, theta, span,
// attention factor, scaling). sources: also every value's source and the unconfirmed fields.
std::string zoo_text(bool sources);
// Returns: [{model, title, model_type, layer_types: [...], sources, unconfirmed}, ...].
nlohmann::json zoo_json();

// The spectrum table of a request (table.h): a model alone (no variant or scaling override) gives
// every layer type's table (only request.layer_type's when set, model_table.h); anything else the
// resolved spectrum's rows over its context. Computed at the thread's current precision
// (numeric/precision.h). Throws InputError as resolve() and load_model() do, and for a model
// given with config, dim or theta.
std::string spectrum_listing_text(const SpectrumRequest& request);
nlohmann::json spectrum_listing_json(const SpectrumRequest& request);

}  // namespace ropecheck

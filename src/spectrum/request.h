// File: request.h
// A spectrum as a user asks for it: a named configuration, explicit flags, or both (flags
// override the configuration). Shared by every CLI command and claim check, so that --config,
// --dim, --theta, the variant flags, --scaling and --context mean the same thing everywhere.
#pragma once

#include <optional>
#include <string>

#include "spectrum/limits.h"  // kMaxLengthArgument: the CLI's flags and Python's keywords take it from here
#include "spectrum/model.h"
#include "spectrum/spectrum.h"

namespace ropecheck {

struct SpectrumRequest {
  std::optional<std::string> config;    // --config NAME
  std::optional<int> dim;               // --dim D
  std::optional<std::string> theta;     // --theta T (decimal)
  std::optional<Variant> variant;       // --nope / --p-rope / --reversed / --partial
  std::string fraction = "1";           // P or F of the variant flag
  std::optional<Scaling> scaling;       // --scaling none|linear:F|llama3 (parse_scaling), or any
                                        // Scaling a spectrum file names (spectrum_json.h)
  std::optional<long long> context;     // --context N
  std::optional<std::string> model;     // --model NAME|FILE (model_zoo.h); excludes config
  std::optional<std::string> layer_type;  // --layer-type T (default: the model's first with RoPE)
  std::optional<long long> sequence_length;  // --sequence-length S: dynamic / longrope's S
  bool vllm_dynamic = false;            // --vllm-dynamic: vLLM's static dynamic-NTK rule
};

struct ResolvedSpectrum {
  std::string name;   // the configuration name, "MODEL/LAYER_TYPE" for a model, or "custom"
  Spectrum spectrum;
  long long context;  // a model's layer type: its span (model.h)
  std::optional<LayerType> layer;  // set for a model: head geometry, layout, layers
};

// Returns: the spectrum and context the request names; `fallback_config` is used when the request
// names no configuration and gives no --dim. theta defaults to 10000 (the paper's default) and the
// context to 8192 when neither a configuration nor a flag gives them.
// A model (request.model) gives the spectrum and span of one layer type; the variant, scaling and
// context flags then override it as they override a configuration (--dim and --theta are refused:
// they would describe another model). A NoPE layer type is refused: it has no spectrum.
// Throws InputError (dimension missing or odd, theta <= 1, fraction outside [0,1], context < 1,
// unknown configuration or model, a model with config, dim or theta, a NoPE layer type).
// Returns: a short name for tables: the configuration's name, or for a custom spectrum
// "d=D theta=T" followed by the variant suffix resolve() gave it (e.g. "d=128 theta=10000 (nope)").
std::string short_label(const ResolvedSpectrum& rs);

ResolvedSpectrum resolve(const SpectrumRequest& request, const std::optional<std::string>& fallback_config = std::nullopt);

// Returns: the spectrum of the named configuration, as `--config name` alone resolves it.
// Throws InputError for an unknown name.
Spectrum config_spectrum(const std::string& name);

}  // namespace ropecheck

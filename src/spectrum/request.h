// File: request.h
// A spectrum as a user asks for it: a named configuration, explicit flags, or both (flags
// override the configuration). Shared by every CLI command and claim check, so that --config,
// --dim, --theta, the variant flags, --scaling and --context mean the same thing everywhere.
#pragma once

#include <optional>
#include <string>

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
};

struct ResolvedSpectrum {
  std::string name;   // the configuration name, or "custom"
  Spectrum spectrum;
  long long context;
};

// Returns: the spectrum and context the request names; `fallback_config` is used when the request
// names no configuration and gives no --dim. theta defaults to 10000 (the paper's default) and the
// context to 8192 when neither a configuration nor a flag gives them.
// Throws InputError (dimension missing or odd, theta <= 1, fraction outside [0,1], context < 1,
// unknown configuration).
// Returns: a short name for tables: the configuration's name, or for a custom spectrum
// "d=D theta=T" followed by the variant suffix resolve() gave it (e.g. "d=128 theta=10000 (nope)").
std::string short_label(const ResolvedSpectrum& rs);

ResolvedSpectrum resolve(const SpectrumRequest& request, const std::optional<std::string>& fallback_config = std::nullopt);

// Returns: the spectrum of the named configuration, as `--config name` alone resolves it.
// Throws InputError for an unknown name.
Spectrum config_spectrum(const std::string& name);

}  // namespace ropecheck

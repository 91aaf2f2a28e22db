#include "spectrum/request.h"

#include "io/input_error.h"
#include "spectrum/config.h"

namespace ropecheck {

ResolvedSpectrum resolve(const SpectrumRequest& r, const std::optional<std::string>& fallback_config) {
  std::optional<std::string> config_name = r.config;
  if (!config_name && !r.dim) config_name = fallback_config;
  if (!config_name && !r.dim) throw InputError("dim", "an even integer >= 2 (or give --config NAME)", "");
  int dim = 0;
  std::string theta = "10000";
  long long context = 8192;
  Scaling scaling;
  std::string name = "custom";
  if (config_name) {
    const ModelConfig& c = find_config(*config_name);
    dim = c.dim;
    theta = c.theta;
    context = c.context;
    scaling = c.scaling;
    name = c.name;
  }
  const bool overridden = r.dim || r.theta || r.variant || r.scaling;
  if (r.dim) dim = *r.dim;
  if (r.theta) theta = *r.theta;
  if (r.scaling) scaling = *r.scaling;
  if (r.context) {
    if (*r.context < 1) throw InputError("context", "an integer >= 1", std::to_string(*r.context));
    context = *r.context;
  }
  if (overridden && config_name) name += "+flags";
  Spectrum s(dim, theta, r.variant.value_or(Variant::rope), r.fraction, scaling);
  if (s.variant() != Variant::rope) name += " (" + variant_name(s.variant()) + (s.variant() == Variant::nope ? "" : " " + s.fraction()) + ")";
  return {name, std::move(s), context};
}

std::string short_label(const ResolvedSpectrum& rs) {
  if (rs.name.rfind("custom", 0) != 0) return rs.name;
  return "d=" + std::to_string(rs.spectrum.dim()) + " theta=" + rs.spectrum.theta() + rs.name.substr(6);
}

Spectrum config_spectrum(const std::string& name) {
  SpectrumRequest request;
  request.config = name;
  return resolve(request).spectrum;
}

}  // namespace ropecheck

#include "spectrum/request.h"

#include "io/input_error.h"
#include "spectrum/config.h"
#include "spectrum/model_zoo.h"

namespace ropecheck {

namespace {

ResolvedSpectrum resolve_model(const SpectrumRequest& r) {
  if (r.config) throw InputError("model", "not given together with config (each names a spectrum)", *r.model);
  if (r.dim || r.theta) throw InputError(r.dim ? "dim" : "theta", "not given with a model (the model fixes it)", r.dim ? std::to_string(*r.dim) : *r.theta);
  ModelOptions options;
  options.sequence_length = r.sequence_length;
  options.vllm_dynamic = r.vllm_dynamic;
  const ModelDescription m = load_model(*r.model, options);
  const LayerType& lt = m.layer_type(r.layer_type.value_or(""));
  if (!lt.spectrum) throw InputError("layer_type", "a layer type with RoPE (" + lt.name + " layers of " + m.name + " have none)", lt.name);
  const Spectrum& base = *lt.spectrum;
  long long context = lt.span();
  if (r.context) {
    if (*r.context < 1) throw InputError("context", "an integer >= 1", std::to_string(*r.context));
    context = *r.context;
  }
  std::string name = m.name + "/" + lt.name;
  const bool overridden = r.variant || r.scaling || r.context;
  if (overridden) name += "+flags";
  Variant variant = base.variant();
  std::string fraction = base.fraction();
  if (r.variant) {
    if (base.variant() != Variant::rope)
      throw InputError("variant", "given only for a model whose layer type rotates every pair (" + name + " is " + variant_name(base.variant()) + ")", variant_name(*r.variant));
    variant = *r.variant;
    fraction = r.fraction;
  }
  Spectrum s(base.dim(), base.theta(), variant, fraction, r.scaling.value_or(base.scaling()));
  if (r.variant && s.variant() != Variant::rope) name += " (" + variant_name(s.variant()) + (s.variant() == Variant::nope ? "" : " " + s.fraction()) + ")";
  return {name, std::move(s), context, lt};
}

}  // namespace

ResolvedSpectrum resolve(const SpectrumRequest& r, const std::optional<std::string>& fallback_config) {
  if (r.model) return resolve_model(r);
  std::optional<std::string> config_name = r.config;
  if (!config_name && !r.dim) config_name = fallback_config;
  if (!config_name && !r.dim) throw InputError("dim", "an even integer >= 2 (or a named configuration or model)", "");
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
  return {name, std::move(s), context, std::nullopt};
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

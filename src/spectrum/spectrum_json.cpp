#include "spectrum/spectrum_json.h"

#include <string>
#include <vector>

#include "io/input_error.h"
#include "io/json_fields.h"
#include "spectrum/detail/spectrum_fields.h"
#include "spectrum/limits.h"
#include "spectrum/scaling_registry.h"

namespace ropecheck {

namespace {

using nlohmann::json;
using spectrum_fields::boolean_field;
using spectrum_fields::integer_at_least;

// The object form of SCALING (spectrum_json.h): "kind" names a rule of the registry, whose
// from_json reads its fields (spectrum/scaling/<kind>.cpp).
Scaling scaling_from_object(const json& j, const JsonPlace& place) {
  std::vector<std::string> names;
  for (const ScalingRuleInfo* rule : scaling_rules()) names.emplace_back(rule->name);
  const std::string kinds = or_list(names);
  const std::string kind = string_value(required(j, place, "kind", kinds), place.member("kind"), kinds);
  for (const ScalingRuleInfo* rule : scaling_rules())
    if (rule->name == kind) return rule->from_json(j, place);
  throw InputError(place.member("kind").name(), kinds, shown(j["kind"]));
}

// Re-throws an InputError of resolve() or Spectrum, which name the parameter (io/input_error.h:
// "dim", "theta", "fraction", "config", "context", "scaling"), as the field of the object at `path`.
[[noreturn]] void rethrow_at(const InputError& e, const std::string& path) {
  throw InputError(path + "." + e.input(), e.accepted(), e.got());
}

}  // namespace

json scaling_to_json(const Scaling& s) { return scaling_rule(s.kind).to_json(s); }

Scaling scaling_from_json(const json& j, const std::string& where) {
  if (j.is_object()) return scaling_from_object(j, where);
  const std::string accepted = "none, linear:F (F a decimal in (0, 2^40]), llama3, llama3:F:LOW:HIGH:C or a scaling object {\"kind\": ...}";
  const std::string text = string_value(j, where, accepted);
  try {
    return parse_scaling(text);
  } catch (const InputError&) {
    throw InputError(where, accepted, shown(j));
  }
}

json spectrum_request_to_json(const SpectrumRequest& r) {
  json j = json::object();
  if (r.config) j["config"] = *r.config;
  if (r.dim) j["dim"] = *r.dim;
  if (r.theta) j["theta"] = *r.theta;
  if (r.variant) {
    j["variant"] = variant_name(*r.variant);
    if (variant_takes_fraction(*r.variant)) j["fraction"] = r.fraction;
  }
  if (r.scaling) j["scaling"] = scaling_to_json(*r.scaling);
  if (r.model) j["model"] = *r.model;
  if (r.layer_type) j["layer_type"] = *r.layer_type;
  if (r.sequence_length) j["sequence_length"] = *r.sequence_length;
  if (r.vllm_dynamic) j["vllm_dynamic"] = true;
  return j;
}

SpectrumRequest spelled_out_request(const Spectrum& s, const std::optional<std::string>& config) {
  SpectrumRequest r;
  r.config = config;
  r.dim = s.dim();
  r.theta = s.theta();
  r.variant = s.variant();
  r.fraction = s.fraction();
  r.scaling = s.scaling();
  return r;
}

json spectrum_to_json(const Spectrum& s, const std::optional<std::string>& config) {
  return spectrum_request_to_json(spelled_out_request(s, config));
}

SpectrumRequest spectrum_request_from_json(const json& j, const std::string& where) {
  const JsonPlace place(where);
  require_object(j, place, {"config", "dim", "theta", "variant", "fraction", "scaling", "model", "layer_type", "sequence_length", "vllm_dynamic"});
  SpectrumRequest r;
  if (j.contains("model")) r.model = string_value(j["model"], place.member("model"), "a zoo model name or config.json path (string)");
  if (j.contains("layer_type")) r.layer_type = string_value(j["layer_type"], place.member("layer_type"), "a layer type name (string)");
  if (j.contains("sequence_length")) r.sequence_length = integer_at_least(j, place, "sequence_length", 1);
  if (j.contains("vllm_dynamic")) r.vllm_dynamic = boolean_field(j, place, "vllm_dynamic");
  if (j.contains("config")) r.config = string_value(j["config"], place.member("config"), "a configuration name (string)");
  if (j.contains("dim")) {
    const std::string accepted = "an even integer in [2, " + std::to_string(kMaxHeadDim) + "]";
    const long long d = integer_value(j["dim"], place.member("dim"), accepted);
    if (d < 2 || d > kMaxHeadDim) throw InputError(place.member("dim").name(), accepted, std::to_string(d));
    r.dim = static_cast<int>(d);
  }
  if (j.contains("theta")) r.theta = decimal_value(j["theta"], place.member("theta"), "a decimal > 1");
  if (j.contains("variant"))
    r.variant = parse_variant(string_value(j["variant"], place.member("variant"), "a variant name (string)"), place.member("variant").name());
  if (j.contains("fraction")) {
    if (!r.variant || !variant_takes_fraction(*r.variant))
      throw InputError(place.member("fraction").name(), "absent unless variant is p-rope, reversed or partial", shown(j["fraction"]));
    r.fraction = decimal_value(j["fraction"], place.member("fraction"), "a decimal in [0, 1]");
  } else if (r.variant && variant_takes_fraction(*r.variant)) {
    throw InputError(place.member("fraction").name(), "a decimal in [0, 1] (required with variant " + variant_name(*r.variant) + ")", "");
  }
  if (j.contains("scaling")) r.scaling = scaling_from_json(j["scaling"], place.member("scaling").name());
  if (!r.config && !r.dim && !r.model) throw InputError(place.member("dim").name(), "an even integer >= 2 (or give config or model)", "");
  return r;
}

ResolvedSpectrum resolved_from_json(const json& j, const std::string& where) {
  const SpectrumRequest r = spectrum_request_from_json(j, where);
  try {
    return resolve(r);
  } catch (const InputError& e) {
    rethrow_at(e, where);
  }
}

Spectrum spectrum_from_json(const json& j, const std::string& where) { return resolved_from_json(j, where).spectrum; }

}  // namespace ropecheck

#include "spectrum/spectrum_json.h"

#include <climits>
#include <set>
#include <stdexcept>

#include "io/input_error.h"
#include "spectrum/limits.h"
#include "spectrum/scaling_registry.h"
#include "numeric/scalar.h"
#include "io/json_fields.h"

namespace ropecheck {

namespace {

using nlohmann::json;


bool same_parameters(const Scaling& a, const Scaling& b) {
  return a.factor == b.factor && a.low_freq_factor == b.low_freq_factor && a.high_freq_factor == b.high_freq_factor &&
         a.original_context == b.original_context;
}

// A decimal parameter of a scaling object that must be > 0 (exact text kept, as Scaling holds it).
std::string positive_decimal(const json& object, const JsonPlace& place, const std::string& key) {
  const std::string accepted = "a decimal > 0";
  const std::string text = decimal_value(required(object, place, key, accepted), place.member(key), accepted);
  double v = 0;
  try {
    v = from_decimal<double>(text);
  } catch (const std::invalid_argument&) {
    throw InputError(place.member(key).name(), accepted, text);
  }
  if (!(v > 0)) throw InputError(place.member(key).name(), accepted, text);
  return text;
}

std::optional<std::string> optional_positive(const json& object, const JsonPlace& place, const std::string& key) {
  if (!object.contains(key)) return std::nullopt;
  return positive_decimal(object, place, key);
}

long long integer_at_least(const json& object, const JsonPlace& place, const std::string& key, long long min) {
  const std::string accepted = "an integer >= " + std::to_string(min);
  const long long v = integer_value(required(object, place, key, accepted), place.member(key), accepted);
  if (v < min) throw InputError(place.member(key).name(), accepted, std::to_string(v));
  return v;
}

bool boolean_field(const json& object, const JsonPlace& place, const std::string& key) {
  const json& v = required(object, place, key, "true or false");
  if (!v.is_boolean()) throw InputError(place.member(key).name(), "true or false", shown(v));
  return v.get<bool>();
}

std::vector<std::string> decimal_list(const json& object, const JsonPlace& place, const std::string& key) {
  const std::string accepted = "a list of decimals > 0";
  const json& v = required(object, place, key, accepted);
  if (!v.is_array()) throw InputError(place.member(key).name(), accepted, shown(v));
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); ++i) out.push_back(decimal_value(v[i], place.member(key).item(i), "a decimal > 0"));
  return out;
}

// The object form of SCALING (spectrum_json.h). A new kind: its case here and in scaling_to_json.
Scaling scaling_from_object(const json& j, const JsonPlace& place) {
  std::vector<std::string> names;  // every kind of the registry (scaling_registry.h)
  for (const ScalingRuleInfo* rule : scaling_rules()) names.emplace_back(rule->name);
  const std::string kinds = or_list(names);
  const std::string kind = string_value(required(j, place, "kind", kinds), place.member("kind"), kinds);
  Scaling s;
  if (kind == "none") {
    refuse_unknown_keys(j, place, {"kind"}, "a scaling of kind none");
  } else if (kind == "linear") {
    refuse_unknown_keys(j, place, {"kind", "factor"}, "a scaling of kind linear");
    s = Scaling::linear(positive_decimal(j, place, "factor"));
  } else if (kind == "llama3") {
    refuse_unknown_keys(j, place, {"kind", "factor", "low_freq_factor", "high_freq_factor", "original_context"}, "a scaling of kind llama3");
    s = Scaling::llama3(positive_decimal(j, place, "factor"), positive_decimal(j, place, "low_freq_factor"),
                        positive_decimal(j, place, "high_freq_factor"), integer_at_least(j, place, "original_context", 1));
    // Exact decimal comparison (scaling.cpp): low = high is Llama 4 Scout's hard cut.
    try {
      check_scaling(s, 1);
    } catch (const InputError& e) {
      throw InputError(place.member("high_freq_factor").name(), e.accepted(), e.got());
    }
  } else if (kind == "dynamic") {
    refuse_unknown_keys(j, place, {"kind", "factor", "max_position", "sequence_length", "vllm_static"}, "a scaling of kind dynamic");
    s.kind = Scaling::Kind::dynamic;
    s.factor = positive_decimal(j, place, "factor");
    s.max_position = integer_at_least(j, place, "max_position", 1);
    s.sequence_length = integer_at_least(j, place, "sequence_length", 0);
    s.vllm_static = boolean_field(j, place, "vllm_static");
  } else if (kind == "yarn") {
    refuse_unknown_keys(j, place, {"kind", "factor", "original_context", "beta_fast", "beta_slow", "truncate", "attention_factor", "mscale", "mscale_all_dim"},
                        "a scaling of kind yarn");
    s.kind = Scaling::Kind::yarn;
    s.factor = positive_decimal(j, place, "factor");
    s.original_context = integer_at_least(j, place, "original_context", 1);
    s.beta_fast = positive_decimal(j, place, "beta_fast");
    s.beta_slow = positive_decimal(j, place, "beta_slow");
    s.truncate = boolean_field(j, place, "truncate");
    s.attention_factor = optional_positive(j, place, "attention_factor");
    if (j.contains("mscale")) s.mscale = decimal_value(j["mscale"], place.member("mscale"), "a decimal");
    if (j.contains("mscale_all_dim")) s.mscale_all_dim = decimal_value(j["mscale_all_dim"], place.member("mscale_all_dim"), "a decimal");
  } else if (kind == "longrope") {
    refuse_unknown_keys(j, place, {"kind", "factor", "original_context", "max_position", "sequence_length", "short_factor", "long_factor", "attention_factor"},
                        "a scaling of kind longrope");
    s.kind = Scaling::Kind::longrope;
    s.factor = j.contains("factor") ? positive_decimal(j, place, "factor") : "";
    s.original_context = integer_at_least(j, place, "original_context", 1);
    s.max_position = integer_at_least(j, place, "max_position", 0);
    s.sequence_length = integer_at_least(j, place, "sequence_length", 0);
    s.short_factor = decimal_list(j, place, "short_factor");
    s.long_factor = decimal_list(j, place, "long_factor");
    s.attention_factor = optional_positive(j, place, "attention_factor");
  } else {
    throw InputError(place.member("kind").name(), kinds, shown(j["kind"]));
  }
  return s;
}

// Re-throws an InputError of resolve() or Spectrum, which name the parameter (io/input_error.h:
// "dim", "theta", "fraction", "config", "context", "scaling"), as the field of the object at `path`.
[[noreturn]] void rethrow_at(const InputError& e, const std::string& path) {
  throw InputError(path + "." + e.input(), e.accepted(), e.got());
}

}  // namespace

json scaling_to_json(const Scaling& s) {
  const std::string kind = scaling_kind_name(s.kind);
  switch (s.kind) {
    case Scaling::Kind::none: return "none";
    case Scaling::Kind::linear: return "linear:" + s.factor;
    case Scaling::Kind::llama3:
      if (same_parameters(s, Scaling::llama3_1())) return "llama3";
      return json{{"kind", kind},
                  {"factor", s.factor},
                  {"low_freq_factor", s.low_freq_factor},
                  {"high_freq_factor", s.high_freq_factor},
                  {"original_context", s.original_context}};
    case Scaling::Kind::dynamic:
      return json{{"kind", kind}, {"factor", s.factor}, {"max_position", s.max_position}, {"sequence_length", s.sequence_length},
                  {"vllm_static", s.vllm_static}};
    case Scaling::Kind::yarn: {
      json j{{"kind", kind}, {"factor", s.factor}, {"original_context", s.original_context}, {"beta_fast", s.beta_fast},
             {"beta_slow", s.beta_slow}, {"truncate", s.truncate}};
      if (s.attention_factor) j["attention_factor"] = *s.attention_factor;
      if (s.mscale) j["mscale"] = *s.mscale;
      if (s.mscale_all_dim) j["mscale_all_dim"] = *s.mscale_all_dim;
      return j;
    }
    case Scaling::Kind::longrope: {
      json j{{"kind", kind}, {"original_context", s.original_context}, {"max_position", s.max_position},
             {"sequence_length", s.sequence_length}, {"short_factor", s.short_factor}, {"long_factor", s.long_factor}};
      if (!s.factor.empty()) j["factor"] = s.factor;
      if (s.attention_factor) j["attention_factor"] = *s.attention_factor;
      return j;
    }
  }
  return "none";
}

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

#include "spectrum/spectrum_json.h"

#include <climits>
#include <set>
#include <stdexcept>

#include "io/input_error.h"
#include "numeric/scalar.h"
#include "io/json_fields.h"

namespace ropecheck {

namespace {

using nlohmann::json;

bool takes_fraction(Variant v) { return v == Variant::p_rope || v == Variant::reversed || v == Variant::partial; }

const char* kind_name(Scaling::Kind k) {
  switch (k) {
    case Scaling::Kind::none: return "none";
    case Scaling::Kind::linear: return "linear";
    case Scaling::Kind::llama3: return "llama3";
  }
  return "none";
}

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

// The object form of SCALING (spectrum_json.h). A new kind: its case here and in scaling_to_json.
Scaling scaling_from_object(const json& j, const JsonPlace& place) {
  const std::string kinds = "none, linear or llama3";
  const std::string kind = string_value(required(j, place, "kind", kinds), place.member("kind"), kinds);
  Scaling s;
  if (kind == "none") {
    refuse_unknown_keys(j, place, {"kind"}, "a scaling of kind none");
  } else if (kind == "linear") {
    refuse_unknown_keys(j, place, {"kind", "factor"}, "a scaling of kind linear");
    s = Scaling::linear(positive_decimal(j, place, "factor"));
  } else if (kind == "llama3") {
    refuse_unknown_keys(j, place, {"kind", "factor", "low_freq_factor", "high_freq_factor", "original_context"}, "a scaling of kind llama3");
    s.kind = Scaling::Kind::llama3;
    s.factor = positive_decimal(j, place, "factor");
    s.low_freq_factor = positive_decimal(j, place, "low_freq_factor");
    s.high_freq_factor = positive_decimal(j, place, "high_freq_factor");
    // Rounding to binary64 is monotone: high > low in doubles implies it for the exact decimals (a
    // pair too close for binary64 to separate is refused, never wrongly accepted).
    if (!(from_decimal<double>(s.high_freq_factor) > from_decimal<double>(s.low_freq_factor)))
      throw InputError(place.member("high_freq_factor").name(), "a decimal > low_freq_factor (" + s.low_freq_factor + ")", s.high_freq_factor);
    const std::string context_accepted = "an integer >= 1";
    s.original_context = integer_value(required(j, place, "original_context", context_accepted), place.member("original_context"), context_accepted);
    if (s.original_context < 1) throw InputError(place.member("original_context").name(), context_accepted, std::to_string(s.original_context));
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
  switch (s.kind) {
    case Scaling::Kind::none: return "none";
    case Scaling::Kind::linear: return "linear:" + s.factor;
    case Scaling::Kind::llama3:
      if (same_parameters(s, Scaling::llama3_1())) return "llama3";
      return json{{"kind", kind_name(s.kind)},
                  {"factor", s.factor},
                  {"low_freq_factor", s.low_freq_factor},
                  {"high_freq_factor", s.high_freq_factor},
                  {"original_context", s.original_context}};
  }
  return "none";
}

Scaling scaling_from_json(const json& j, const std::string& where) {
  if (j.is_object()) return scaling_from_object(j, where);
  const std::string accepted = "none, linear:F (F a decimal > 0), llama3 or a scaling object {\"kind\": ...}";
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
    if (takes_fraction(*r.variant)) j["fraction"] = r.fraction;
  }
  if (r.scaling) j["scaling"] = scaling_to_json(*r.scaling);
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
  require_object(j, place, {"config", "dim", "theta", "variant", "fraction", "scaling"});
  SpectrumRequest r;
  if (j.contains("config")) r.config = string_value(j["config"], place.member("config"), "a configuration name (string)");
  if (j.contains("dim")) {
    const std::string accepted = "an even integer >= 2";
    const long long d = integer_value(j["dim"], place.member("dim"), accepted);
    if (d < 2 || d > INT_MAX) throw InputError(place.member("dim").name(), accepted, std::to_string(d));
    r.dim = static_cast<int>(d);
  }
  if (j.contains("theta")) r.theta = decimal_value(j["theta"], place.member("theta"), "a decimal > 1");
  if (j.contains("variant"))
    r.variant = parse_variant(string_value(j["variant"], place.member("variant"), "a variant name (string)"), place.member("variant").name());
  if (j.contains("fraction")) {
    if (!r.variant || !takes_fraction(*r.variant))
      throw InputError(place.member("fraction").name(), "absent unless variant is p-rope, reversed or partial", shown(j["fraction"]));
    r.fraction = decimal_value(j["fraction"], place.member("fraction"), "a decimal in [0, 1]");
  } else if (r.variant && takes_fraction(*r.variant)) {
    throw InputError(place.member("fraction").name(), "a decimal in [0, 1] (required with variant " + variant_name(*r.variant) + ")", "");
  }
  if (j.contains("scaling")) r.scaling = scaling_from_json(j["scaling"], place.member("scaling").name());
  if (!r.config && !r.dim) throw InputError(place.member("dim").name(), "an even integer >= 2 (or give config)", "");
  return r;
}

Spectrum spectrum_from_json(const json& j, const std::string& where) {
  const SpectrumRequest r = spectrum_request_from_json(j, where);
  try {
    return resolve(r).spectrum;
  } catch (const InputError& e) {
    rethrow_at(e, where);
  }
}

}  // namespace ropecheck

#include "montecarlo/experiment.h"

#include <cmath>
#include <cstdint>

#include "io/input_error.h"
#include "spectrum/limits.h"
#include "io/json_fields.h"
#include "spectrum/spectrum_json.h"

namespace ropecheck::montecarlo {

std::string experiment_name(Experiment e) {
  switch (e) {
    case Experiment::fig2a: return "fig2a";
    case Experiment::fig2b: return "fig2b";
    case Experiment::fig9: return "fig9";
    case Experiment::fig8: return "fig8";
    case Experiment::variance: return "variance";
  }
  return "?";
}

Experiment parse_experiment(const std::string& text) {
  for (Experiment e : {Experiment::fig2a, Experiment::fig2b, Experiment::fig9, Experiment::fig8, Experiment::variance})
    if (text == experiment_name(e)) return e;
  throw InputError("--experiment", "fig2a, fig2b, fig9, fig8 or variance", text);
}

// Monte Carlo's arithmetics (simulate.cpp): binary64 and the kernel in f32 or bf16.
constexpr Dtype kArithDtypes[] = {Dtype::f64, Dtype::f32, Dtype::bf16};
Dtype parse_arith(const std::string& text) { return parse_dtype(text, "--arith", kArithDtypes); }

std::int64_t Params::near_end() const { return static_cast<std::int64_t>(std::llround(static_cast<double>(max_distance) / 100.0)); }

std::int64_t Params::far_begin() const {
  // ceil(0.8 R) in integers: (4 R + 4) / 5.
  return (4 * max_distance + 4) / 5;
}

bool Params::deterministic() const { return experiment == Experiment::fig2a; }

namespace {

using nlohmann::json;

// ---- version 1 of the files: the spectrum object before spectrum/spectrum_json.h ----
// Kept to read (and check the round trip of) the partials and results written before; nothing
// writes it into a new file.

json v1_spectrum_json(const Spectrum& s) {
  const Scaling& sc = s.scaling();
  return {{"dim", s.dim()},
          {"theta", s.theta()},
          {"variant", variant_name(s.variant())},
          {"fraction", s.fraction()},
          {"scaling",
           {{"kind", scaling_kind_name(sc.kind)},
            {"factor", sc.factor},
            {"low_freq_factor", sc.low_freq_factor},
            {"high_freq_factor", sc.high_freq_factor},
            {"original_context", sc.original_context}}},
          {"describe", s.describe()}};
}

Spectrum v1_spectrum_from_json(const json& j, const JsonPlace& place) {
  require_object(j, place, {"dim", "theta", "variant", "fraction", "scaling", "describe"});
  const std::string text = "a string";
  const json& sj = required(j, place, "scaling", "a scaling object");
  const JsonPlace sp = place.member("scaling");
  require_object(sj, sp, {"kind", "factor", "low_freq_factor", "high_freq_factor", "original_context"});
  Scaling scaling;
  const std::string kind = string_value(required(sj, sp, "kind", "none, linear or llama3"), sp.member("kind"), "none, linear or llama3");
  if (kind == "none") scaling.kind = Scaling::Kind::none;
  else if (kind == "linear") scaling.kind = Scaling::Kind::linear;
  else if (kind == "llama3") scaling.kind = Scaling::Kind::llama3;
  else throw InputError(sp.member("kind").name(), "none, linear or llama3", kind);
  scaling.factor = string_value(required(sj, sp, "factor", text), sp.member("factor"), text);
  scaling.low_freq_factor = string_value(required(sj, sp, "low_freq_factor", text), sp.member("low_freq_factor"), text);
  scaling.high_freq_factor = string_value(required(sj, sp, "high_freq_factor", text), sp.member("high_freq_factor"), text);
  scaling.original_context =
      integer_value(required(sj, sp, "original_context", "an integer"), sp.member("original_context"), "an integer");
  const std::string v = string_value(required(j, place, "variant", text), place.member("variant"), text);
  const Variant variant = parse_variant(v, place.member("variant").name());
  const std::string dims = "an even integer in [2, " + std::to_string(kMaxHeadDim) + "]";
  const long long dim = integer_value(required(j, place, "dim", dims), place.member("dim"), dims);
  if (dim < 2 || dim > kMaxHeadDim) throw InputError(place.member("dim").name(), dims, std::to_string(dim));
  const std::string theta = string_value(required(j, place, "theta", text), place.member("theta"), text);
  const std::string fraction = string_value(required(j, place, "fraction", text), place.member("fraction"), text);
  string_value(required(j, place, "describe", text), place.member("describe"), text);  // informational: the round trip checks it
  try {
    return Spectrum(static_cast<int>(dim), theta, variant, fraction, scaling);
  } catch (const InputError& e) {
    throw InputError(place.member(e.input()).name(), e.accepted(), e.got());  // e names the parameter: dim, theta, fraction
  }
}

json spectrum_json(const Spectrum& s, int version) { return version == 1 ? v1_spectrum_json(s) : spectrum_to_json(s); }

Spectrum spectrum_of(const json& j, const JsonPlace& place, int version) {
  return version == 1 ? v1_spectrum_from_json(j, place) : spectrum_from_json(j, place.name());
}

}  // namespace

nlohmann::json Params::to_json(int version) const {
  nlohmann::json j;
  j["experiment"] = experiment_name(experiment);
  j["arith"] = dtype_name(arith);
  j["seed"] = seed;
  j["max_distance"] = max_distance;
  j["fig8_n"] = fig8_n;
  j["base_position"] = base_position;
  j["level"] = level;
  j["alpha"] = alpha;
  j["near_window"] = {0, near_end()};
  j["far_window"] = {far_begin(), max_distance};
  j["rng"] = "Philox4x32-10 (Random123), stream = code<<56 | distance<<32 | trial; normals: Box-Muller, own log/sin/cos";
  nlohmann::json series_json = nlohmann::json::array();
  for (const SeriesSpec& s : series) {
    series_json.push_back({{"label", s.label},
                           {"spectrum_name", s.spectrum_name},
                           {"spectrum", spectrum_json(s.spectrum, version)},
                           {"vectors", s.vectors == Vectors::ones ? "ones" : "gaussian"},
                           {"L", s.L},
                           {"trials", s.trials},
                           {"code", s.code}});
  }
  j["series"] = series_json;
  return j;
}

Params Params::from_json(const nlohmann::json& j, const std::string& input, int version) {
  if (version != 1 && version != kFileVersion)
    throw InputError(input, "a Monte Carlo file of version 1 or " + std::to_string(kFileVersion), "version " + std::to_string(version));
  const JsonPlace place = JsonPlace::document(input).member("params");
  // Every field to_json writes; the round trip below checks their values, so here only what is read.
  require_object(j, place,
                 {"experiment", "arith", "seed", "max_distance", "fig8_n", "base_position", "level", "alpha", "near_window", "far_window", "rng",
                  "series"});
  const auto text = [&](const json& object, const JsonPlace& at, const char* key) {
    return string_value(required(object, at, key, "a string"), at.member(key), "a string");
  };
  const auto integer = [&](const json& object, const JsonPlace& at, const char* key) {
    return static_cast<std::int64_t>(integer_value(required(object, at, key, "an integer"), at.member(key), "an integer"));
  };
  const auto number = [&](const char* key) { return number_value(required(j, place, key, "a number"), place.member(key), "a number"); };
  Params p;
  p.experiment = parse_experiment(text(j, place, "experiment"));
  p.arith = parse_arith(text(j, place, "arith"));
  p.seed = unsigned_value(required(j, place, "seed", "an integer in [0, 2^64)"), place.member("seed"), "an integer in [0, 2^64)");
  p.max_distance = integer(j, place, "max_distance");
  p.fig8_n = integer(j, place, "fig8_n");
  p.base_position = integer(j, place, "base_position");
  p.level = number("level");
  p.alpha = number("alpha");
  const json& series = required(j, place, "series", "a list of series");
  if (!series.is_array()) throw InputError(place.member("series").name(), "a list of series", shown(series));
  for (std::size_t i = 0; i < series.size(); ++i) {
    const json& s = series[i];
    const JsonPlace at = place.member("series").item(i);
    require_object(s, at, {"label", "spectrum_name", "spectrum", "vectors", "L", "trials", "code"});
    SeriesSpec spec{text(s, at, "label"), text(s, at, "spectrum_name"),
                    spectrum_of(required(s, at, "spectrum", "a spectrum object"), at.member("spectrum"), version)};
    const std::string vectors = text(s, at, "vectors");
    if (vectors != "ones" && vectors != "gaussian") throw InputError(at.member("vectors").name(), "ones or gaussian", vectors);
    spec.vectors = vectors == "ones" ? Vectors::ones : Vectors::gaussian;
    spec.L = integer(s, at, "L");
    spec.trials = integer(s, at, "trials");
    const std::int64_t code = integer(s, at, "code");
    if (code < 0 || code > UINT32_MAX) throw InputError(at.member("code").name(), "an integer in [0, 2^32)", std::to_string(code));
    spec.code = static_cast<std::uint32_t>(code);
    p.series.push_back(std::move(spec));
  }
  // The round trip must be exact: anything to_json() would write differently was edited.
  if (p.to_json(version) != j)
    throw InputError(place.name(), "params exactly as ropecheck writes the values they name", "params that differ: edited");
  return p;
}

std::int64_t default_trials(int d) {
  // ceil(1.1e6 / d) in integers.
  return (1100000 + d - 1) / d;
}

}  // namespace ropecheck::montecarlo

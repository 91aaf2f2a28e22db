#include "montecarlo/experiment.h"

#include <cmath>

#include "io/input_error.h"

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

Dtype parse_arith(const std::string& text) { return parse_dtype(text, "--arith", kAllDtypes); }

std::int64_t Params::near_end() const { return static_cast<std::int64_t>(std::llround(static_cast<double>(max_distance) / 100.0)); }

std::int64_t Params::far_begin() const {
  // ceil(0.8 R) in integers: (4 R + 4) / 5.
  return (4 * max_distance + 4) / 5;
}

bool Params::deterministic() const { return experiment == Experiment::fig2a; }

namespace {

std::string scaling_kind(Scaling::Kind k) {
  switch (k) {
    case Scaling::Kind::none: return "none";
    case Scaling::Kind::linear: return "linear";
    case Scaling::Kind::llama3: return "llama3";
  }
  return "?";
}

nlohmann::json spectrum_json(const Spectrum& s) {
  const Scaling& sc = s.scaling();
  return {{"dim", s.dim()},
          {"theta", s.theta()},
          {"variant", variant_name(s.variant())},
          {"fraction", s.fraction()},
          {"scaling",
           {{"kind", scaling_kind(sc.kind)},
            {"factor", sc.factor},
            {"low_freq_factor", sc.low_freq_factor},
            {"high_freq_factor", sc.high_freq_factor},
            {"original_context", sc.original_context}}},
          {"describe", s.describe()}};
}

}  // namespace

nlohmann::json Params::to_json() const {
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
                           {"spectrum", spectrum_json(s.spectrum)},
                           {"vectors", s.vectors == Vectors::ones ? "ones" : "gaussian"},
                           {"L", s.L},
                           {"trials", s.trials},
                           {"code", s.code}});
  }
  j["series"] = series_json;
  return j;
}

namespace {

[[noreturn]] void bad_field(const std::string& input, const std::string& field, const std::string& why) {
  throw InputError(input, "a ropecheck Monte Carlo file (field \"" + field + "\": " + why + ")", "a file that does not match");
}

template <typename T>
T field(const nlohmann::json& j, const char* name, const std::string& input) {
  if (!j.is_object() || !j.contains(name)) bad_field(input, name, "missing");
  try {
    return j.at(name).get<T>();
  } catch (const nlohmann::json::exception&) {
    bad_field(input, name, "wrong type");
  }
}

Scaling scaling_from_json(const nlohmann::json& j, const std::string& input) {
  Scaling s;
  const std::string kind = field<std::string>(j, "kind", input);
  if (kind == "none") s.kind = Scaling::Kind::none;
  else if (kind == "linear") s.kind = Scaling::Kind::linear;
  else if (kind == "llama3") s.kind = Scaling::Kind::llama3;
  else bad_field(input, "scaling.kind", "unknown kind " + kind);
  s.factor = field<std::string>(j, "factor", input);
  s.low_freq_factor = field<std::string>(j, "low_freq_factor", input);
  s.high_freq_factor = field<std::string>(j, "high_freq_factor", input);
  s.original_context = field<long long>(j, "original_context", input);
  return s;
}

Spectrum spectrum_from_json(const nlohmann::json& j, const std::string& input) {
  const std::string v = field<std::string>(j, "variant", input);
  Variant variant = Variant::rope;
  bool known = false;
  for (Variant c : {Variant::rope, Variant::nope, Variant::p_rope, Variant::reversed, Variant::partial})
    if (variant_name(c) == v) variant = c, known = true;
  if (!known) bad_field(input, "spectrum.variant", "unknown variant " + v);
  if (!j.contains("scaling")) bad_field(input, "spectrum.scaling", "missing");
  return Spectrum(field<int>(j, "dim", input), field<std::string>(j, "theta", input), variant, field<std::string>(j, "fraction", input),
                  scaling_from_json(j.at("scaling"), input));
}

}  // namespace

Params Params::from_json(const nlohmann::json& j, const std::string& input) {
  Params p;
  p.experiment = parse_experiment(field<std::string>(j, "experiment", input));
  p.arith = parse_arith(field<std::string>(j, "arith", input));
  p.seed = field<std::uint64_t>(j, "seed", input);
  p.max_distance = field<std::int64_t>(j, "max_distance", input);
  p.fig8_n = field<std::int64_t>(j, "fig8_n", input);
  p.base_position = field<std::int64_t>(j, "base_position", input);
  p.level = field<double>(j, "level", input);
  p.alpha = field<double>(j, "alpha", input);
  if (!j.contains("series") || !j.at("series").is_array()) bad_field(input, "series", "missing");
  for (const nlohmann::json& s : j.at("series")) {
    SeriesSpec spec{field<std::string>(s, "label", input), field<std::string>(s, "spectrum_name", input),
                    spectrum_from_json(s.contains("spectrum") ? s.at("spectrum") : nlohmann::json::object(), input)};
    const std::string vectors = field<std::string>(s, "vectors", input);
    if (vectors != "ones" && vectors != "gaussian") bad_field(input, "series.vectors", "ones or gaussian");
    spec.vectors = vectors == "ones" ? Vectors::ones : Vectors::gaussian;
    spec.L = field<std::int64_t>(s, "L", input);
    spec.trials = field<std::int64_t>(s, "trials", input);
    spec.code = field<std::uint32_t>(s, "code", input);
    p.series.push_back(std::move(spec));
  }
  // The round trip must be exact: anything to_json() would write differently was edited.
  if (p.to_json() != j) bad_field(input, "params", "inconsistent with the values it names");
  return p;
}

std::int64_t default_trials(int d) {
  // ceil(1.1e6 / d) in integers.
  return (1100000 + d - 1) / d;
}

}  // namespace ropecheck::montecarlo

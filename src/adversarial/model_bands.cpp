#include "adversarial/model_bands.h"

#include <chrono>

#include "adversarial/certify.h"
#include "adversarial/presets.h"
#include "io/input_error.h"
#include "numeric/decimal.h"

#include <cstdio>
#include "numeric/precision.h"
#include "spectrum/attention_factor.h"
#include "spectrum/model_zoo.h"

namespace ropecheck::adversarial {
Head model_band_head(const std::string& model, const std::string& layer_type, bool p_rope_control) {
  Head head;
  head.spectrum_request.model = model;
  if (!layer_type.empty()) head.spectrum_request.layer_type = layer_type;
  const Spectrum spectrum = resolve(head.spectrum_request).spectrum;
  if (spectrum.rotated_pairs() < kBandPairs)
    throw InputError("layer_type", "a layer type with at least 8 rotating pairs", model + " " + layer_type);
  const std::vector<int> pairs = lowest_pairs(spectrum, kBandPairs);
  double a2 = 1;
  {
    ScopedPrecision precision(128);
    const double a = to_double(midpoint(attention_factor<Interval>(spectrum.scaling())));
    a2 = a * a;
  }
  head.spectrum = p_rope_control ? Spectrum(spectrum.dim(), spectrum.theta(), Variant::p_rope, "0.75", spectrum.scaling()) : spectrum;
  const auto dim = static_cast<std::size_t>(head.spectrum.dim());
  head.query.assign(dim, 0.0);
  head.target.assign(dim, 0.0);
  std::vector<double> distractor(dim, 0.0);
  for (int p : pairs)
    for (int c = 0; c < 2; ++c) {
      head.query[2 * p + c] = kApostropheQuery[c] * a2;
      head.target[2 * p + c] = kApostropheTarget[c] * kBandKeyScale;
      distractor[2 * p + c] = kApostropheDistractor[c] * kBandKeyScale;
    }
  head.distractors = {distractor};
  validate(head);
  return head;
}

ModelBand model_band(const std::string& model, const std::string& layer_type, long long max_context) {
  const auto t0 = std::chrono::steady_clock::now();
  ModelBand b;
  const ModelDescription m = load_model(model);
  const LayerType& lt = m.layer_type(layer_type);
  b.model = model;
  b.layer_type = lt.name;
  b.span = lt.span();
  const Head head = model_band_head(model, lt.name);
  b.rotating_pairs = head.spectrum.rotated_pairs();
  b.pairs = active_chunks(head);  // the band: the only chunks where the query and a key are non-zero
  b.attention_factor = attention_factor_text(head.spectrum.scaling());
  b.max_context = max_context;
  b.scan = scan_and_certify(head, max_context, true);
  if (b.scan.found && b.scan.minimal.none_shorter == Decision::yes) b.breaks_inside = b.scan.candidate.context <= b.span;
  else if (b.scan.none_certified) b.breaks_inside = max_context >= b.span ? std::optional<bool>(false) : std::nullopt;
  try {
    const Head control = model_band_head(model, lt.name, true);
    if (position_free(control)) {
      const PositionFreeCertificate c = certify_position_free(control, max_context);
      b.control_position_free = c.holds;
      b.control = c.holds == Decision::yes ? "position-free (certified): the band's pairs do not rotate under p-RoPE 0.75"
                                           : "position-free by its spectrum, certificate undecided";
    } else {
      b.control_position_free = Decision::no;
      const ScanResult r = scan_and_certify(control, max_context, true);
      b.control = r.found ? "rotates under p-RoPE 0.75 too; breaks at " + std::to_string(r.candidate.context)
                          : r.none_certified ? "rotates under p-RoPE 0.75; no break up to " + std::to_string(max_context) + " (certified)"
                                             : "rotates under p-RoPE 0.75; search undecided";
    }
  } catch (const InputError& e) {
    b.control = std::string("no p-RoPE 0.75 control: ") + e.what();
  }
  b.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return b;
}

}  // namespace ropecheck::adversarial

namespace ropecheck::adversarial {
namespace {

std::string break_text(const ModelBand& b) {
  if (b.scan.found) return std::to_string(b.scan.candidate.context) + (b.scan.minimal.none_shorter == Decision::yes ? "" : " (minimality undecided)");
  if (b.scan.none_certified) return "none <= " + std::to_string(b.max_context);
  return "undecided";
}

std::string inside_text(const ModelBand& b) {
  if (!b.breaks_inside) return "?";
  return *b.breaks_inside ? "INSIDE" : "outside";
}

}  // namespace

std::string model_band_header() {
  char line[256];
  std::snprintf(line, sizeof line, "%-18s %-18s %10s %4s %-8.8s %-9s %-22s %-8s %s", "model", "layer type", "span", "rot", "af", "band",
                "shortest break", "break", "p-RoPE 0.75 control");
  return line;
}

std::string model_band_row(const ModelBand& b) {
  char line[512];
  const std::string band = b.pairs.empty() ? "-" : std::to_string(b.pairs.front()) + ".." + std::to_string(b.pairs.back());
  std::snprintf(line, sizeof line, "%-18s %-18s %10lld %4d %-8.8s %-9s %-22s %-8s %s", b.model.c_str(), b.layer_type.c_str(), b.span,
                b.rotating_pairs, b.attention_factor.c_str(), band.c_str(), break_text(b).c_str(), inside_text(b).c_str(),
                b.control_position_free == Decision::yes ? "never breaks (position-free, certified)" : b.control.c_str());
  return line;
}

nlohmann::json model_band_json(const ModelBand& b) {
  nlohmann::json j = {{"model", b.model},
                      {"layer_type", b.layer_type},
                      {"span", b.span},
                      {"rotating_pairs", b.rotating_pairs},
                      {"band_pairs", b.pairs},
                      {"attention_factor", b.attention_factor},
                      {"max_context", b.max_context},
                      {"search", b.scan.search},
                      {"shortest_break", b.scan.found ? nlohmann::json(b.scan.candidate.context) : nlohmann::json(nullptr)},
                      {"minimal", b.scan.found ? decision_name(b.scan.minimal.none_shorter) : "-"},
                      {"none_up_to_max_certified", b.scan.none_certified},
                      {"breaks_inside_span", b.breaks_inside ? nlohmann::json(*b.breaks_inside) : nlohmann::json(nullptr)},
                      {"control_position_free", decision_name(b.control_position_free)},
                      {"control", b.control}};
  if (b.scan.found) {
    j["alpha_before"] = decimal_interval_text(b.scan.check.before.alpha, 10);
    j["alpha_after"] = decimal_interval_text(b.scan.check.after.alpha, 10);
    j["target_distance_before"] = b.scan.candidate.distance_before;
    j["target_distance_after"] = b.scan.candidate.distance_after;
    j["certified_by"] = b.scan.check.method;
  }
  return j;
}

}  // namespace ropecheck::adversarial

#include "adversarial/presets.h"

#include <algorithm>
#include <filesystem>

#include "adversarial/counterexample.h"
#include "io/input_error.h"
#include "io/json_fields.h"
#include "io/json_reader.h"
#include "spectrum/lowest_pairs.h"

namespace ropecheck::adversarial {

namespace {


// The paper's "pair 119" counts from 1; proofs/semantic-channel.cpp takes frequencies(gemma-7b)[118], i.e.
// g = 10000^(-236/256), and so does this preset: 0-based index 118 (1-based pair 119).
constexpr int kApostrophePair = 118;

const std::string kPRopeSuffix = "-p-rope-0.75";

struct Preset {
  std::string name;
  std::string config;
  bool band;
};

const std::vector<Preset>& base_presets() {
  static const std::vector<Preset> presets = {
      {"gemma-7b-apostrophe", "gemma-7b", false},
      {"gemma-7b-band8", "gemma-7b", true},
      {"llama-3.1-8b-band8", "llama-3.1-8b", true},
  };
  return presets;
}

[[noreturn]] void unknown_preset(const std::string& name) {
  std::string names;
  for (const auto& n : preset_names()) names += (names.empty() ? "" : ", ") + n;
  throw InputError("--config", "a preset (" + names + ") or a head JSON file", name);
}

Head make_head(const Preset& preset, bool p_rope) {
  Head head;
  head.spectrum_request.config = preset.config;
  // The channel's pairs are chosen on the RoPE spectrum, then the same pairs are kept under p-RoPE
  // 0.75, where they are among the removed (g = 0) band: the control of the third case.
  const Spectrum rope = resolve(head.spectrum_request).spectrum;
  const std::vector<int> pairs = preset.band ? lowest_pairs(rope, kBandPairs) : std::vector<int>{kApostrophePair};
  if (p_rope) {
    head.spectrum_request.variant = Variant::p_rope;
    head.spectrum_request.fraction = "0.75";
  }
  head.spectrum = resolve(head.spectrum_request).spectrum;
  const auto dim = static_cast<std::size_t>(head.spectrum.dim());
  const double scale = preset.band ? kBandKeyScale : 1.0;
  head.query.assign(dim, 0.0);
  head.target.assign(dim, 0.0);
  std::vector<double> distractor(dim, 0.0);
  for (int p : pairs) {
    for (int c = 0; c < 2; ++c) {
      head.query[2 * p + c] = kApostropheQuery[c];
      head.target[2 * p + c] = kApostropheTarget[c] * scale;
      distractor[2 * p + c] = kApostropheDistractor[c] * scale;
    }
  }
  head.distractors = {distractor};
  head.notion = Notion::attention;
  head.epsilon = "0.1";
  head.break_at = "0.5";
  return head;
}

}  // namespace

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& p : base_presets()) names.push_back(p.name);
  for (const auto& p : base_presets()) names.push_back(p.name + kPRopeSuffix);
  return names;
}

Head preset_head(const std::string& name) {
  for (const auto& p : base_presets()) {
    if (name == p.name) return make_head(p, false);
    if (name == p.name + kPRopeSuffix) return make_head(p, true);
  }
  unknown_preset(name);
}

Head load_head(const std::string& name_or_file) {
  const auto names = preset_names();
  if (std::find(names.begin(), names.end(), name_or_file) != names.end()) return preset_head(name_or_file);
  std::error_code ec;
  if (!std::filesystem::exists(name_or_file, ec)) unknown_preset(name_or_file);
  const nlohmann::json j = read_json_file(name_or_file);
  // A counterexample file also names a head: its "head" is taken (the rest is checked too, so a
  // broken file is not half-used).
  if (j.is_object() && j.contains("format")) return counterexample_from_json(j, name_or_file).head;
  if (j.is_object() && j.contains("head")) {
    if (j.size() != 1) {
      for (const auto& item : j.items())
        if (item.key() != "head")
          throw InputError(name_or_file + ": " + item.key(), "absent: a head file holds {\"head\": {...}} or a bare head object",
                           "an unknown key");
    }
    return head_from_json(j["head"], name_or_file);
  }
  return head_from_json(j, name_or_file);
}

}  // namespace ropecheck::adversarial

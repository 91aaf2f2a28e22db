// File: model_bands.h
// Do a model's semantic channels survive its own context? The paper's semantic channel (Appendix
// E.1's apostrophe vectors, presets.h) spread over a layer type's 8 lowest rotating pairs (keys
// scaled by 1/8, so the activation at distance 0 is the single channel's), with the model's
// attention factor a applied: a multiplies cos and sin of both q and k, so every rotated pair's
// product is multiplied by a^2; the head's query components are RN(a^2 q) and the head certified
// is exactly those numbers (head.h). The shortest context at which one swap breaks it
// (scan_and_certify: certified, minimal, or certified not to break up to max_context) is compared
// with the layer type's span (LayerType::span: its context, or its sliding window).
// The control: the same vectors on the same pairs under p-RoPE 0.75 of the same spectrum (the
// lowest quarter of the pairs by index stops rotating): certified position-free when the band's
// pairs are among them, else searched like the head itself.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "adversarial/presets.h"
#include "adversarial/scan.h"
#include "certificate/decision.h"

#include <nlohmann/json.hpp>

namespace ropecheck::adversarial {

struct ModelBand {
  std::string model, layer_type;
  long long span = 0;                 // the layer type's own context (or window)
  int rotating_pairs = 0;
  std::vector<int> pairs;             // the band: 0-based pair indices of the layer type's spectrum
  std::string attention_factor;       // decimal text ("1" when none)
  long long max_context = 0;          // the search covered contexts 1..max_context
  ScanResult scan;                    // found (certified, minimal) or none_certified
  // found: breaks within its span (scan.candidate.context <= span); none_certified: no.
  std::optional<bool> breaks_inside;
  Decision control_position_free = Decision::undecided;
  std::string control;                // one line: the control's certificate or its search's result
  double seconds = 0;
};

// Returns: the band head of a model's layer type ("" = the first with RoPE), as described above.
// Throws InputError for an unknown model or layer type, a layer type without RoPE, or fewer than
// 8 rotating pairs.
Head model_band_head(const std::string& model, const std::string& layer_type, bool p_rope_control = false);

// Returns: the search and its control. Preconditions: 1 <= max_context <= 2^31.
ModelBand model_band(const std::string& model, const std::string& layer_type, long long max_context);

}  // namespace ropecheck::adversarial

namespace ropecheck::adversarial {

// The result as one table row (text, fixed columns; model_band_header() names them) and as JSON.
std::string model_band_header();
std::string model_band_row(const ModelBand& b);
nlohmann::json model_band_json(const ModelBand& b);

}  // namespace ropecheck::adversarial

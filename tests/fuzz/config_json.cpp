// Fuzz target config_json: a Hugging Face config.json's text (spectrum/hf_config.h
// read_hf_config_text, the reader of `--model FILE`, the zoo and the C ABI's config_json), then
// what every analysis computes from the model description: each layer type's geometry and its
// spectrum's frequencies in binary64 and in MPFI (spectrum/frequencies.h), and the spectrum's JSON
// form read back (spectrum/spectrum_json.h) as the same spectrum.
// Checks: the geometry model.h states (rotary part inside the head, even widths, layers in range,
// one spectrum over the rotary part exactly for RoPE layer types).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "numeric/scalar.h"
#include "spectrum/frequencies.h"
#include "spectrum/hf_config.h"
#include "spectrum/spectrum_json.h"

namespace {

using namespace ropecheck;

void check_layer_type(const ModelDescription& m, const LayerType& t) {
  const std::string where = "layer type '" + t.name + "' (" + t.describe_geometry() + ")";
  fuzz::check(t.head_dim >= 2 && t.head_dim % 2 == 0, [&] { return where + ": head_dim " + std::to_string(t.head_dim); });
  fuzz::check(t.rotary_dims >= 0 && t.rotary_dims % 2 == 0 && t.rotary_offset >= 0 &&
                  static_cast<long long>(t.rotary_offset) + t.rotary_dims <= t.head_dim, [&] { return where + ": rotary part outside the head"; });
  fuzz::check(t.spectrum.has_value() == (t.rotary_dims > 0), [&] { return where + ": a spectrum without rotary channels or the reverse"; });
  fuzz::check(t.context >= 1 && t.span() >= 1, [&] { return where + ": context " + std::to_string(t.context); });
  for (int l : t.layers) fuzz::check(l >= 0 && l < m.layers, [&] { return where + ": layer " + std::to_string(l) + " of " + std::to_string(m.layers); });
  if (!t.spectrum) return;
  const Spectrum& s = *t.spectrum;
  fuzz::check(s.dim() == t.rotary_dims, [&] { return where + ": spectrum dim " + std::to_string(s.dim()); });
  const std::vector<double> g = frequencies<double>(s);
  const std::vector<Interval> exact = frequencies<Interval>(s);
  fuzz::check(g.size() == exact.size() && static_cast<int>(g.size()) == s.pairs(), [&] { return where + ": frequency count"; });
  for (const Interval& x : exact) fuzz::check(!certainly_negative(x), [&] { return where + ": a negative frequency"; });
  // The spectrum's JSON form names the same spectrum.
  const nlohmann::json j = spectrum_to_json(s);
  const Spectrum back = spectrum_from_json(j, "spectrum");
  fuzz::check(back.describe() == s.describe(), [&] { return where + ": spectrum JSON " + fuzz::shown(j) + " reads back as " + back.describe(); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ModelDescription m;
  if (!fuzz::accepted([&] { m = read_hf_config_text(fuzz::text_of(data, size), "config.json"); })) return 0;
  fuzz::check(!m.layer_types.empty(), "a model without layer types");
  fuzz::check(m.layers >= 1, [&] { return "num_hidden_layers " + std::to_string(m.layers); });
  fuzz::check(m.attention.heads >= 1 && m.attention.kv_heads >= 1, "attention heads");
  for (const LayerType& t : m.layer_types) check_layer_type(m, t);
  fuzz::accepted([&] { m.layer_type(""); });
  return 0;
}

#include "spectrum/model_table.h"

#include <sstream>

#include "numeric/decimal.h"
#include "spectrum/attention_factor.h"
#include "spectrum/frequencies.h"
#include "spectrum/table.h"

namespace ropecheck {

namespace {

std::vector<const LayerType*> selected(const ModelDescription& m, const std::string& layer_type) {
  std::vector<const LayerType*> out;
  if (!layer_type.empty()) out.push_back(&m.layer_type(layer_type));
  else
    for (const auto& lt : m.layer_types) out.push_back(&lt);
  return out;
}

std::string span_text(const LayerType& lt) {
  std::string t = std::to_string(lt.span());
  if (lt.window && *lt.window < lt.context) t += " (window; context " + std::to_string(lt.context) + ")";
  return t;
}

}  // namespace

std::string layer_ranges(const std::vector<int>& layers) {
  std::string out;
  for (size_t i = 0; i < layers.size();) {
    size_t j = i;
    while (j + 1 < layers.size() && layers[j + 1] == layers[j] + 1) ++j;
    out += (out.empty() ? "" : ", ") + std::to_string(layers[i]) + (j > i ? "-" + std::to_string(layers[j]) : "");
    i = j + 1;
  }
  return out;
}

std::string model_spectrum_text(const ModelDescription& m, const std::string& layer_type, std::optional<long long> context) {
  std::ostringstream out;
  out << "model " << m.name << (m.title.empty() ? "" : " (" + m.title + ")") << ": model_type " << m.model_type << ", "
      << m.layers << " layers, " << m.layer_types.size() << " layer type" << (m.layer_types.size() == 1 ? "" : "s") << "\n";
  for (const LayerType* lt : selected(m, layer_type)) {
    out << "\nlayer type " << lt->name << ": layers " << layer_ranges(lt->layers) << "; " << lt->describe_geometry() << "; span "
        << span_text(*lt) << "\n";
    if (!lt->spectrum) {
      out << "no RoPE: every pair is position-independent\n";
      continue;
    }
    const long long n = context.value_or(lt->span());
    bool decided = true;
    frequencies<Interval>(*lt->spectrum, &decided);
    out << "attention factor " << attention_factor_text(lt->spectrum->scaling())
        << " (cos and sin both scaled: q.k over the rotated pairs by its square)";
    if (!decided) out << "; the scaling rule's branch is undecided at this precision (enclosures kept)";
    out << "\n";
    if (lt->pass_through_pairs() > 0)
      out << lt->pass_through_pairs() << " pass-through pairs (unrotated, semantic at every context) besides the rotary part below\n";
    out << spectrum_text(*lt->spectrum, m.name + "/" + lt->name, n, spectrum_rows(*lt->spectrum, n));
  }
  return out.str();
}

nlohmann::json model_spectrum_json(const ModelDescription& m, const std::string& layer_type, std::optional<long long> context) {
  nlohmann::json types = nlohmann::json::array();
  for (const LayerType* lt : selected(m, layer_type)) {
    nlohmann::json t = {{"layer_type", lt->name},
                        {"layers", lt->layers},
                        {"head_dim", lt->head_dim},
                        {"rotary_offset", lt->rotary_offset},
                        {"rotary_dims", lt->rotary_dims},
                        {"layout", layout_name(lt->layout)},
                        {"pass_through_pairs", lt->pass_through_pairs()},
                        {"context", lt->context},
                        {"window", lt->window ? nlohmann::json(*lt->window) : nlohmann::json(nullptr)},
                        {"span", lt->span()}};
    if (lt->spectrum) {
      const long long n = context.value_or(lt->span());
      bool decided = true;
      frequencies<Interval>(*lt->spectrum, &decided);
      t["attention_factor"] = attention_factor_text(lt->spectrum->scaling());
      t["scaling_decided"] = decided;
      t["spectrum"] = spectrum_json(*lt->spectrum, m.name + "/" + lt->name, n, spectrum_rows(*lt->spectrum, n));
    }
    types.push_back(t);
  }
  return {{"model", m.name}, {"title", m.title}, {"model_type", m.model_type}, {"layers", m.layers},
          {"read", m.read},  {"sources", m.sources}, {"unconfirmed", m.unconfirmed}, {"layer_types", types}};
}

}  // namespace ropecheck

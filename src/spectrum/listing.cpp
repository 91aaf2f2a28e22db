#include "spectrum/listing.h"

#include <cstdio>

#include "io/input_error.h"
#include "spectrum/attention_factor.h"
#include "spectrum/model_table.h"
#include "spectrum/model_zoo.h"
#include "spectrum/table.h"

namespace ropecheck {

namespace {

struct LayerTypeRow {
  std::string theta, scaling, attention_factor;
};

LayerTypeRow row_of(const LayerType& lt) {
  if (!lt.spectrum) return {"-", "no RoPE", "-"};
  return {lt.spectrum->theta(), lt.spectrum->scaling().describe(), attention_factor_text(lt.spectrum->scaling())};
}

// A model alone: every layer type's table. Returns false when the request overrides the spectrum.
bool whole_model(const SpectrumRequest& request) {
  if (!request.model || request.variant || request.scaling) return false;
  if (request.config) throw InputError("model", "not given together with config (each names a spectrum)", *request.model);
  if (request.dim || request.theta) throw InputError(request.dim ? "dim" : "theta", "not given with a model (the model fixes it)", "");
  return true;
}

ModelDescription model_of(const SpectrumRequest& request) {
  ModelOptions options;
  options.sequence_length = request.sequence_length;
  options.vllm_dynamic = request.vllm_dynamic;
  return load_model(*request.model, options);
}

}  // namespace

std::string zoo_text(bool sources) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-18s %-18s %-7s %-26s %-9s %-10s %-7s %s\n", "model", "layer type", "layers", "rotary part", "theta",
                "span", "af", "scaling");
  out += line;
  for (const std::string& name : zoo_names()) {
    const ModelDescription m = zoo_model(name);
    for (const LayerType& lt : m.layer_types) {
      const LayerTypeRow r = row_of(lt);
      std::snprintf(line, sizeof line, "%-18s %-18s %-7zu %-26s %-9s %-10lld %-7.7s %s\n", name.c_str(), lt.name.c_str(), lt.layers.size(),
                    lt.describe_geometry().c_str(), r.theta.c_str(), lt.span(), r.attention_factor.c_str(), r.scaling.c_str());
      out += line;
    }
    if (sources) {
      for (const auto& s : m.sources) out += "    source  " + s + "\n";
      for (const auto& u : m.unconfirmed) out += "    unconfirmed  " + u + "\n";
    }
  }
  return out;
}

nlohmann::json zoo_json() {
  nlohmann::json out = nlohmann::json::array();
  for (const std::string& name : zoo_names()) {
    const ModelDescription m = zoo_model(name);
    nlohmann::json types = nlohmann::json::array();
    for (const LayerType& lt : m.layer_types) {
      const LayerTypeRow r = row_of(lt);
      types.push_back({{"layer_type", lt.name}, {"layers", lt.layers.size()}, {"geometry", lt.describe_geometry()}, {"theta", r.theta},
                       {"span", lt.span()}, {"attention_factor", r.attention_factor}, {"scaling", r.scaling}});
    }
    out.push_back({{"model", name}, {"title", m.title}, {"model_type", m.model_type}, {"layer_types", types},
                   {"sources", m.sources}, {"unconfirmed", m.unconfirmed}});
  }
  return out;
}

std::string spectrum_listing_text(const SpectrumRequest& request) {
  if (whole_model(request)) return model_spectrum_text(model_of(request), request.layer_type.value_or(""), request.context);
  const ResolvedSpectrum rs = resolve(request);
  return spectrum_text(rs.spectrum, rs.name, rs.context, spectrum_rows(rs.spectrum, rs.context));
}

nlohmann::json spectrum_listing_json(const SpectrumRequest& request) {
  if (whole_model(request)) return model_spectrum_json(model_of(request), request.layer_type.value_or(""), request.context);
  const ResolvedSpectrum rs = resolve(request);
  return spectrum_json(rs.spectrum, rs.name, rs.context, spectrum_rows(rs.spectrum, rs.context));
}

}  // namespace ropecheck

#include "cli/models_command.h"

#include <cstdio>
#include <iostream>

#include "spectrum/attention_factor.h"
#include "spectrum/model_zoo.h"

namespace ropecheck::cli {

void ModelsCommand::attach(CLI::App& app) {
  command = app.add_subcommand("models", "the model zoo: every named model's layer types, RoPE rule, span and attention factor");
  command->add_flag("--json", json, "print JSON instead of a table");
  command->add_flag("--sources", sources, "also print the source of every value and the fields no stored source confirmed");
}

int ModelsCommand::run() {
  nlohmann::json out = nlohmann::json::array();
  char line[512];
  if (!json) {
    std::snprintf(line, sizeof line, "%-18s %-18s %-7s %-26s %-9s %-10s %-7s %s\n", "model", "layer type", "layers", "rotary part",
                  "theta", "span", "af", "scaling");
    std::cout << line;
  }
  for (const std::string& name : zoo_names()) {
    const ModelDescription m = zoo_model(name);
    nlohmann::json types = nlohmann::json::array();
    for (const LayerType& lt : m.layer_types) {
      const std::string theta = lt.spectrum ? lt.spectrum->theta() : "-";
      const std::string scaling = lt.spectrum ? lt.spectrum->scaling().describe() : "no RoPE";
      const std::string af = lt.spectrum ? attention_factor_text(lt.spectrum->scaling()) : "-";
      types.push_back({{"layer_type", lt.name}, {"layers", lt.layers.size()}, {"geometry", lt.describe_geometry()},
                       {"theta", theta}, {"span", lt.span()}, {"attention_factor", af}, {"scaling", scaling}});
      if (!json) {
        std::snprintf(line, sizeof line, "%-18s %-18s %-7zu %-26s %-9s %-10lld %-7.7s %s\n", name.c_str(), lt.name.c_str(),
                      lt.layers.size(), lt.describe_geometry().c_str(), theta.c_str(), lt.span(), af.c_str(), scaling.c_str());
        std::cout << line;
      }
    }
    if (!json && sources) {
      for (const auto& s : m.sources) std::cout << "    source  " << s << "\n";
      for (const auto& u : m.unconfirmed) std::cout << "    unconfirmed  " << u << "\n";
    }
    out.push_back({{"model", name}, {"title", m.title}, {"model_type", m.model_type}, {"layer_types", types},
                   {"sources", m.sources}, {"unconfirmed", m.unconfirmed}});
  }
  if (json) std::cout << out.dump(2) << "\n";
  return 0;
}

}  // namespace ropecheck::cli

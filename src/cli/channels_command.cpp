#include "cli/channels_command.h"

#include <iostream>

#include "adversarial/model_bands.h"
#include "cli/flags.h"
#include "io/atomic_write.h"
#include "spectrum/model_zoo.h"

namespace ropecheck::cli {

void ChannelsCommand::attach(CLI::App& app) {
  command = app.add_subcommand("channels",
                               "do models' semantic channels survive their own context? certified shortest breaking context of the paper's "
                               "channel over each layer type's 8 lowest rotating pairs, with the p-RoPE 0.75 control");
  command->add_option("--model", model, "a zoo name or a config.json path (default: every zoo model)");
  command->add_option("--layer-type", layer_type, "with --model: one layer type (default: every layer type with RoPE)")->needs("--model");
  command->add_option("--max-context", max_context, "longest context searched, in [1, 2^31] (default 2^25)");
  command->add_option("--json", json_out, "also write the rows as JSON to this file");
}

int ChannelsCommand::run() {
  const long long max = max_context ? parse_integer("--max-context", *max_context, 1, 1LL << 31) : (1LL << 25);
  std::vector<std::pair<std::string, std::string>> rows;  // model, layer type
  for (const std::string& name : model ? std::vector<std::string>{*model} : zoo_names()) {
    const ModelDescription m = load_model(name);  // a bad model or layer type is refused before any search
    for (const LayerType& lt : m.layer_types) {
      if (layer_type && lt.name != *layer_type) continue;
      if (!lt.spectrum || lt.spectrum->rotated_pairs() < adversarial::kBandPairs) continue;
      rows.push_back({name, lt.name});
    }
    if (layer_type) (void)m.layer_type(*layer_type);
  }
  std::cout << "channels: contexts up to " << max << "; the paper's channel (Appendix E.1) over each layer type's 8 lowest rotating pairs, query x a^2\n";
  std::cout << adversarial::model_band_header() << "\n";
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [name, lt] : rows) {
    const adversarial::ModelBand b = adversarial::model_band(name, lt, max);
    std::cout << adversarial::model_band_row(b) << std::endl;
    out.push_back(adversarial::model_band_json(b));
  }
  std::cout << "span: the layer type's context (or sliding window); af: attention factor a; INSIDE: breaks within its own span\n";
  if (json_out) atomic_write(*json_out, out.dump(2) + "\n", "--json");
  return 0;
}

}  // namespace ropecheck::cli

#include "cli/spectrum_command.h"

#include <iostream>

#include "numeric/precision.h"
#include "spectrum/model_table.h"
#include "spectrum/model_zoo.h"
#include "spectrum/table.h"

namespace ropecheck::cli {

void SpectrumCommand::attach(CLI::App& app) {
  command = app.add_subcommand("spectrum", "per-pair frequencies, wavelengths, rotations over the context, quarter-turn horizons (--model: every layer type)");
  add_spectrum_flags(command, flags);
  command->add_option("--precision", precision, "working precision in bits (>= 53, default 256)");
  command->add_flag("--json", json, "print JSON instead of a table");
}

int SpectrumCommand::run() {
  const SpectrumRequest request = to_request(flags);
  ScopedPrecision scoped(parse_precision(precision));
  if (request.model && !request.variant && !request.scaling) {
    // Every layer type of the model (or the one --layer-type names), each with its geometry.
    if (request.config) throw InputError("model", "not given together with config (each names a spectrum)", *request.model);
    if (request.dim || request.theta) throw InputError(request.dim ? "dim" : "theta", "not given with a model (the model fixes it)", "");
    ModelOptions options;
    options.sequence_length = request.sequence_length;
    options.vllm_dynamic = request.vllm_dynamic;
    const ModelDescription m = load_model(*request.model, options);
    const std::string layer = request.layer_type.value_or("");
    if (json) std::cout << model_spectrum_json(m, layer, request.context).dump(2) << "\n";
    else std::cout << model_spectrum_text(m, layer, request.context);
    return 0;
  }
  const ResolvedSpectrum rs = resolve(request);
  const std::vector<SpectrumRow> rows = spectrum_rows(rs.spectrum, rs.context);
  if (json) std::cout << spectrum_json(rs.spectrum, rs.name, rs.context, rows).dump(2) << "\n";
  else std::cout << spectrum_text(rs.spectrum, rs.name, rs.context, rows);
  return 0;
}

}  // namespace ropecheck::cli

#include "cli/spectrum_command.h"

#include <iostream>

#include "numeric/precision.h"
#include "spectrum/listing.h"

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
  if (json) std::cout << spectrum_listing_json(request).dump(2) << "\n";
  else std::cout << spectrum_listing_text(request);
  return 0;
}

}  // namespace ropecheck::cli

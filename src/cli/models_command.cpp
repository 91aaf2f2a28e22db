#include "cli/models_command.h"

#include <iostream>

#include "spectrum/listing.h"

namespace ropecheck::cli {

void ModelsCommand::attach(CLI::App& app) {
  command = app.add_subcommand("models", "the model zoo: every named model's layer types, RoPE rule, span and attention factor");
  command->add_flag("--json", json, "print JSON instead of a table");
  command->add_flag("--sources", sources, "also print the source of every value and the fields no stored source confirmed");
}

int ModelsCommand::run() {
  if (json) std::cout << zoo_json().dump(2) << "\n";
  else std::cout << zoo_text(sources);
  return 0;
}

}  // namespace ropecheck::cli

// File: models_command.h
// `ropecheck models`: the model zoo (spectrum/model_zoo.h), one line per model and layer type.
#pragma once

#include <CLI/CLI.hpp>

namespace ropecheck::cli {

struct ModelsCommand {
  CLI::App* command = nullptr;
  bool json = false;
  bool sources = false;

  void attach(CLI::App& app);
  int run();
};

}  // namespace ropecheck::cli

// File: spectrum_command.h
// `ropecheck spectrum`: the per-pair frequency table of a configuration (see spectrum/table.h).
#pragma once

#include <CLI/CLI.hpp>

#include "cli/flags.h"

namespace ropecheck::cli {

struct SpectrumCommand {
  CLI::App* command = nullptr;
  SpectrumFlags flags;
  std::string precision;
  bool json = false;

  void attach(CLI::App& app);
  int run();
};

}  // namespace ropecheck::cli

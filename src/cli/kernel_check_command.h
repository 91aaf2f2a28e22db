// File: kernel_check_command.h
// `ropecheck kernel-check`: the seeded accuracy sweep of every kernel path and the two baselines
// (accuracy/kernel_check.h). Exit 0 when every kernel path meets the accuracy goal on the sample,
// 1 when one does not (or the paths disagree), 2 on bad input.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "cli/flags.h"

namespace ropecheck::cli {

struct KernelCheckCommand {
  CLI::App* command = nullptr;
  SpectrumFlags flags;
  std::string dtype, samples, max_position, seed, layout, json_path, threads;

  void attach(CLI::App& app);
  int run();
};

}  // namespace ropecheck::cli

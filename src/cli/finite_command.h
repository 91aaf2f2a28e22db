// File: finite_command.h
// `ropecheck finite`: which of the paper's positional constructions survive float32 and bfloat16
// (src/finite/), for this kernel and the two baselines, each row next to the exact
// verdict. Prints one table per construction; --json FILE writes every result (atomically).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "cli/flags.h"

namespace ropecheck::cli {

struct FiniteCommand {
  CLI::App* command = nullptr;
  SpectrumFlags flags;
  std::string dtype = "both", json_path, max_shift_log2, max_distance, rows, pairs, seed;

  void attach(CLI::App& app);
  int run();
};

}  // namespace ropecheck::cli

// File: montecarlo_command.h
// `ropecheck montecarlo`: runs a Monte Carlo experiment (montecarlo/experiment.h), or one shard of
// it, and reports the statistics and verdicts (montecarlo/analysis.h). `ropecheck merge` combines
// shard partials into the result a single process would have written, byte for byte.
// Exit codes: 0 when every verdict is what the paper says (Gaussian: no decay confirmed; all-ones:
// decay detected), 1 when one differs, 2 on bad input.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/flags.h"

namespace ropecheck::cli {

struct MontecarloCommand {
  CLI::App* command = nullptr;
  SpectrumFlags flags;
  std::string experiment, trials, max_distance, fig8_n, fig8_L, vectors, seed, arith, base_position, threads, shard, out, csv;

  void attach(CLI::App& app);
  int run();
};

struct MergeCommand {
  CLI::App* command = nullptr;
  std::vector<std::string> inputs;
  std::string out, csv;
  bool partial = false;

  void attach(CLI::App& app);
  int run();
};

}  // namespace ropecheck::cli

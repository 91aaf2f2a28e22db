// File: verify_command.h
// `ropecheck verify`: runs the registered claim checks, prints the certificates as a table, writes
// them as JSON (--json FILE, atomically). Exit 0 when every verdict is what the paper states.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/flags.h"

namespace ropecheck::cli {

struct VerifyCommand {
  CLI::App* command = nullptr;
  SpectrumFlags flags;
  std::vector<std::string> claims;
  std::string precision, max_precision, seed, json_path, query;
  std::string epsilon, frequency, phase, tolerance, max_n, trials, ledger;
  std::vector<std::string> distances, query_lengths;
  bool list = false;

  void attach(CLI::App& app);
  int run();
};

}  // namespace ropecheck::cli

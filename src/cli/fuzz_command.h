// File: fuzz_command.h
// `ropecheck fuzz --target channel|band|kernel --budget SECONDS [--seed S] [--config NAME] --out DIR`
// runs the adversarial search (adversarial/fuzz.h) and prints the summary; exit 0 (finding a
// counterexample is the search's purpose, not a failure), 2 on bad input.
// `ropecheck replay [--expect still-breaks|no-longer-breaks] FILE...` re-checks counterexample
// files in certified arithmetic and prints one line per file: still-breaks / no-longer-breaks /
// inconclusive. Exit 0 when every verdict is the expected one (default still-breaks), 1 when one
// is not (inconclusive never counts as expected), 2 when a file is malformed (the message names
// the file, the field and what is accepted; the other files are still checked first).
// --expect no-longer-breaks replays the corpus of fixed cases (properties/regressions/fixed/).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace ropecheck::cli {

struct FuzzCommand {
  CLI::App* command = nullptr;
  std::string target, budget, seed, config, model, layer_type, out, max_candidates, max_context;
  bool no_minimal = false;

  void attach(CLI::App& app);
  int run();
};

struct ReplayCommand {
  CLI::App* command = nullptr;
  std::vector<std::string> files;
  std::string expect = "still-breaks";

  void attach(CLI::App& app);
  int run();
};

}  // namespace ropecheck::cli

// File: usage_command.h
// `ropecheck usage --model M --capture C.npz [--json FILE] [--out DIR]`: how a trained model uses
// its RoPE, measured on a capture of its pre-rotation queries and keys (usage/usage.h). Prints one
// table row per head; --json writes the ropecheck-usage/2 document, --out a directory with it and
// the figures (report/usage_figures.h). A thin layer: parse, call, print.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace ropecheck::cli {

struct UsageCommand {
  CLI::App* command = nullptr;
  std::string model, capture;
  std::optional<std::string> compare;
  std::optional<std::string> json_out, out_dir, threads, content_distance, break_limit, strong_match, break_rows, max_offset, lift, min_mass,
      alpha, null_sequences, null_repeats, null_seed;
  bool no_breaks = false;
  bool no_break_mechanisms = false;
  bool no_channel = false;
  std::optional<std::string> channel_epsilon;

  void attach(CLI::App& app);
  int run();
};

}  // namespace ropecheck::cli

// File: audit_command.h
// `ropecheck audit`: measures another implementation's RoPE output (.npy) against the exact
// map of its input (accuracy/audit.h): a bare spectrum with --layout, or a model's layer type
// (--model, --layer-type: geometry, layout and attention factor), in the axis order --axes names.
// Exit 0 when the audit ran, whatever the error (1 only with --max-ulp X when the maximum exceeds
// X), 2 on bad input.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "cli/flags.h"

namespace ropecheck::cli {

struct AuditCommand {
  CLI::App* command = nullptr;
  SpectrumFlags flags;
  std::string input, positions, output, layout, axes, dtype, json_path, threads, max_ulp, precision;

  void attach(CLI::App& app);
  int run();
};

}  // namespace ropecheck::cli

// File: apply_command.h
// `ropecheck apply`: rotates a float32, bfloat16 or float16 .npy tensor with the production kernel
// (kernel/apply_rope.h) at the positions of a .npy file and writes the result atomically, same
// shape and dtype. With --model (and --layer-type) the plan is the layer type's: its head_dim
// (the tensor's last dimension must equal it), rotary part, layout (--layout optional, and if
// given must agree) and attention factor. Silent on success unless --verbose.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "cli/flags.h"

namespace ropecheck::cli {

struct ApplyCommand {
  CLI::App* command = nullptr;
  SpectrumFlags flags;
  std::string dtype, layout, positions, input, output, threads;
  std::string impl = "kernel";
  bool verbose = false;

  void attach(CLI::App& app);
  int run();
};

}  // namespace ropecheck::cli

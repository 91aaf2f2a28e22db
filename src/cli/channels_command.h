// File: channels_command.h
// `ropecheck channels`: do real models' semantic channels survive their own context? For each zoo
// model (or --model) and layer type with RoPE, the paper's channel spread over the 8 lowest rotating
// pairs, its certified shortest breaking context against the layer type's span, and the p-RoPE 0.75
// control (adversarial/model_bands.h). A thin layer: parse, call, print.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace ropecheck::cli {

struct ChannelsCommand {
  CLI::App* command = nullptr;
  std::optional<std::string> model, layer_type, max_context, json_out;

  void attach(CLI::App& app);
  int run();
};

}  // namespace ropecheck::cli

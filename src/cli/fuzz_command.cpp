#include "cli/fuzz_command.h"

#include <iostream>
#include <limits>

#include "adversarial/fuzz.h"
#include "adversarial/replay.h"
#include "cli/flags.h"
#include "io/input_error.h"

namespace ropecheck::cli {

void FuzzCommand::attach(CLI::App& app) {
  command = app.add_subcommand("fuzz", "search for counterexamples: swaps that break semantic channels (channel, band) or kernel outputs beyond their proved bound (kernel)");
  command->add_option("--target", target, "channel | band | kernel")->required();
  command->add_option("--budget", budget, "wall-clock seconds (> 0); the candidate in progress completes")->required();
  command->add_option("--seed", seed, "seed (default 1); candidate i depends only on (seed, i)");
  command->add_option("--config", config,
                      "a preset head (gemma-7b-apostrophe, gemma-7b-band8, llama-3.1-8b-band8, NAME-p-rope-0.75), a head JSON file, or a spectrum configuration (fresh heads on it; kernel: the spectrum fuzzed)");
  auto* model_flag = command->add_option("--model", model, "channel / band: fresh heads on a model's spectrum; kernel: the model's layer type as the kernel runs it (geometry, layout, attention factor); a zoo name or config.json path");
  command->add_option("--layer-type", layer_type, "with --model: the layer type (default: the first with RoPE)")->needs(model_flag);
  command->add_option("--out", out, "directory for <target>/<sha256>.json counterexamples")->required();
  command->add_option("--max-candidates", max_candidates, "stop after this many candidates (0: budget only)");
  command->add_option("--max-context", max_context, "longest context scanned (default 2^24)");
  command->add_flag("--no-minimal", no_minimal, "skip the certificate that no shorter context breaks");
}

int FuzzCommand::run() {
  adversarial::FuzzOptions o;
  o.target = adversarial::parse_target(target);
  o.budget_seconds = parse_decimal("--budget", budget, "a number of seconds > 0", 0, std::numeric_limits<double>::max(), true);
  o.seed = seed.empty() ? 1 : parse_seed(seed);
  if (!config.empty()) o.config = config;
  if (!model.empty()) o.model = model;
  if (!layer_type.empty()) o.layer_type = layer_type;
  o.out_dir = out;
  if (!max_candidates.empty()) o.max_candidates = parse_integer("--max-candidates", max_candidates, 0, 1LL << 40);
  if (!max_context.empty()) o.max_context = parse_integer("--max-context", max_context, 2, 1LL << 31);
  o.certify_minimal = !no_minimal;
  const adversarial::FuzzSummary s = adversarial::run_fuzz(o, std::cerr);
  std::cout << adversarial::format_summary(o, s);
  return 0;
}

void ReplayCommand::attach(CLI::App& app) {
  command = app.add_subcommand("replay", "re-check counterexample files by value in certified arithmetic");
  command->add_option("--expect", expect, "still-breaks (default) or no-longer-breaks (a corpus of fixed cases)");
  command->add_option("files", files, "counterexample JSON files")->required();
}

int ReplayCommand::run() {
  if (expect != "still-breaks" && expect != "no-longer-breaks") throw InputError("--expect", "still-breaks or no-longer-breaks", expect);
  const ReplayVerdict expected =
      expect == "still-breaks" ? ReplayVerdict::still_breaks : ReplayVerdict::no_longer_breaks;
  int status = 0;
  std::string first_error;
  for (const std::string& f : files) {
    try {
      const adversarial::ReplayOutcome r = adversarial::replay_file(f);
      std::cout << verdict_name(r.verdict) << "  " << f << "  (" << r.target << ") " << r.detail << "\n";
      if (r.verdict != expected && status == 0) status = 1;
    } catch (const InputError& e) {
      std::cout << "malformed  " << f << "\n";
      if (first_error.empty()) first_error = e.what();
      status = 2;
    }
  }
  if (!first_error.empty()) std::cerr << "ropecheck: " << first_error << "\n";
  return status;
}

}  // namespace ropecheck::cli

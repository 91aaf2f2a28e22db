// File: fuzz.h
// `ropecheck fuzz`: the adversarial search under a wall-clock budget.
//
// channel / band: candidate heads from head_sampler.h (candidate 0 = the --config head), each
// guided-scanned for the shortest breaking context up to max_context, certified in MPFI (a float
// candidate that does not certify is dropped and counted), shrunk (sampled heads only: a --config
// head is the question asked, so it is kept as given), re-certified, and written as
// <out>/<target>/<sha256>.json unless already present. Position-free heads (every active chunk at
// g = 0: p-RoPE's removed band, NoPE) are not scanned: certify_position_free gives the certified
// reason no permutation can break them, and the summary prints it.
// kernel: accuracy/kernel_fuzz.h.
// Determinism: candidate i depends only on (seed, i); the budget decides how many are tried.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace ropecheck::adversarial {

enum class FuzzTarget { channel, band, kernel };
std::string target_name(FuzzTarget t);
FuzzTarget parse_target(const std::string& name);  // throws InputError("--target", ...)

struct FuzzOptions {
  FuzzTarget target = FuzzTarget::channel;
  double budget_seconds = 10;       // > 0
  std::uint64_t seed = 1;
  std::optional<std::string> config;  // a preset (presets.h), a head JSON file, or (kernel) a spectrum config
  std::optional<std::string> model;   // channel / band: fresh heads on a model's spectrum; kernel: its layer type's plan (model_zoo.h); excludes config
  std::optional<std::string> layer_type;  // with model: the layer type (default: the first with RoPE)
  std::string out_dir;
  long long max_candidates = 0;     // 0: until the budget ends
  long long max_context = 1LL << 24;
  bool certify_minimal = true;      // certify that no shorter context breaks (one more O(L) pass)
};

struct FuzzFinding {
  std::string file;
  bool created = false;
  long long candidate = 0;
  long long context = 0;
  std::string minimal;  // "certified", "not certified", "n/a"
  std::string line;     // one line for the summary
};

struct FuzzSummary {
  long long tried = 0;
  long long found = 0;            // certified counterexamples
  long long dropped = 0;          // float candidates that did not certify
  long long written = 0, already_present = 0;
  long long position_free = 0;    // candidates certified unbreakable
  std::optional<long long> shortest_context;
  std::string shortest_file;
  std::vector<FuzzFinding> findings;
  std::vector<std::string> notes;  // certified reasons, kernel figures
  double seconds = 0;
};

// Throws InputError for budget <= 0, a bad config, an unwritable --out, max_context < 2.
// Writes progress lines to `log` (stderr in the CLI).
FuzzSummary run_fuzz(const FuzzOptions& options, std::ostream& log);

std::string format_summary(const FuzzOptions& options, const FuzzSummary& summary);

}  // namespace ropecheck::adversarial

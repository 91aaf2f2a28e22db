#include "cli/finite_command.h"

#include <chrono>
#include <iostream>

#include "certificate/environment.h"
#include "finite/finite_text.h"
#include "io/atomic_write.h"
#include "io/printf_string.h"
#include "io/version.h"
#include "numeric/dtype.h"
#include "spectrum/request.h"

namespace ropecheck::cli {

using namespace ropecheck::finite;

void FiniteCommand::attach(CLI::App& app) {
  command = app.add_subcommand("finite", "which positional constructions survive float32/bfloat16: this kernel and two baselines vs the exact verdicts");
  add_spectrum_flags(command, flags);
  command->add_option("--dtype", dtype, "f32, bf16 or both (default both)");
  command->add_option("--max-shift-log2", max_shift_log2, "largest shift 2^N for the shift-invariance table and the prop-3.1 probes (integer in [0, 40], default 40; baselines stop at 31)");
  command->add_option("--max-distance", max_distance, "prop-3.1: exhaustive limit of the distance r (integer in [1, 65536], default 1024)");
  command->add_option("--rows", rows, "thm-5.3: rows 1..N of the positional heads (integer in [2, 65536], default 1024)");
  command->add_option("--pairs", pairs, "thm-5.3: K, the fastest pairs carrying the norm in the configured spectrum (integer >= 1, default 16)");
  command->add_option("--seed", seed, "seed of the random query and shift vectors (default 1)");
  command->add_option("--json", json_path, "write every result as JSON to this file");
}

int FiniteCommand::run() {
  const auto start = std::chrono::steady_clock::now();
  if (!json_path.empty()) check_output(json_path, "--json");
  const std::vector<Dtype> dtypes = parse_dtype_set(dtype, "--dtype", finite::kFiniteDtypes, "both");
  const ResolvedSpectrum rs = resolve(to_request(flags), std::string("gemma-7b"));
  const cpu::Path path = cpu::default_path();
  const std::uint64_t s = seed.empty() ? 1 : parse_seed(seed);
  const int shift_log2 = max_shift_log2.empty() ? 40 : static_cast<int>(parse_integer("--max-shift-log2", max_shift_log2, 0, 40));

  ArgmaxSettings argmax;
  argmax.max_distance = max_distance.empty() ? 1024 : parse_integer("--max-distance", max_distance, 1, 65536);
  argmax.max_shift_log2 = shift_log2;
  argmax.seed = s;
  HeadSettings heads;
  heads.N = rows.empty() ? 1024 : parse_integer("--rows", rows, 2, 65536);
  heads.K = pairs.empty() ? 16 : static_cast<int>(parse_integer("--pairs", pairs, 1, 1 << 20));
  ShiftSettings shift;
  shift.max_shift_log2 = shift_log2;
  shift.seed = s;

  // The configured spectrum, and the single pair d = 2 (g = theta^0 = 1), where 710 tokens make
  // cos(710) = 1 - 1.8e-9 invisible in float32.
  const std::string label = short_label(rs);
  const Spectrum single(2, "10000");
  const std::string single_label = "d=2 (g=1)";
  HeadSettings single_heads = heads;
  single_heads.K = 1;

  std::cout << preamble_text(path);

  std::vector<ArgmaxConstruction> argmaxes{prop_3_1_finite(label, rs.spectrum, dtypes, argmax, path),
                                           prop_3_1_finite(single_label, single, dtypes, argmax, path)};
  for (const ArgmaxConstruction& c : argmaxes) std::cout << to_text(c);

  std::vector<HeadConstruction> head_results;
  for (bool previous : {false, true}) {
    head_results.push_back(thm_5_3_finite(label, rs.spectrum, previous, dtypes, heads, path));
    head_results.push_back(thm_5_3_finite(single_label, single, previous, dtypes, single_heads, path));
  }
  for (const HeadConstruction& c : head_results) std::cout << to_text(c);
  const Cos710 c710 = cos_710(path);
  std::cout << to_text(c710);

  const ShiftInvariance shifts = shift_invariance(label, rs.spectrum, dtypes, shift, path);
  std::cout << to_text(shifts);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << printf_string("\n(%.1f s)\n", seconds);

  if (!json_path.empty()) {
    nlohmann::json out = {{"tool", kToolName}, {"arithmetic", arithmetic_environment()},
                          {"kernel_path", cpu::path_name(path)}, {"layout", "interleaved"},
                          {"dot_product", "float32: products rounded to float32, summed left to right from 0"},
                          {"ulp_definition", "kernel contract: ulp of an output component floored at 2^-24 (bf16: 2^-8) times its pair's norm"}};
    for (const ArgmaxConstruction& c : argmaxes) out["prop_3_1"].push_back(to_json(c));
    for (const HeadConstruction& c : head_results) out["thm_5_3"].push_back(to_json(c));
    out["cos_710"] = to_json(c710);
    out["shift_invariance"] = to_json(shifts);
    atomic_write(json_path, out.dump(2) + "\n", "--json");
  }
  return 0;
}

}  // namespace ropecheck::cli

#include "cli/montecarlo_command.h"

#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "cpu/thread_count.h"
#include "io/atomic_write.h"
#include "io/file_bytes.h"
#include "io/input_error.h"
#include "montecarlo/analysis.h"
#include "montecarlo/simulate.h"
#include "montecarlo/standard_params.h"
#include "montecarlo/streams.h"

namespace ropecheck::cli {

using namespace ropecheck::montecarlo;

void MontecarloCommand::attach(CLI::App& app) {
  command = app.add_subcommand("montecarlo", "Monte Carlo experiments: does RoPE decay activations with distance? (Figures 2, 8, 9)");
  command->add_option("--experiment", experiment, "fig2a, fig2b, fig9, fig8 or variance")->required();
  add_spectrum_flags(command, flags);
  command->add_option("--trials", trials, "trials per series, integer in [2, 2^32] (default ceil(1.1e6 / d): standard error of each mean < 1e-3)");
  command->add_option("--max-distance", max_distance, "largest distance R, integer in [10, 2^24 - 3] (default 5000; fig8: n - 1)");
  command->add_option("--fig8-n", fig8_n, "fig8: tokens n, integer in [11, 2^24 - 2] (default 1000)");
  command->add_option("--fig8-L", fig8_L, "fig8: comma-separated position ranges L >= n (default n,2n,4n,8n)");
  command->add_option("--vectors", vectors, "fig8: ones, gaussian or both (default both)");
  command->add_option("--seed", seed, "seed, integer in [0, 2^64) (default 1)");
  command->add_option("--arith", arith, "f64 (default), f32 or bf16: f32/bf16 rotate with the production kernel and dot in float");
  command->add_option("--base-position", base_position, "f32/bf16: the key's position (query at base + distance), integer in [0, 2^62] (default 0)");
  command->add_option("--threads", threads, "worker threads, " + cpu::thread_count_range() + " (default: every core; the result is the same for any count)");
  command->add_option("--shard", shard, "K/N: compute only shard K (0-based) of N and write a partial to --out (combine with `ropecheck merge`)");
  command->add_option("--out", out, "write the result JSON (with --shard: the partial) to this file");
  command->add_option("--csv", csv, "write the per-distance series as CSV to this file");
}

namespace {

int write_results(const Analysis& a, const std::string& out, const std::string& csv) {
  if (!out.empty()) atomic_write(out, a.json.dump(1) + "\n", "--out");
  if (!csv.empty()) atomic_write(csv, a.csv, "--csv");
  std::cout << a.text;
  return a.as_paper_says ? 0 : 1;
}

}  // namespace

int MontecarloCommand::run() {
  ExperimentChoice choice;
  choice.experiment = parse_experiment(experiment);
  if (!arith.empty()) choice.arith = parse_arith(arith);
  if (!seed.empty()) choice.seed = parse_seed(seed);
  if (!base_position.empty()) {
    if (choice.arith == Dtype::f64) throw InputError("--base-position", "used with --arith f32 or bf16 only", base_position);
    choice.base_position = parse_integer("--base-position", base_position, 0, std::int64_t{1} << 62);
  }
  const bool fig8 = choice.experiment == Experiment::fig8;
  if (!fig8 && (!fig8_n.empty() || !fig8_L.empty() || !vectors.empty()))
    throw InputError(!fig8_n.empty() ? "--fig8-n" : !fig8_L.empty() ? "--fig8-L" : "--vectors", "used with --experiment fig8 only", "--experiment " + experiment);
  if (fig8 && !max_distance.empty()) throw InputError("--max-distance", "not used by fig8 (its distances are 0..n-1: use --fig8-n)", max_distance);
  if (choice.experiment == Experiment::fig2a && !trials.empty() && trials != "1") throw InputError("--trials", "1 for the deterministic fig2a (or omitted)", trials);
  const int thread_count = threads.empty() ? static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))
                                           : parse_threads("--threads", threads);
  const Shard sh = shard.empty() ? Shard{} : parse_shard(shard);
  if (!shard.empty() && out.empty()) throw InputError("--out", "a file for the partial that --shard writes", "nothing");
  if (!shard.empty() && !csv.empty()) throw InputError("--csv", "given to `ropecheck merge` (a shard's partial has no series yet)", csv);
  if (!out.empty()) check_output(out, "--out");
  if (!csv.empty()) check_output(csv, "--csv");

  choice.spectrum = to_request(flags);
  if (fig8) {
    if (!fig8_n.empty()) choice.fig8_n = parse_integer("--fig8-n", fig8_n, 11, kMaxDistance + 1);
    const std::int64_t n = choice.fig8_n.value_or(1000);
    if (!fig8_L.empty()) choice.fig8_L = parse_integer_list("--fig8-L", fig8_L, n, std::int64_t{1} << 40);
    if (vectors == "ones") choice.fig8_vectors = {Vectors::ones};
    else if (vectors == "gaussian") choice.fig8_vectors = {Vectors::gaussian};
    else if (!vectors.empty() && vectors != "both") throw InputError("--vectors", "ones, gaussian or both", vectors);
  } else if (!max_distance.empty()) {
    choice.max_distance = parse_integer("--max-distance", max_distance, 10, kMaxDistance);
  }
  if (!trials.empty() && choice.experiment != Experiment::fig2a) choice.trials = parse_integer("--trials", trials, 2, kMaxTrials);
  const Params p = standard_params(choice);

  const RunOptions options{thread_count, true};
  validate(p, sh, options);
  std::cerr << "ropecheck montecarlo: experiment " << experiment_name(p.experiment) << ", seed " << p.seed << ", arith " << dtype_name(p.arith)
            << ", " << thread_count << " thread(s)" << (shard.empty() ? "" : ", shard " + shard) << "\n";
  const Partial partial = simulate(p, sh, options);
  if (!shard.empty()) {
    atomic_write(out, partial_text(partial), "--out");
    std::cout << "shard " << sh.index << "/" << sh.count << " of " << experiment_name(p.experiment) << " (seed " << p.seed << ") written to " << out
              << "; combine every shard with: ropecheck merge PARTIALS... --out FILE\n";
    return 0;
  }
  return write_results(analyse(partial), out, csv);
}

void MergeCommand::attach(CLI::App& app) {
  command = app.add_subcommand("merge", "combine Monte Carlo shard partials (ropecheck montecarlo --shard K/N) exactly");
  command->add_option("partials", inputs, "partial files written by montecarlo --shard")->required();
  command->add_option("--out", out, "write the result JSON (identical to an unsharded run's) to this file")->required();
  command->add_option("--csv", csv, "write the per-distance series as CSV to this file");
  command->add_flag("--partial", partial, "write the merged partial instead (to merge again later with more shards)");
}

int MergeCommand::run() {
  check_output(out, "--out");
  if (!csv.empty()) check_output(csv, "--csv");
  if (partial && !csv.empty()) throw InputError("--csv", "not given with --partial", csv);
  std::vector<Partial> parts;
  for (const std::string& f : inputs) {
    parts.push_back(parse_partial(read_file_bytes(f, f, "a readable partial file"), f));
  }
  const Partial merged = merge_partials(parts, inputs);
  if (partial) {
    atomic_write(out, partial_text(merged), "--out");
    std::cout << "merged " << merged.shards.size() << " of " << merged.shards.front().count << " shards into " << out << "\n";
    return 0;
  }
  return write_results(analyse(merged), out, csv);
}

}  // namespace ropecheck::cli

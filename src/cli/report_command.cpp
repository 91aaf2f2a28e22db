#include "cli/report_command.h"

#include <iostream>

#include "cli/flags.h"
#include "cpu/thread_count.h"
#include "io/input_error.h"
#include "report/compare.h"
#include "report/report.h"

namespace ropecheck::cli {

void ReportCommand::attach(CLI::App& app) {
  command = app.add_subcommand("report", "run every check and write a reproducibility report (report.md, run.json, figures/), or compare two");
  command->add_option("--out", out, "the report directory to create (default reports/<run id>)");
  command->add_flag("--quick", quick, "the quick report (default; < 2 min on 2 cores)");
  command->add_flag("--full", full, "the full report: paper-size samples and longer searches (minutes)");
  command->add_flag("--smoke", smoke, "CI's size: the fast claims and tiny samples (seconds; the reproducibility test)");
  command->add_option("--seed", seed, "seed of every random part, integer in [0, 2^64) (default 1)");
  command->add_flag("--force", force, "replace an existing report directory");
  command->add_option("--threads", threads, "worker threads, " + cpu::thread_count_range() + " (default: every core; results do not depend on it)");
  command->add_option("--real-model", real_model,
                      "a directory scripts/real-model wrote (the committed reference run: reports/real-model), included as it is");
  command->add_option("--compare", compare, "OLD NEW: compare two report directories instead of running")->expected(2);
  command->add_option("--timing-tolerance", timing_tolerance,
                      "--compare: relative tolerance of timings, decimal in [0, 1000] (default 3: within a factor 4; wall times within 1 s always agree)");
}

int ReportCommand::run() {
  if (!compare.empty()) {
    if (quick || full || smoke || force || !out.empty() || !seed.empty() || !threads.empty() || !real_model.empty())
      throw InputError("--compare", "OLD NEW alone (with --timing-tolerance at most)", "further report options");
    report::CompareOptions options;
    if (!timing_tolerance.empty()) options.timing_tolerance = parse_decimal("--timing-tolerance", timing_tolerance, "a decimal in [0, 1000]", 0, 1000);
    const report::CompareResult result = report::compare_reports(compare[0], compare[1], options);
    std::cout << report::format_comparison(result, options);
    return result.same() ? 0 : 1;
  }
  if (!timing_tolerance.empty()) throw InputError("--timing-tolerance", "used with --compare only", timing_tolerance);
  if (quick + full + smoke > 1) throw InputError("--quick/--full/--smoke", "at most one of them", "several");
  report::ReportOptions options;
  options.mode = full ? report::Mode::full : smoke ? report::Mode::smoke : report::Mode::quick;
  if (!seed.empty()) options.seed = parse_seed(seed);
  if (!threads.empty()) options.threads = parse_threads("--threads", threads);
  options.out_dir = out;
  options.force = force;
  options.command_line = command_line;
  options.real_model_dir = real_model;
  const report::ReportOutcome outcome = report::run_report(options, std::cerr);
  std::cout << "report written to " << outcome.directory << " (" << (outcome.exit_status == 0 ? "every verdict as the paper states" : "SOME VERDICTS DIFFER OR PARTS ARE MISSING: see report.md")
            << ", " << static_cast<long long>(outcome.seconds + 0.5) << " s)\n";
  return outcome.exit_status;
}

}  // namespace ropecheck::cli

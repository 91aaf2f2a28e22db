// File: report.h
// `ropecheck report`: runs every section (claims, Monte Carlo, spectrum figures, kernel,
// adversarial search), renders the figures and writes the report directory:
//   report.md      one page, read top to bottom (summary table, Table 1, errata, Monte Carlo,
//                  figures, kernel accuracy and speed, counterexamples, environment)
//   run.json       the same content machine-readable, schema "ropecheck-report/1":
//                  {"schema", "run": {id, start_utc, end_utc, command_line, out_dir, exit_status},
//                   "mode", "seed", "source", "environment", "randomness", "claims" (the summary
//                   rows), "sections": {key: data}, "timings": {key: timings, "wall_seconds"},
//                   "missing": [...], "artifacts": {path: {"sha256", "bytes", "deterministic"}},
//                   "exit_status"}
//   figures/       <name>.csv, .gp, .svg, .png
//   evidence/, counterexamples/
// Atomicity: everything is written into a sibling temporary directory which is renamed to the
// report directory at the end; an existing report directory is never replaced unless force (then
// the old one is renamed away first and removed after). An interrupted run leaves no report.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

#include "report/section.h"

namespace ropecheck::report {

struct ReportOptions {
  Mode mode = Mode::quick;
  std::uint64_t seed = 1;
  std::string out_dir;       // the report directory; empty: reports/<run id> under the current directory
  bool force = false;
  int threads = 0;           // 0: every core
  std::string command_line;  // as typed, for run.json
  std::string real_model_dir;  // a scripts/real-model output directory the report includes (empty: none)
};

struct ReportOutcome {
  std::string directory;  // where the report now is
  std::string run_id;
  int exit_status = 0;    // 0: every verdict as the paper states and nothing missing; 1 otherwise
  double seconds = 0;
};

// Returns: a run id "<UTC yyyymmddThhmmssZ>-<mode>-seed<S>".
std::string make_run_id(Mode mode, std::uint64_t seed);

// Runs the report. Throws InputError for an existing out_dir without force, or an out_dir whose
// parent cannot be written (checked before any computation).
ReportOutcome run_report(const ReportOptions& options, std::ostream& log);

}  // namespace ropecheck::report

// File: report_command.h
// `ropecheck report [--out DIR] [--quick|--full|--smoke] [--seed S] [--force] [--threads N]
// [--real-model DIR]` runs every part of ropecheck and writes a report directory (report/report.h),
// including a scripts/real-model run directory as committed when given one; exit 0 when every
// verdict is as the paper states and nothing is missing, 1 otherwise, 2 on bad input.
// `ropecheck report --compare OLD NEW [--timing-tolerance T]` compares two reports
// (report/compare.h); exit 0 when nothing changed, 1 on a verdict change or a number outside
// tolerance, 2 when a directory is not a report.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace ropecheck::cli {

struct ReportCommand {
  CLI::App* command = nullptr;
  std::string out, seed, threads, timing_tolerance, real_model;
  std::vector<std::string> compare;
  bool quick = false, full = false, smoke = false, force = false;
  std::string command_line;  // as typed, for run.json

  void attach(CLI::App& app);
  int run();
};

}  // namespace ropecheck::cli

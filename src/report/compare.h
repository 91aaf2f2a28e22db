// File: compare.h
// `ropecheck report --compare OLD NEW`: claim by claim and number by number, are two reports the
// same? The comparison reads the two run.json files only (report.md is generated from the same
// content) and walks both JSON trees together:
//   - "run" (id, UTC times, command line, output directory, exit status) is ignored: it
//     identifies a run, it is not a result -- except run.exit_status, compared exactly;
//   - "environment" and "source" differences are printed as notes, not changes (a reviewer's
//     machine differs; the numbers below are what must agree);
//   - timing values -- everything under a key "timings", and any number under a key named
//     "seconds" or ending in "_seconds" -- are compared within a relative tolerance
//     (default 3.0: the larger at most 4 times the smaller: the machine is shared and noisy), and
//     wall times within timing_floor_seconds of each other always agree;
//   - artifacts whose entry says "deterministic": false are ignored (their bytes depend on timings);
//   - everything else is compared exactly: strings, integers, booleans, and numbers as written
//     (certified bounds are decimal strings; seeded estimates are exact doubles), keys added or
//     removed, array lengths;
//   - arrays of objects with distinct string "id"s (the claims) are matched by id, and a path names
//     the id (/claims/lemma-a1/verdict): an added claim is an addition, not a shift of the others.
// A verdict change is a change of any value under a key "verdict" (or "as_paper_states").
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ropecheck::report {

struct CompareOptions {
  // Relative: max/min - 1 <= tolerance; >= 0. The default, a factor 4, is what one shared 2-core
  // machine showed between two quick reports (a section's wall time doubles when another job
  // builds beside it); a reviewer comparing across machines passes a larger one.
  double timing_tolerance = 3.0;
  // Wall times (a key "seconds" or "*_seconds") that differ by at most this many seconds agree
  // whatever their ratio: 3 ms against 7 ms is scheduling noise, not a slower build.
  double timing_floor_seconds = 1.0;
};

struct Difference {
  std::string path;  // JSON pointer, e.g. "/claims/3/verdict"
  std::string old_value, new_value;  // compact JSON text ("(absent)" when missing)
  enum class Kind { verdict, number, value, timing, note } kind = Kind::value;
};

struct CompareResult {
  std::vector<Difference> differences;  // in document order
  long long compared_values = 0;        // leaves compared exactly
  long long compared_timings = 0;       // leaves compared within the tolerance
  int verdict_changes = 0;
  int other_changes = 0;   // numbers or values that differ, timings outside tolerance
  int notes = 0;           // environment/source differences
  bool same() const { return verdict_changes == 0 && other_changes == 0; }
};

// Compares two parsed run.json documents.
CompareResult compare_runs(const nlohmann::json& old_run, const nlohmann::json& new_run, const CompareOptions& options = {});

// Reads DIR/run.json of both directories (InputError naming the directory when missing or not a
// ropecheck report: no "schema": "ropecheck-report/1") and compares them.
CompareResult compare_reports(const std::string& old_dir, const std::string& new_dir, const CompareOptions& options = {});

// Returns: the printed comparison: one line per difference ("verdict  /claims/3/verdict: holds ->
// inconclusive"), then a summary line ("no change: N values identical, M timings within
// tolerance" or "K verdict change(s), J other change(s)").
std::string format_comparison(const CompareResult& result, const CompareOptions& options = {});

}  // namespace ropecheck::report

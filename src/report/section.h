// File: section.h
// A report section: what one part of `ropecheck report` computed (claims, Monte Carlo, kernel,
// adversarial search, spectrum figures), in three forms: `data` for run.json (every number a
// reviewer can diff exactly), `timings` (wall times and throughputs, compared within a tolerance),
// and `markdown` for report.md; plus the files (evidence, counterexamples) and figures it made.
//
// Determinism contract: for a fixed Context (mode, seed) and build, `data`, `summary`, every
// artifact marked deterministic and every figure's CSV are the same bytes on every run and for
// any thread count. Anything measured with a clock goes to `timings` (or a non-deterministic
// artifact), never to `data`.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ropecheck::report {

// smoke: CI's size (the reproducibility test; seconds); quick: the README's run command (< 2 min
// on 2 cores); full: the paper's sample counts and longer searches (minutes).
enum class Mode { smoke, quick, full };
std::string mode_name(Mode m);  // "smoke", "quick", "full"

struct Context {
  Mode mode = Mode::quick;
  std::uint64_t seed = 1;
  int threads = 1;              // worker threads where a computation has them (results do not depend on it)
  std::ostream* log = nullptr;  // progress lines (stderr in the CLI); never null once run_report starts
  std::string work_dir;         // absolute path of the report's temporary directory (files go under it)
  std::string real_model_dir;   // a scripts/real-model output directory to include; empty: none
};

// A file of the report other than report.md / run.json / figures, e.g. "evidence/claims/lemma-a1.json".
struct Artifact {
  std::string path;     // relative to the report directory, '/'-separated, no ".."
  std::string content;  // the bytes
  bool deterministic = true;  // false: depends on a clock (timings) -- excluded from exact comparison
};

// A figure: its data as CSV and the gnuplot commands that draw it (figure.h renders SVG and PNG).
struct Figure {
  std::string name;     // file stem: figures/<name>.{csv,gp,svg,png}; [a-z0-9.-]+
  std::string title;    // the plot's title: what it shows
  std::string caption;  // one line under the figure in report.md: what the reader should see
  std::string csv;      // a header line, then rows; comma-separated; the only data the plot reads
  std::string xlabel, ylabel;  // with units
  bool logx = false, logy = false;
  std::string settings;  // further gnuplot commands, one per line (ranges, key, arrows, objects)
  // The arguments of gnuplot's `plot`, with the word DATA standing for the quoted CSV path, e.g.
  //   "DATA using 'r':'mean' with lines title 'mean a(r)'"  (columns by header name or number)
  std::string plot;
  bool deterministic = true;  // false when the data are timings
};

// One row of report.md's summary table (and run.json's "claims").
struct SummaryRow {
  std::string id;         // "lemma-a1", "mc-fig2b", "kernel-accuracy", "adv-apostrophe", ...
  std::string statement;  // one line
  std::string method;     // "MPFI interval arithmetic, 257 bits", "Monte Carlo, 4297 trials, 3 tests at 0.001", ...
  std::string range;      // the finite parameter range checked
  std::string verdict;    // certificate.h's verdict names ("holds", "confirmed", "inconclusive", ...)
  std::string expected;   // what the paper states (same vocabulary)
  bool as_paper_states = false;
  std::string key_quantity;  // one quantity with its bounds, e.g. "alpha in [0.4912, 0.4913]"
  std::string evidence;      // relative path of the evidence file
  unsigned precision_bits = 0;  // 0 when not an arbitrary-precision computation
};

struct SectionResult {
  std::string key;             // "claims", "montecarlo", "kernel", "adversarial", "spectrum"
  nlohmann::json data = nlohmann::json::object();     // deterministic content for run.json
  nlohmann::json timings = nlohmann::json::object();  // clock measurements for run.json
  std::string markdown;        // this section's part of report.md (starts with "## ")
  std::vector<SummaryRow> summary;
  std::vector<Artifact> artifacts;
  std::vector<Figure> figures;
  bool as_paper_states = true;       // false makes `ropecheck report` exit 1
  std::vector<std::string> missing;  // parts that could not run, each named with the reason
};

// Returns: a GitHub-flavoured Markdown table ('|' in cells escaped, newlines turned to spaces).
std::string markdown_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);

}  // namespace ropecheck::report

#include "report/report.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "io/atomic_write.h"
#include "io/file_bytes.h"
#include "io/input_error.h"
#include "io/temporaries.h"
#include "io/printf_string.h"
#include "io/sha256.h"
#include "report/adversarial_section.h"
#include "report/claims_section.h"
#include "report/figure.h"
#include "report/kernel_section.h"
#include "report/models_section.h"
#include "report/montecarlo_section.h"
#include "report/real_model_section.h"
#include "report/run_info.h"
#include "report/spectrum_section.h"
#include "report/usage_section.h"

namespace ropecheck::report {

namespace fs = std::filesystem;

namespace {

std::string utc_text(std::chrono::system_clock::time_point t, const char* format) {
  const std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

// The report's sections in the order they run and appear. Each runs in its own try: a section that
// fails (an internal error, a missing tool) is named in `missing` and the others still run.
using SectionFunction = SectionResult (*)(const Context&);
const std::vector<std::pair<std::string, SectionFunction>>& sections() {
  static const std::vector<std::pair<std::string, SectionFunction>> list{{"claims", claims_section},
                                                                         {"montecarlo", montecarlo_section},
                                                                         {"spectrum", spectrum_section},
                                                                         {"kernel", kernel_section},
                                                                         {"adversarial", adversarial_section},
                                                                         {"models", models_section},
                                                                         {"usage", usage_section},
                                                                         {"real_model", real_model_section}};
  return list;
}

// The summary table; without the evidence column it is also written as claims-table.md, which
// docs/claims.md quotes verbatim and README.md summarises (tests keep them equal; neither has the
// evidence files to link).
std::string summary_table(const std::vector<SummaryRow>& rows, bool evidence) {
  std::vector<std::vector<std::string>> t;
  for (const SummaryRow& r : rows) {
    t.push_back({"`" + r.id + "`", r.statement, r.method, r.range, (r.as_paper_states ? "" : "**") + r.verdict + (r.as_paper_states ? "" : "**"),
                 r.expected, r.key_quantity});
    if (evidence) t.back().push_back(r.evidence.empty() ? "-" : "[" + r.evidence.substr(r.evidence.rfind('/') + 1) + "](" + r.evidence + ")");
  }
  std::vector<std::string> header{"id", "statement", "method", "range checked", "verdict", "paper", "key quantity"};
  if (evidence) header.push_back("evidence");
  return markdown_table(header, t);
}

std::string summary_markdown(const std::vector<SummaryRow>& rows) {
  int agree = 0;
  for (const SummaryRow& r : rows) agree += r.as_paper_states;
  std::string md = "## Summary\n\n" + std::to_string(agree) + " of " + std::to_string(rows.size()) +
                   " checks come out as the paper states. A verdict is only `holds`/`confirmed` when the computation decided it: "
                   "an interval comparison that cannot be decided is `inconclusive` and counts as disagreeing.\n\n";
  return md + summary_table(rows, true) + "\n";
}

std::string figures_markdown(const std::vector<Figure>& figures, const std::map<std::string, RenderedFigure>& rendered) {
  std::string md = "## Figures\n\nEach figure is drawn by gnuplot from the CSV beside it (`figures/<name>.csv`); `figures/<name>.gp` "
                   "redraws it (`cd figures && gnuplot <name>.gp`).\n\n";
  for (const Figure& f : figures) {
    const auto it = rendered.find(f.name);
    md += "### " + f.title + "\n\n";
    if (it != rendered.end() && it->second.rendered) md += "![" + f.title + "](figures/" + f.name + ".svg)\n\n";
    else md += "(not rendered: " + (it == rendered.end() ? std::string("not attempted") : it->second.problem) + ")\n\n";
    md += "*" + f.caption + "* Data: [" + f.name + ".csv](figures/" + f.name + ".csv).\n\n";
  }
  return md;
}

std::string environment_markdown(const nlohmann::json& source, const nlohmann::json& env, const nlohmann::json& timings) {
  std::string md = "## Environment\n\n";
  auto text = [](const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
  std::vector<std::vector<std::string>> rows;
  for (const auto& [k, v] : source.items()) rows.push_back({"source." + k, text(v)});
  for (const auto& [k, v] : env.items()) {
    if (v.is_object())
      for (const auto& [k2, v2] : v.items()) rows.push_back({k + "." + k2, text(v2)});
    else rows.push_back({k, text(v)});
  }
  md += markdown_table({"item", "value"}, rows);
  md += "\nWall times of this run (seconds; compared only within a tolerance by `--compare`):\n\n";
  std::vector<std::vector<std::string>> t;
  for (const auto& [section, v] : timings.items()) {
    if (v.is_number()) t.push_back({section, printf_string("%.2f", v.get<double>())});
    else if (v.is_object())
      for (const auto& [k, x] : v.items())
        if (x.is_number()) t.push_back({section + "." + k, printf_string("%.3g", x.get<double>())});
  }
  return md + markdown_table({"part", "value"}, t) + "\n";
}

}  // namespace

std::string make_run_id(Mode mode, std::uint64_t seed) {
  return utc_text(std::chrono::system_clock::now(), "%Y%m%dT%H%M%SZ") + "-" + mode_name(mode) + "-seed" + std::to_string(seed);
}

ReportOutcome run_report(const ReportOptions& options, std::ostream& log) {
  const auto start_wall = std::chrono::system_clock::now();
  const auto start = std::chrono::steady_clock::now();
  ReportOutcome outcome;
  outcome.run_id = make_run_id(options.mode, options.seed);
  const fs::path target = fs::absolute(options.out_dir.empty() ? fs::path("reports") / outcome.run_id : fs::path(options.out_dir)).lexically_normal();
  outcome.directory = target.string();

  // Refuse before any computation: an existing report is never replaced without --force, and the
  // parent must be writable (created when missing, like reports/ in a fresh clone).
  std::error_code ec;
  if (fs::exists(target, ec) && !options.force)
    throw InputError("--out", "a report directory that does not exist yet (or --force to replace it)", target.string());
  if (fs::exists(target, ec) && !fs::is_directory(target, ec)) throw InputError("--out", "a directory path (this is a file)", target.string());
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::current_path();
  fs::create_directories(parent, ec);
  if (ec || access(parent.c_str(), W_OK) != 0) throw InputError("--out", "a path whose parent directory can be created and written", target.string());

  if (!options.real_model_dir.empty() && !fs::is_regular_file(fs::path(options.real_model_dir) / "index.json", ec))
    throw InputError("--real-model", "a directory scripts/real-model wrote (with its index.json)", options.real_model_dir);

  const std::string swept = sweep_stale_temporaries(target.string());  // a killed run's leftovers
  if (!swept.empty()) log << swept << "\n";
  // Registered (io/temporaries.h): an interrupt removes it; the destructor removes it on any error.
  Temporary work_dir = Temporary::make_directory(temporary_directory_pattern(target.string()));
  if (work_dir.path().empty()) throw InputError("--out", "a path whose parent directory can be written", target.string());
  const fs::path work(work_dir.path());

  Context context;
  context.mode = options.mode;
  context.seed = options.seed;
  context.threads = options.threads > 0 ? options.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  context.log = &log;
  context.work_dir = work.string();
  context.real_model_dir = options.real_model_dir;
  log << "ropecheck report: " << mode_name(options.mode) << ", seed " << options.seed << ", " << context.threads << " thread(s), writing "
      << target.string() << "\n"
      << std::flush;

  try {
    std::vector<SectionResult> results;
    std::vector<std::string> missing;
    nlohmann::json timings = nlohmann::json::object();
    for (const auto& [key, run] : sections()) {
      const auto t0 = std::chrono::steady_clock::now();
      try {
        results.push_back(run(context));
      } catch (const std::exception& e) {
        SectionResult failed;
        failed.key = key;
        failed.as_paper_states = false;
        failed.missing.push_back(key + ": the section failed: " + e.what());
        failed.markdown = "## " + key + "\n\nThis section failed: " + std::string(e.what()) + "\n\n";
        results.push_back(failed);
      }
      SectionResult& r = results.back();
      for (const std::string& m : r.missing) missing.push_back(m);
      timings[key] = r.timings;
      timings[key]["section_seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      for (const Artifact& a : r.artifacts) {
        const fs::path p = work / a.path;
        fs::create_directories(p.parent_path());
        atomic_write(p.string(), a.content, a.path);
      }
    }

    // Figures, in section order.
    std::vector<Figure> figures;
    std::map<std::string, RenderedFigure> rendered;
    std::map<std::string, bool> deterministic_file;  // relative path -> deterministic
    for (const SectionResult& r : results)
      for (const Figure& f : r.figures) {
        log << "report: figure " << f.name << "\n" << std::flush;
        RenderedFigure rf = render_figure(f, work.string());
        if (!rf.rendered) missing.push_back("figure " + f.name + ": " + rf.problem);
        // A figure's image bytes are a function of its CSV and script (figure.h: gnuplot writes no
        // timestamp), so its files are as deterministic as its data.
        for (const std::string& file : rf.files) deterministic_file[file] = f.deterministic;
        rendered[f.name] = rf;
        figures.push_back(f);
      }
    for (const SectionResult& r : results)
      for (const Artifact& a : r.artifacts) deterministic_file[a.path] = a.deterministic;

    // run.json's content, then report.md from the same content.
    std::vector<SummaryRow> summary;
    bool agree = true;
    nlohmann::json data = nlohmann::json::object();
    for (const SectionResult& r : results) {
      summary.insert(summary.end(), r.summary.begin(), r.summary.end());
      agree = agree && r.as_paper_states;
      data[r.key] = r.data;
    }
    for (const SummaryRow& s : summary) agree = agree && s.as_paper_states;
    outcome.exit_status = agree && missing.empty() ? 0 : 1;

    const nlohmann::json source = source_info();
    const nlohmann::json env = machine_environment();
    nlohmann::json claims = nlohmann::json::array();
    for (const SummaryRow& s : summary)
      claims.push_back({{"id", s.id}, {"statement", s.statement}, {"method", s.method}, {"range", s.range}, {"verdict", s.verdict},
                        {"expected", s.expected}, {"as_paper_states", s.as_paper_states}, {"key_quantity", s.key_quantity},
                        {"evidence", s.evidence}, {"precision_bits", s.precision_bits}});
    nlohmann::json randomness = {{"seed", options.seed},
                                 {"rng", "Philox4x32-10 (Random123), counter-based: every random value is a function of (seed, stream, index)"},
                                 {"thread_count_independent", true}};
    for (const SectionResult& r : results)
      if (r.data.is_object() && r.data.contains("randomness")) randomness[r.key] = r.data["randomness"];
    if (data.contains("kernel") && data["kernel"].contains("samples"))
      for (const char* key : {"seed", "samples", "heads_per_position", "max_position"})
        if (data["kernel"].contains(key)) randomness["kernel"][key] = data["kernel"][key];
    if (data.contains("adversarial") && data["adversarial"].contains("searches"))
      for (const auto& search : data["adversarial"]["searches"]) {
        // Copied as they are (a kernel search has no config: null), never re-typed (value(key, 0)
        // would narrow a 2^40 position to int).
        nlohmann::json entry = nlohmann::json::object();
        for (const char* key : {"search", "config", "seed", "max_candidates", "tried"})
          if (search.contains(key)) entry[key] = search[key];
        randomness["adversarial"].push_back(entry);
      }
    if (data.contains("montecarlo") && data["montecarlo"].contains("experiments"))
      for (const auto& [name, e] : data["montecarlo"]["experiments"].items()) {
        nlohmann::json trials = nlohmann::json::array();
        for (const auto& s : e["params"]["series"]) trials.push_back(s.value("trials", 0));
        randomness["montecarlo"][name] = {{"trials_per_series", trials}, {"max_distance", e["params"].value("max_distance", 0)}};
      }

    atomic_write((work / "claims-table.md").string(), summary_table(summary, false), "claims-table.md");

    std::string md = "# ropecheck report `" + outcome.run_id + "`\n\n";
    md += "What this build of ropecheck found on this machine, checking the claims of *Round and Round We Go! What makes Rotary "
          "Positional Encodings useful?* (" + mode_name(options.mode) + " report, seed " + std::to_string(options.seed) + ", commit `" +
          source.value("commit", std::string("unknown")) + "`" + (source.value("dirty", false) == true ? ", with uncommitted changes" : "") +
          "). Reproduce with `" + options.command_line + "`; compare two reports with `ropecheck report --compare OLD NEW`. "
          "Machine-readable content: [run.json](run.json).\n\n";
    md += summary_markdown(summary);
    // Every section ends with a blank line, so the next heading never continues its last table.
    auto section_text = [](const SectionResult& r) {
      std::string text = r.markdown;
      while (!text.empty() && text.back() == '\n') text.pop_back();
      return text.empty() ? text : text + "\n\n";
    };
    for (const SectionResult& r : results)
      if (r.key == "claims") md += section_text(r);
    for (const SectionResult& r : results)
      if (r.key == "montecarlo") md += section_text(r);
    md += figures_markdown(figures, rendered);
    for (const SectionResult& r : results)
      if (r.key != "claims" && r.key != "montecarlo") md += section_text(r);
    if (!missing.empty()) {
      md += "## Missing parts\n\n";
      for (const std::string& m : missing) md += "- " + m + "\n";
      md += "\n";
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    timings["wall_seconds"] = seconds;
    md += environment_markdown(source, env, timings);
    atomic_write((work / "report.md").string(), md, "report.md");
    deterministic_file["report.md"] = false;  // it prints the run id and wall times

    nlohmann::json artifacts = nlohmann::json::object();
    std::vector<fs::path> files;
    for (const auto& entry : fs::recursive_directory_iterator(work))
      if (entry.is_regular_file()) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& p : files) {
      const std::string rel = p.lexically_relative(work).generic_string();
      if (rel == "run.json") continue;
      const std::string bytes = read_file_bytes(p.string(), p.string());
      const auto it = deterministic_file.find(rel);
      artifacts[rel] = {{"sha256", sha256_hex(bytes)}, {"bytes", bytes.size()}, {"deterministic", it == deterministic_file.end() ? true : it->second}};
    }

    nlohmann::json run = {{"schema", "ropecheck-report/1"},
                          {"run",
                           {{"id", outcome.run_id},
                            {"start_utc", utc_text(start_wall, "%Y-%m-%dT%H:%M:%SZ")},
                            {"end_utc", utc_text(std::chrono::system_clock::now(), "%Y-%m-%dT%H:%M:%SZ")},
                            {"command_line", options.command_line},
                            {"out_dir", target.string()},
                            {"exit_status", outcome.exit_status}}},
                          {"mode", mode_name(options.mode)},
                          {"seed", options.seed},
                          {"source", source},
                          {"environment", env},
                          {"randomness", randomness},
                          {"claims", claims},
                          {"sections", data},
                          {"timings", timings},
                          {"missing", missing},
                          {"artifacts", artifacts},
                          {"exit_status", outcome.exit_status}};
    atomic_write((work / "run.json").string(), run.dump(1) + "\n", "run.json");

    // Publish: one rename makes the whole directory appear. With --force the old report is moved
    // aside first and removed only after the new one is in place; both renames happen under the
    // temporaries' lock, so an interrupt never leaves the old report hidden and the new one gone.
    const fs::path old = parent / ("." + target.filename().string() + ".old-" + std::to_string(getpid()));
    Temporary old_report(old.string());  // once the new report is in place, the old one is a temporary
    bool published = false;
    try {
      work_dir.commit([&] {
        const bool replacing = fs::exists(target);
        if (replacing) fs::rename(target, old);
        std::error_code rename_error;
        fs::rename(work, target, rename_error);
        if (rename_error) {
          if (replacing) fs::rename(old, target, ec);  // put the old report back
          throw fs::filesystem_error("cannot rename the report into place", work, target, rename_error);
        }
        published = true;
      });
    } catch (...) {
      if (!published) old_report.release();  // whatever is at `old` now is the only copy: keep it
      throw;
    }
    outcome.seconds = seconds;
    return outcome;
  } catch (...) {
    fs::remove_all(work, ec);
    throw;
  }
}

}  // namespace ropecheck::report

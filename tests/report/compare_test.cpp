#include "report/compare.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "io/input_error.h"

namespace ropecheck::report {
namespace {

namespace fs = std::filesystem;

// A run.json of report.h's shape, small.
nlohmann::json sample_run() {
  return nlohmann::json::parse(R"json({
    "schema": "ropecheck-report/1",
    "run": {"id": "20250101T000000Z-smoke-seed1", "start_utc": "2025-01-01T00:00:00Z", "end_utc": "2025-01-01T00:00:09Z",
            "command_line": "ropecheck report --quick", "out_dir": "reports/x", "exit_status": 0},
    "mode": "smoke",
    "seed": 1,
    "source": {"commit": "0123456789abcdef0123456789abcdef01234567", "dirty": false},
    "environment": {"os": "Debian GNU/Linux 12 (bookworm)", "cpu": {"model": "AMD EPYC", "logical_cpus": 2}},
    "claims": [
      {"id": "lemma-a1", "verdict": "holds", "as_paper_states": true, "key_quantity": "alpha in [0.4912, 0.4913]"},
      {"id": "mc-fig2b", "verdict": "confirmed", "as_paper_states": true, "key_quantity": "mean 0.125"}
    ],
    "sections": {"montecarlo": {"mean": 0.125, "trials": 4297, "certificate": {"verdict": "holds", "seconds": 0.5}}},
    "timings": {"claims": {"lemma-a1": 1.0}, "wall_seconds": 9.0},
    "missing": [],
    "artifacts": {
      "evidence/claims/lemma-a1.json": {"sha256": "aa", "bytes": 10, "deterministic": true},
      "evidence/kernel/speed.json": {"sha256": "bb", "bytes": 20, "deterministic": false}
    },
    "exit_status": 0
  })json");
}

std::string differences_text(const CompareResult& r) { return format_comparison(r); }

TEST(CompareRuns, IdenticalDocumentsAreTheSame) {
  const nlohmann::json a = sample_run();
  const CompareResult r = compare_runs(a, a);
  EXPECT_TRUE(r.same()) << differences_text(r);
  EXPECT_TRUE(r.differences.empty()) << differences_text(r);
  // Leaves compared exactly: schema, mode, seed (3), 2 claims x 4 fields (8), montecarlo's mean,
  // trials and certificate verdict (3), the 3 fields of the deterministic artifact (the other is
  // ignored), run.exit_status and exit_status (2): 19. "missing" is empty (no leaf); "source" and
  // "environment" are notes, not counted.
  EXPECT_EQ(r.compared_values, 19) << differences_text(r);
  // Timings: certificate seconds, timings.claims.lemma-a1, timings.wall_seconds.
  EXPECT_EQ(r.compared_timings, 3);
  EXPECT_EQ(differences_text(r), "no change: 19 values identical, 3 timings within tolerance\n");
}

TEST(CompareRuns, VerdictChange) {
  const nlohmann::json a = sample_run();
  nlohmann::json b = a;
  b["claims"][1]["verdict"] = "inconclusive";
  const CompareResult r = compare_runs(a, b);
  EXPECT_FALSE(r.same());
  EXPECT_EQ(r.verdict_changes, 1);
  EXPECT_EQ(r.other_changes, 0);
  ASSERT_EQ(r.differences.size(), 1u);
  EXPECT_EQ(r.differences[0].path, "/claims/mc-fig2b/verdict");
  EXPECT_EQ(r.differences[0].kind, Difference::Kind::verdict);
  EXPECT_EQ(r.differences[0].old_value, "\"confirmed\"");
  EXPECT_EQ(r.differences[0].new_value, "\"inconclusive\"");
  EXPECT_EQ(differences_text(r), "verdict  /claims/mc-fig2b/verdict: confirmed -> inconclusive\n1 verdict change(s), 0 other change(s)\n");
}

TEST(CompareRuns, AsPaperStatesAndNestedVerdictsAreVerdicts) {
  const nlohmann::json a = sample_run();
  nlohmann::json b = a;
  b["claims"][0]["as_paper_states"] = false;
  b["sections"]["montecarlo"]["certificate"]["verdict"] = "fails";
  const CompareResult r = compare_runs(a, b);
  EXPECT_EQ(r.verdict_changes, 2) << differences_text(r);
  EXPECT_EQ(r.other_changes, 0) << differences_text(r);
}

TEST(CompareRuns, CertifiedBoundStringChangedIsAChange) {
  const nlohmann::json a = sample_run();
  nlohmann::json b = a;
  b["claims"][0]["key_quantity"] = "alpha in [0.4912, 0.4914]";
  const CompareResult r = compare_runs(a, b);
  EXPECT_FALSE(r.same());
  EXPECT_EQ(r.verdict_changes, 0);
  EXPECT_EQ(r.other_changes, 1);
  ASSERT_EQ(r.differences.size(), 1u);
  EXPECT_EQ(r.differences[0].kind, Difference::Kind::value);
  EXPECT_EQ(r.differences[0].path, "/claims/lemma-a1/key_quantity");
}

// Seeded estimates are exact doubles: the last bit counts, and 1 (integer) is not 1.0.
TEST(CompareRuns, NumbersAreComparedAsWritten) {
  const nlohmann::json a = sample_run();
  nlohmann::json b = a;
  b["sections"]["montecarlo"]["mean"] = std::nextafter(0.125, 1.0);
  b["sections"]["montecarlo"]["trials"] = 4297.0;
  const CompareResult r = compare_runs(a, b);
  EXPECT_EQ(r.other_changes, 2) << differences_text(r);
  for (const Difference& d : r.differences) EXPECT_EQ(d.kind, Difference::Kind::number) << d.path;
}

TEST(CompareRuns, TimingsWithinAndOutsideTolerance) {
  const nlohmann::json a = sample_run();
  nlohmann::json b = a;
  // Tolerance 1 (a factor 2), floor 0: the relative rule alone.
  const CompareOptions factor_2{.timing_tolerance = 1.0, .timing_floor_seconds = 0};
  b["timings"]["claims"]["lemma-a1"] = 1.9;  // 1.9 / 1.0 - 1 = 0.9 <= 1.0
  b["sections"]["montecarlo"]["certificate"]["seconds"] = 0.9;  // 0.9 / 0.5 - 1 = 0.8
  CompareResult r = compare_runs(a, b, factor_2);
  EXPECT_TRUE(r.same()) << differences_text(r);
  EXPECT_EQ(r.compared_timings, 3);

  b["timings"]["claims"]["lemma-a1"] = 2.5;  // 1.5 > 1.0
  r = compare_runs(a, b, factor_2);
  EXPECT_FALSE(r.same());
  EXPECT_EQ(r.other_changes, 1) << differences_text(r);
  ASSERT_EQ(r.differences.size(), 1u);
  EXPECT_EQ(r.differences[0].kind, Difference::Kind::timing);
  EXPECT_EQ(r.differences[0].path, "/timings/claims/lemma-a1");
  // A tighter tolerance catches the smaller drift too.
  b["timings"]["claims"]["lemma-a1"] = 1.9;
  EXPECT_EQ(compare_runs(a, b, {.timing_tolerance = 0.5, .timing_floor_seconds = 0}).other_changes, 2);
  // The defaults: a factor 4, and wall times within a second always agree.
  b["timings"]["claims"]["lemma-a1"] = 3.9;
  EXPECT_TRUE(compare_runs(a, b).same()) << differences_text(compare_runs(a, b));
  b["timings"]["claims"]["lemma-a1"] = 4.5;
  EXPECT_EQ(compare_runs(a, b).other_changes, 1);
  nlohmann::json c = {{"timings", {{"fig2a_seconds", 0.003}, {"gb_per_s", 10.0}}}}, d = c;
  d["timings"]["fig2a_seconds"] = 0.9;  // 300x, but 0.9 s apart: under the floor
  EXPECT_TRUE(compare_runs(c, d).same());
  d["timings"]["gb_per_s"] = 50.0;  // not a wall time: the ratio rule alone
  EXPECT_EQ(compare_runs(c, d).other_changes, 1);
  EXPECT_THROW(compare_runs(a, b, {.timing_tolerance = -1}), InputError);
}

TEST(CompareRuns, TimingZeros) {
  nlohmann::json a = {{"timings", {{"x", 0.0}}}}, b = a;
  EXPECT_TRUE(compare_runs(a, b).same());
  b["timings"]["x"] = 1e-9;
  EXPECT_FALSE(compare_runs(a, b).same()) << "zero against non-zero is outside any relative tolerance";
  EXPECT_EQ(compare_runs(a, b, {.timing_tolerance = 1e9}).other_changes, 1);
}

TEST(CompareRuns, RunIsIgnoredExceptExitStatus) {
  const nlohmann::json a = sample_run();
  nlohmann::json b = a;
  b["run"]["id"] = "20250102T000000Z-smoke-seed1";
  b["run"]["start_utc"] = "2025-01-02T00:00:00Z";
  b["run"]["out_dir"] = "reports/y";
  b["run"]["extra"] = "added";
  CompareResult r = compare_runs(a, b);
  EXPECT_TRUE(r.same()) << differences_text(r);
  EXPECT_TRUE(r.differences.empty()) << differences_text(r);
  b["run"]["exit_status"] = 1;
  r = compare_runs(a, b);
  EXPECT_EQ(r.other_changes, 1) << differences_text(r);
  ASSERT_EQ(r.differences.size(), 1u);
  EXPECT_EQ(r.differences[0].path, "/run/exit_status");
}

TEST(CompareRuns, EnvironmentAndSourceAreNotes) {
  const nlohmann::json a = sample_run();
  nlohmann::json b = a;
  b["environment"]["cpu"]["model"] = "Intel Xeon";
  b["environment"]["cpu"]["logical_cpus"] = 64;
  b["source"]["dirty"] = true;
  const CompareResult r = compare_runs(a, b);
  EXPECT_TRUE(r.same()) << differences_text(r);
  EXPECT_EQ(r.notes, 3);
  for (const Difference& d : r.differences) EXPECT_EQ(d.kind, Difference::Kind::note) << d.path;
  const std::string text = differences_text(r);
  EXPECT_NE(text.find("note     /environment/cpu/model: AMD EPYC -> Intel Xeon\n"), std::string::npos) << text;
  EXPECT_NE(text.find("no change: 19 values identical, 3 timings within tolerance; 3 environment/source note(s)\n"), std::string::npos)
      << text;
}

TEST(CompareRuns, ArtifactsNonDeterministicIgnoredDeterministicCompared) {
  const nlohmann::json a = sample_run();
  nlohmann::json b = a;
  b["artifacts"]["evidence/kernel/speed.json"]["sha256"] = "cc";
  b["artifacts"]["evidence/kernel/speed.json"]["bytes"] = 21;
  EXPECT_TRUE(compare_runs(a, b).same());
  b["artifacts"]["evidence/claims/lemma-a1.json"]["sha256"] = "ab";
  const CompareResult r = compare_runs(a, b);
  EXPECT_EQ(r.other_changes, 1) << differences_text(r);
  ASSERT_EQ(r.differences.size(), 1u);
  EXPECT_EQ(r.differences[0].path, "/artifacts/evidence~1claims~1lemma-a1.json/sha256");
}

TEST(CompareRuns, AddedAndRemovedKeysAndElements) {
  const nlohmann::json a = sample_run();
  nlohmann::json b = a;
  b["sections"]["montecarlo"].erase("trials");
  b["sections"]["spectrum"] = {{"rows", 3}};
  b["claims"].push_back({{"id", "thm-5.3"}, {"verdict", "holds"}});
  const CompareResult r = compare_runs(a, b);
  EXPECT_FALSE(r.same());
  ASSERT_EQ(r.differences.size(), 3u) << differences_text(r);
  // Document order: claims (array) before sections; keys sorted within an object.
  EXPECT_EQ(r.differences[0].path, "/claims/thm-5.3");
  EXPECT_EQ(r.differences[0].old_value, "(absent)");
  EXPECT_EQ(r.differences[1].path, "/sections/montecarlo/trials");
  EXPECT_EQ(r.differences[1].new_value, "(absent)");
  EXPECT_EQ(r.differences[2].path, "/sections/spectrum");
  EXPECT_EQ(r.differences[2].new_value, "{\"rows\":3}");
  EXPECT_EQ(r.other_changes, 3);
  EXPECT_EQ(r.verdict_changes, 0);
}

// Claims are matched by id: one inserted in the middle is one addition, the others unchanged; a
// list that is not id-keyed (a repeated id) is still compared by position.
TEST(CompareRuns, ClaimsAreMatchedByIdNotPosition) {
  const nlohmann::json a = sample_run();
  nlohmann::json b = a;
  b["claims"].insert(b["claims"].begin() + 1, nlohmann::json::object({{"id", "kernel-accuracy-f16"}, {"verdict", "holds"}, {"as_paper_states", true}}));
  const CompareResult r = compare_runs(a, b);
  ASSERT_EQ(r.differences.size(), 1u) << differences_text(r);
  EXPECT_EQ(r.differences[0].path, "/claims/kernel-accuracy-f16");
  EXPECT_EQ(r.differences[0].old_value, "(absent)");
  EXPECT_EQ(r.verdict_changes, 0);
  nlohmann::json c = a, d = a;
  c["claims"][1]["id"] = "lemma-a1";
  d["claims"][1]["id"] = "lemma-a1";
  d["claims"][1]["verdict"] = "fails";
  const CompareResult by_position = compare_runs(c, d);
  ASSERT_EQ(by_position.differences.size(), 1u) << differences_text(by_position);
  EXPECT_EQ(by_position.differences[0].path, "/claims/1/verdict");
}

class RunDirs {
 public:
  RunDirs() {
    std::string pattern = (fs::temp_directory_path() / "ropecheck_compare_XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~RunDirs() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string sub(const std::string& name, const std::string& run_json) const {
    const fs::path d = path_ / name;
    fs::create_directories(d);
    if (!run_json.empty()) std::ofstream(d / "run.json") << run_json;
    return d.string();
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

TEST(CompareReports, ReadsTwoDirectories) {
  RunDirs tmp;
  nlohmann::json b = sample_run();
  b["timings"]["wall_seconds"] = 12.0;
  const std::string old_dir = tmp.sub("old", sample_run().dump(2));
  const std::string new_dir = tmp.sub("new", b.dump());
  CompareResult r = compare_reports(old_dir, new_dir);
  EXPECT_TRUE(r.same()) << format_comparison(r);
  EXPECT_EQ(r.compared_values, 19);
  b["claims"][0]["verdict"] = "fails";
  const std::string changed = tmp.sub("changed", b.dump());
  r = compare_reports(old_dir, changed);
  EXPECT_EQ(r.verdict_changes, 1) << format_comparison(r);
}

TEST(CompareReports, RejectsWhatIsNotAReport) {
  RunDirs tmp;
  const std::string good = tmp.sub("good", sample_run().dump());
  const std::string empty = tmp.sub("empty", "");
  const std::string garbage = tmp.sub("garbage", "{not json");
  const std::string other = tmp.sub("other", R"({"schema": "something-else/2"})");
  for (const std::string& bad : {empty, garbage, other, (tmp.path() / "absent").string()}) {
    try {
      compare_reports(good, bad);
      ADD_FAILURE() << bad << " accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.input(), bad) << e.what();
      EXPECT_NE(std::string(e.what()).find("ropecheck report directory"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(compare_reports(garbage, good), InputError);
  // Past the reader's limits (io/json_reader.h): named, with the limit, not a crash.
  const std::string deep = tmp.sub("deep", "{\"schema\": " + std::string(100000, '[') + std::string(100000, ']') + "}");
  try {
    compare_reports(good, deep);
    ADD_FAILURE() << "a run.json nested 100001 deep accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.input(), deep) << e.what();
    EXPECT_NE(std::string(e.what()).find("nesting depth at most 64"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ropecheck::report

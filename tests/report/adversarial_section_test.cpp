#include "report/adversarial_section.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "adversarial/replay.h"
#include "tests/support/files.h"

namespace ropecheck::report {
namespace {

namespace fs = std::filesystem;

// A fresh directory per run, removed afterwards; two runs use two different absolute paths, so
// data that leaked an absolute path would differ between them.
using test::TempDir;

using test::read_bytes;

SectionResult run_smoke(const fs::path& dir, int threads) {
  static std::ostringstream log;
  Context c;
  c.mode = Mode::smoke;
  c.seed = 1;
  c.threads = threads;
  c.log = &log;
  c.work_dir = dir.string();
  return adversarial_section(c);
}

const SummaryRow& row(const SectionResult& r, const std::string& id) {
  for (const SummaryRow& s : r.summary)
    if (s.id == id) return s;
  throw std::runtime_error("no summary row " + id);
}

TEST(AdversarialSection, SmokeIsReproducibleAndFindsThePapersBreak) {
  TempDir d1("report_adv_a"), d2("report_adv_b");
  const SectionResult a = run_smoke(d1.path, 1);
  const SectionResult b = run_smoke(d2.path, 2);

  EXPECT_EQ(a.key, "adversarial");
  EXPECT_TRUE(a.missing.empty()) << a.missing.front();
  EXPECT_EQ(a.data.dump(), b.data.dump());
  EXPECT_EQ(a.markdown, b.markdown);
  EXPECT_EQ(a.markdown.rfind("## Counterexamples found", 0), 0u) << a.markdown;
  EXPECT_EQ(a.data.dump().find(d1.path.string()), std::string::npos) << "an absolute path in data";
  EXPECT_EQ(a.markdown.find(d1.path.string()), std::string::npos) << "an absolute path in the markdown";
  ASSERT_EQ(a.summary.size(), b.summary.size());
  for (size_t i = 0; i < a.summary.size(); ++i) {
    const SummaryRow &x = a.summary[i], &y = b.summary[i];
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.statement, y.statement);
    EXPECT_EQ(x.method, y.method);
    EXPECT_EQ(x.range, y.range);
    EXPECT_EQ(x.verdict, y.verdict) << x.id;
    EXPECT_EQ(x.expected, y.expected);
    EXPECT_EQ(x.key_quantity, y.key_quantity) << x.id;
    EXPECT_EQ(x.evidence, y.evidence);
  }
  ASSERT_EQ(a.artifacts.size(), b.artifacts.size());
  ASSERT_FALSE(a.artifacts.empty());
  for (size_t i = 0; i < a.artifacts.size(); ++i) {
    EXPECT_EQ(a.artifacts[i].path, b.artifacts[i].path);
    EXPECT_EQ(a.artifacts[i].content, b.artifacts[i].content) << a.artifacts[i].path;
    EXPECT_TRUE(a.artifacts[i].deterministic);
    // Named relative to the report directory, and the bytes are the file run_fuzz wrote there.
    EXPECT_EQ(a.artifacts[i].path.rfind("counterexamples/", 0), 0u) << a.artifacts[i].path;
    EXPECT_EQ(read_bytes(d1.path / a.artifacts[i].path), a.artifacts[i].content) << a.artifacts[i].path;
  }
  EXPECT_TRUE(a.figures.empty());

  // The apostrophe head breaks, at the context thm-6.1 certifies for the same channel, and the
  // file it names replays as still breaking.
  const SummaryRow& apostrophe = row(a, "adv-apostrophe");
  EXPECT_EQ(apostrophe.verdict, "counterexample") << apostrophe.key_quantity;
  EXPECT_TRUE(apostrophe.as_paper_states);
  // Certified in binary64 with proved error bounds (53 bits; adversarial/bounded_scan.h) or in MPFI (>= 128).
  EXPECT_GE(apostrophe.precision_bits, 53u);
  const nlohmann::json& search = a.data["searches"][0];
  ASSERT_EQ(search["config"], "gemma-7b-apostrophe");
  ASSERT_EQ(search["findings"].size(), 1u) << search.dump();
  const nlohmann::json& finding = search["findings"][0];
  EXPECT_EQ(finding.value("certified_by", ""), "binary64 with proved error bounds") << finding.dump();
  const nlohmann::json& reference = a.data["thm_6_1_reference"];
  ASSERT_TRUE(reference.contains("shortest_breaking_context")) << reference.dump();
  EXPECT_EQ(finding["context"], reference["shortest_breaking_context"]) << finding.dump() << " vs " << reference.dump();
  EXPECT_EQ(finding["minimal"], "certified");
  EXPECT_TRUE(finding.contains("alpha_before") && finding.contains("alpha_after")) << finding.dump();
  EXPECT_EQ(apostrophe.evidence, finding["file"]);
  const adversarial::ReplayOutcome replay = adversarial::replay_file((d1.path / finding["file"].get<std::string>()).string());
  EXPECT_EQ(replay.verdict, ReplayVerdict::still_breaks) << replay.detail;

  EXPECT_EQ(row(a, "adv-band-gemma").verdict, "counterexample") << row(a, "adv-band-gemma").key_quantity;
  EXPECT_EQ(row(a, "adv-p-rope-control").verdict, "holds") << row(a, "adv-p-rope-control").key_quantity;
  EXPECT_EQ(row(a, "adv-kernel").verdict, "holds") << row(a, "adv-kernel").key_quantity;
  for (const SummaryRow& r : a.summary) EXPECT_TRUE(r.as_paper_states) << r.id << ": " << r.verdict << " vs " << r.expected;
  EXPECT_TRUE(a.as_paper_states);
  for (const nlohmann::json& s : a.data["searches"]) EXPECT_EQ(s["tried"], s["max_candidates"]) << s.dump();
}

// A work directory the searches cannot write: every search is named in `missing` with the reason,
// its row is inconclusive (never a verdict made up), and nothing aborts.
TEST(AdversarialSection, UnwritableWorkDirIsReportedMissing) {
  TempDir d("report_adv_ro");
  const fs::path file = d.path / "not-a-directory";
  std::ofstream(file) << "x";
  const SectionResult r = run_smoke(file, 1);
  ASSERT_FALSE(r.missing.empty());
  for (const std::string& m : r.missing) EXPECT_NE(m.find("--out"), std::string::npos) << m;
  EXPECT_EQ(r.missing.size(), r.data["searches"].size());
  for (const SummaryRow& row : r.summary) EXPECT_EQ(row.verdict, "inconclusive") << row.id;
  EXPECT_FALSE(r.as_paper_states);
  EXPECT_TRUE(r.artifacts.empty());
}

}  // namespace
}  // namespace ropecheck::report

#include "report/real_model_section.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/input_error.h"
#include "report/report.h"

namespace ropecheck::report {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

// A directory as scripts/real-model writes it: index.json, comparison.md with a figure, one model.
fs::path fake_run(const std::string& name) {
  const fs::path dir = fs::path(testing::TempDir()) / name;
  fs::remove_all(dir);
  write(dir / "index.json", R"({"models": ["tiny-lm"], "command": "scripts/real-model --smoke"})");
  write(dir / "comparison.md", "## Across models\n\ntable\n");
  write(dir / "figures" / "comparison-rotation.svg", "<svg/>");
  write(dir / "tiny-lm" / "run.json",
        R"({"schema": "ropecheck-lm-run/1", "command": "c", "facts": {"name": "tiny-lm"}, "check": {"passed": true, "sequences": [1]},
            "weights": {"passed": true, "rows": [1, 2]}, "layer_types": [{"name": "all", "span": 8, "location": {}, "kinds": {}}],
            "ablations": {"lengths": [{"length": 64, "sequences": 2, "rows": []}]}, "timings": {"total_seconds": 1}})");
  write(dir / "tiny-lm" / "section.md", "## tiny-lm (measured)\n\ntext\n\n### Text\n");
  write(dir / "tiny-lm" / "figures" / "tiny-lm-all-queries.svg", "<svg/>");
  return dir;
}

TEST(RealModelSection, IncludesTheGivenDirectoryAsWritten) {
  std::ostringstream log;
  Context c;
  c.log = &log;
  c.real_model_dir = fake_run("real-model-section").string();
  const SectionResult r = real_model_section(c);
  EXPECT_EQ(r.key, "real_model");
  EXPECT_TRUE(r.summary.empty());  // measurements, not verdicts
  EXPECT_NE(r.markdown.find("`scripts/real-model --smoke`"), std::string::npos) << r.markdown;
  // the directory's sections one heading level down, the comparison first
  EXPECT_NE(r.markdown.find("\n### Across models"), std::string::npos) << r.markdown;
  EXPECT_NE(r.markdown.find("\n### tiny-lm (measured)"), std::string::npos) << r.markdown;
  EXPECT_NE(r.markdown.find("\n#### Text"), std::string::npos) << r.markdown;
  EXPECT_LT(r.markdown.find("Across models"), r.markdown.find("tiny-lm (measured)"));
  std::vector<std::string> files;
  for (const Artifact& a : r.artifacts) files.push_back(a.path);
  EXPECT_NE(std::find(files.begin(), files.end(), "figures/comparison-rotation.svg"), files.end());
  EXPECT_NE(std::find(files.begin(), files.end(), "figures/tiny-lm-all-queries.svg"), files.end());
  // the headline numbers, without the per-sequence and per-tensor rows
  const nlohmann::json& m = r.data["models"]["tiny-lm"];
  EXPECT_TRUE(m["check"]["passed"].get<bool>());
  EXPECT_FALSE(m["check"].contains("sequences"));
  EXPECT_FALSE(m["weights"].contains("rows"));
  EXPECT_EQ(m["ablations"][0]["length"], 64);
}

TEST(RealModelSection, WithoutADirectoryItSaysHowToMakeOne) {
  std::ostringstream log;
  Context c;
  c.log = &log;
  const SectionResult r = real_model_section(c);
  EXPECT_NE(r.markdown.find("--real-model DIR"), std::string::npos) << r.markdown;
  EXPECT_TRUE(r.missing.empty());
}

TEST(RealModelSection, ARunWithoutAnIndexIsRefusedBeforeAnyComputation) {
  ReportOptions o;
  o.mode = Mode::smoke;
  o.out_dir = (fs::path(testing::TempDir()) / "never-written").string();
  o.real_model_dir = testing::TempDir();  // a directory, but not one scripts/real-model wrote
  std::ostringstream log;
  try {
    run_report(o, log);
    FAIL() << "run_report accepted a directory without index.json";
  } catch (const InputError& e) {
    EXPECT_EQ(e.input(), "--real-model");
  }
  EXPECT_FALSE(fs::exists(o.out_dir));
}

}  // namespace
}  // namespace ropecheck::report

#include "numeric/dtype.h"
#include "report/kernel_section.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "io/input_error.h"
#include "cpu/path.h"

namespace ropecheck::report {
namespace {

// Everything the determinism contract covers, as one string: data, summary rows, deterministic
// artifacts, figure CSVs (and the figures' other fields, which are constants of the code).
std::string deterministic_content(const SectionResult& s) {
  std::ostringstream os;
  os << "key " << s.key << "\ndata " << s.data.dump() << "\n";
  for (const SummaryRow& r : s.summary)
    os << "row " << r.id << "|" << r.statement << "|" << r.method << "|" << r.range << "|" << r.verdict << "|" << r.expected << "|"
       << r.as_paper_states << "|" << r.key_quantity << "|" << r.evidence << "|" << r.precision_bits << "\n";
  for (const Artifact& a : s.artifacts)
    if (a.deterministic) os << "artifact " << a.path << "\n" << a.content << "\n";
  for (const Figure& f : s.figures) os << "figure " << f.name << "|" << f.title << "|" << f.caption << "|" << f.plot << "\n" << f.csv << "\n";
  os << "as_paper_states " << s.as_paper_states << "\n";
  return os.str();
}

// The figure's CSV as column name -> values (NaN cells read as NaN).
std::map<std::string, std::vector<double>> read_csv(const std::string& csv, std::size_t& rows) {
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> names;
  {
    std::istringstream h(line);
    std::string cell;
    while (std::getline(h, cell, ',')) names.push_back(cell);
  }
  std::map<std::string, std::vector<double>> cols;
  rows = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    ++rows;
    std::istringstream r(line);
    std::string cell;
    for (std::size_t i = 0; i < names.size() && std::getline(r, cell, ','); ++i) cols[names[i]].push_back(std::strtod(cell.c_str(), nullptr));
  }
  return cols;
}

class KernelSectionSmoke : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    Context c;
    c.mode = Mode::smoke;
    c.seed = 1;
    c.threads = 1;
    one_ = new SectionResult(kernel_section(c));
    c.threads = 2;
    two_ = new SectionResult(kernel_section(c));
  }
  static void TearDownTestSuite() {
    delete one_;
    delete two_;
  }
  static SectionResult* one_;
  static SectionResult* two_;
};
SectionResult* KernelSectionSmoke::one_ = nullptr;
SectionResult* KernelSectionSmoke::two_ = nullptr;

TEST_F(KernelSectionSmoke, SameBytesForOneAndTwoThreads) {
  const std::string a = deterministic_content(*one_), b = deterministic_content(*two_);
  EXPECT_EQ(a, b);
  // The thread count and the time are not data (they went to timings).
  EXPECT_FALSE(one_->data.contains("seconds"));
  EXPECT_FALSE(one_->data.contains("threads"));
  EXPECT_TRUE(one_->timings.contains("accuracy_seconds"));
  EXPECT_EQ(one_->timings["accuracy_threads"], 1);
  EXPECT_EQ(two_->timings["accuracy_threads"], 2);
}

TEST_F(KernelSectionSmoke, SummaryHoldsAndNamesTheEvidence) {
  const SectionResult& s = *one_;
  EXPECT_EQ(s.key, "kernel");
  ASSERT_EQ(s.summary.size(), ropecheck::kKernelDtypes.size());
  EXPECT_EQ(s.summary[0].id, "kernel-accuracy-f32");
  EXPECT_EQ(s.summary[1].id, "kernel-accuracy-bf16");
  EXPECT_EQ(s.summary[2].id, "kernel-accuracy-f16");
  for (const SummaryRow& r : s.summary) {
    EXPECT_EQ(r.verdict, "holds") << r.id << ": " << r.key_quantity << " / data passed " << s.data["passed"];
    EXPECT_TRUE(r.as_paper_states) << r.id;
    EXPECT_EQ(r.evidence, "evidence/kernel/kernel-check.json");
  }
  EXPECT_NE(s.summary[0].key_quantity.find("vs proved 0.5 (CR)"), std::string::npos) << s.summary[0].key_quantity;
  EXPECT_NE(s.summary[1].key_quantity.find("vs proved 0.5 (CR)"), std::string::npos) << s.summary[1].key_quantity;
  EXPECT_TRUE(s.as_paper_states);
  EXPECT_EQ(s.data["samples"], 64);
  EXPECT_EQ(s.data["passed"], true);
  // The evidence file is the data, byte for byte.
  bool found = false;
  for (const Artifact& a : s.artifacts)
    if (a.path == "evidence/kernel/kernel-check.json") {
      found = true;
      EXPECT_TRUE(a.deterministic);
      EXPECT_EQ(nlohmann::json::parse(a.content), s.data);
    }
  EXPECT_TRUE(found);
  EXPECT_EQ(s.markdown.rfind("## The RoPE kernel\n", 0), 0u) << s.markdown.substr(0, 80);
}

// The figure shows the physics: the naive f32-angle strategy fails at large positions, the kernel
// does not. Bounds (moderate inputs, exponents in [-8, 8]: no subnormals; error at unit pair norm):
//  - kernel f32: correctly rounded, <= 0.5 ulp(y) / ||x|| with ulp(y) <= 2^-23 |y| <= 2^-23 ||x||,
//    so <= 2^-24; the metric's own error (y rounded to double) is ~2^-52 relative: allow
//    2^-24 (1 + 2^-20). bf16 likewise: 0.5 2^-7 = 2^-8: allow 2^-8 (1 + 2^-12).
//  - f32-angle at the edge position P = 2^40 - 1 (always sampled), pair 0 (g_0 = 1): float(P) =
//    2^40, so the angle is off by exactly 1 rad and the output pair by 2 sin(1/2) ||x|| = 0.959 ||x||;
//    its larger component is off by >= 0.959 / sqrt 2 = 0.678 ||x||, less the output rounding
//    (<= 2^-8 ||x|| in bf16): > 0.5 in both formats, i.e. > 100 x the kernel's 2^-8 (bf16).
//  - f32-angle in [0, 10): the angle p fl32(g) rounded twice is off by <= 9 * 2^-23 ~ 1.1e-6 rad,
//    cosf/sinf and the float rotation add a few 2^-24: < 1e-5 in f32 (growth: > 5e4 x to the top).
TEST_F(KernelSectionSmoke, FigureHasOneRowPerDecadeAndTheNaiveErrorGrows) {
  const SectionResult& s = *one_;
  ASSERT_EQ(s.figures.size(), 1u);
  const Figure& f = s.figures[0];
  EXPECT_EQ(f.name, "kernel-error-vs-position");
  EXPECT_TRUE(f.logx && f.logy);
  EXPECT_TRUE(f.deterministic);
  std::size_t rows = 0;
  auto cols = read_csv(f.csv, rows);
  const nlohmann::json& decades = s.data["rows"][0]["moderate_decades"];
  ASSERT_EQ(rows, decades.size()) << f.csv;
  ASSERT_GE(rows, 2u) << f.csv;
  for (const char* name : {"decade", "position_upper", "kernel_f32", "f32_angle_f32", "f64_angle_f32", "kernel_bf16", "f32_angle_bf16", "f64_angle_bf16"})
    ASSERT_EQ(cols[name].size(), rows) << name << "\n" << f.csv;
  for (std::size_t i = 0; i + 1 < rows; ++i) EXPECT_LT(cols["decade"][i], cols["decade"][i + 1]) << f.csv;
  EXPECT_EQ(cols["decade"].front(), 0) << f.csv;
  EXPECT_EQ(cols["decade"].back(), 12) << "2^40 - 1 is in [1e12, 1e13)\n" << f.csv;
  for (std::size_t i = 0; i < rows; ++i) {
    EXPECT_LE(cols["kernel_f32"][i], 0x1p-24 * (1 + 0x1p-20)) << "decade " << cols["decade"][i] << "\n" << f.csv;
    EXPECT_LE(cols["kernel_bf16"][i], 0x1p-8 * (1 + 0x1p-12)) << "decade " << cols["decade"][i] << "\n" << f.csv;
  }
  const std::size_t last = rows - 1;
  EXPECT_LT(cols["f32_angle_f32"][0], 1e-5) << f.csv;
  EXPECT_GT(cols["f32_angle_f32"][last], 0.5) << f.csv;
  EXPECT_GT(cols["f32_angle_bf16"][last], 0.5) << f.csv;
  EXPECT_GT(cols["f32_angle_f32"][last], 100 * cols["kernel_f32"][last]) << f.csv;
  EXPECT_GT(cols["f32_angle_bf16"][last], 100 * cols["kernel_bf16"][last]) << f.csv;
  EXPECT_GT(cols["f32_angle_f16"][last], 100 * cols["kernel_f16"][last]) << f.csv;
}

TEST_F(KernelSectionSmoke, SpeedHasARowPerPathAndPositiveNumbers) {
  const SectionResult& s = *one_;
  const nlohmann::json& rows = s.timings["speed"]["rows"];
  const std::size_t per_dtype = 1 + cpu::available_paths().size() + 2;  // memcpy, paths, baselines
  ASSERT_EQ(rows.size(), ropecheck::kKernelDtypes.size() * per_dtype) << rows.dump(1);
  for (const nlohmann::json& r : rows) {
    EXPECT_GT(r["median_seconds"].get<double>(), 0) << r.dump();
    EXPECT_GT(r["median_memcpy_seconds"].get<double>(), 0) << r.dump();
    EXPECT_GT(r["gb_per_s"].get<double>(), 0) << r.dump();
    EXPECT_GT(r["ratio_to_memcpy"].get<double>(), 0) << r.dump();
  }
  for (cpu::Path p : cpu::available_paths()) {
    EXPECT_NE(s.markdown.find("| kernel " + cpu::path_name(p) + " | f32 | [64][32][128] |"), std::string::npos) << s.markdown;
    EXPECT_NE(s.markdown.find("| kernel " + cpu::path_name(p) + " | bf16 | [128][32][128] |"), std::string::npos) << s.markdown;
    EXPECT_NE(s.markdown.find("| kernel " + cpu::path_name(p) + " | f16 | [128][32][128] |"), std::string::npos) << s.markdown;
  }
  bool csv = false;
  for (const Artifact& a : s.artifacts)
    if (a.path == "evidence/kernel/speed.csv") {
      csv = true;
      EXPECT_FALSE(a.deterministic);
      EXPECT_EQ(static_cast<std::size_t>(std::count(a.content.begin(), a.content.end(), '\n')), 1 + ropecheck::kKernelDtypes.size() * per_dtype) << a.content;
    }
  EXPECT_TRUE(csv);
}

TEST(KernelSection, BadThreadCountIsAnInputError) {
  Context c;
  c.mode = Mode::smoke;
  c.threads = 0;
  EXPECT_THROW(kernel_section(c), InputError);
}

}  // namespace
}  // namespace ropecheck::report

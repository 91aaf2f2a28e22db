#include "report/spectrum_section.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "../cli/run_cli.h"
#include "numeric/precision.h"
#include "numeric/scalar.h"
#include "spectrum/config.h"

namespace ropecheck::report {
namespace {

// Splits a CSV into rows of cells (the header is row 0). The section writes no quoted cells.
std::vector<std::vector<std::string>> parse_csv(const std::string& csv) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(csv);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream ls(line);
    while (std::getline(ls, cell, ',')) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.push_back("");
    rows.push_back(cells);
  }
  return rows;
}

int column(const std::vector<std::string>& header, const std::string& name) {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return static_cast<int>(i);
  ADD_FAILURE() << "no column " << name;
  return 0;
}

const Figure& figure(const SectionResult& r, const std::string& name) {
  for (const Figure& f : r.figures)
    if (f.name == name) return f;
  throw std::runtime_error("no figure " + name);
}

// One smoke run shared by the tests (each run is ~1 s in Release).
const SectionResult& smoke() {
  static const SectionResult r = [] {
    std::ostringstream log;
    Context c;
    c.mode = Mode::smoke;
    c.log = &log;
    c.work_dir = "/nonexistent-the-spectrum-section-writes-no-file";
    return spectrum_section(c);
  }();
  return r;
}

TEST(SpectrumSection, SameBytesOnEveryRun) {
  std::ostringstream log;
  Context c;
  c.mode = Mode::smoke;
  c.threads = 2;  // no effect expected: the section is sequential
  c.log = &log;
  c.work_dir = "/another-directory";
  const SectionResult& a = smoke();
  const SectionResult b = spectrum_section(c);
  EXPECT_EQ(a.key, "spectrum");
  EXPECT_EQ(a.data.dump(), b.data.dump());
  EXPECT_EQ(a.markdown, b.markdown);
  EXPECT_TRUE(a.summary.empty());
  EXPECT_TRUE(a.missing.empty()) << a.missing.front();
  ASSERT_EQ(a.figures.size(), b.figures.size());
  for (size_t i = 0; i < a.figures.size(); ++i) {
    const Figure &x = a.figures[i], &y = b.figures[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.csv, y.csv) << x.name;
    EXPECT_EQ(x.title, y.title);
    EXPECT_EQ(x.caption, y.caption);
    EXPECT_EQ(x.settings, y.settings);
    EXPECT_EQ(x.plot, y.plot);
    EXPECT_TRUE(x.deterministic);
  }
  std::vector<std::string> names;
  for (const Figure& f : a.figures) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"spectrum-gemma-7b", "spectrum-llama-3.1-8b", "thm-5.3-minimal-norm", "roformer-bound"}));
}

// The pairs p-RoPE P keeps are the m = floor(P d / 2) fastest (spectrum.h: the paper's
// int(P * head_dim // 2)); every kept pair is among the first m and the rest are removed.
TEST(SpectrumSection, SpectrumTablesAndPRopeBands) {
  struct Case {
    std::string name;
    int dim;
    long long context;
  };
  for (const Case& c : {Case{"gemma-7b", 256, 8192}, Case{"llama-3.1-8b", 128, 131072}}) {
    const auto rows = parse_csv(figure(smoke(), "spectrum-" + c.name).csv);
    ASSERT_EQ(static_cast<int>(rows.size()), 1 + c.dim / 2) << c.name;
    const auto& h = rows[0];
    for (const std::string fraction : {"0.25", "0.75"}) {
      const int m = static_cast<int>(std::floor(std::stod(fraction) * c.dim / 2));
      const int col = column(h, "kept_p" + fraction);
      int kept = 0;
      for (size_t i = 1; i < rows.size(); ++i) {
        const bool k = rows[i][static_cast<size_t>(col)] == "1";
        kept += k;
        EXPECT_EQ(k, static_cast<int>(i) <= m) << c.name << " p-rope " << fraction << " pair " << rows[i][0];
      }
      EXPECT_EQ(kept, m) << c.name << " p-rope " << fraction;
      EXPECT_EQ(smoke().data["spectra"][c.name]["p_rope"][fraction]["kept"], m);
    }
    // rotations = g C / (2 pi), recomputed from the CSV's own binary64 g: both are roundings of
    // certified values (relative error <= 2^-53 each), and this recomputation adds <= 3 roundings,
    // so they agree within 8 * 2^-53 relative.
    const int cg = column(h, "g_k"), cr = column(h, "rotations");
    for (size_t i = 1; i < rows.size(); ++i) {
      const double g = std::stod(rows[i][static_cast<size_t>(cg)]), r = std::stod(rows[i][static_cast<size_t>(cr)]);
      const double expect = g * static_cast<double>(c.context) / (2 * M_PI);
      EXPECT_NEAR(r, expect, 8 * 0x1p-53 * expect) << c.name << " pair " << rows[i][0] << " g " << g;
    }
    EXPECT_EQ(rows[1][static_cast<size_t>(cg)], "1") << "g_1 = theta^0 = 1 exactly";
    // The count of pairs turning less than once agrees with the CSV (none of them is near 1 turn
    // within binary64 accuracy: the data would then say undecided).
    long long below = 0, below_removed = 0;
    const int c75 = column(h, "kept_p0.75");
    for (size_t i = 1; i < rows.size(); ++i) {
      const bool b = std::stod(rows[i][static_cast<size_t>(cr)]) < 1;
      below += b;
      below_removed += b && rows[i][static_cast<size_t>(c75)] == "0";
    }
    EXPECT_EQ(smoke().data["spectra"][c.name]["p_rope_removes_of_pairs_below_one_rotation"]["0.75"], below_removed) << c.name;
    EXPECT_EQ(smoke().data["spectra"][c.name]["pairs_below_one_rotation"], below) << c.name;
    EXPECT_EQ(smoke().data["spectra"][c.name]["pairs_undecided_at_one_rotation"], 0) << c.name;
  }
}

// One definition of a semantic pair (spectrum/rotations.h): `ropecheck spectrum --config X --json`
// and the report's spectrum section count the same pairs for every named configuration, and the
// section's own run shows what spectrum_data computes.
TEST(SpectrumSection, SemanticPairsAgreeWithTheSpectrumCommandOnEveryNamedConfiguration) {
  for (const ModelConfig& m : named_configs()) {
    const test::CliStreams r = test::run_cli_streams("spectrum --config " + m.name + " --json");
    ASSERT_EQ(r.status, 0) << m.name << ": " << r.err;
    const nlohmann::json cli = nlohmann::json::parse(r.out);
    const nlohmann::json report = spectrum_data(m.name);
    EXPECT_EQ(cli["semantic_pairs"], report["pairs_below_one_rotation"]) << m.name;
    EXPECT_EQ(cli["semantic_pairs_undecided"], report["pairs_undecided_at_one_rotation"]) << m.name;
    EXPECT_EQ(cli["context"], report["context"]) << m.name;
    // Pair by pair, not only the count.
    ASSERT_EQ(cli["rows"].size(), report["pairs"].size()) << m.name;
    long long yes = 0;
    for (const nlohmann::json& row : cli["rows"]) yes += row["semantic"] == "yes";
    EXPECT_EQ(yes, report["pairs_below_one_rotation"].get<long long>()) << m.name;
  }
  for (const std::string config : {"gemma-7b", "llama-3.1-8b"})
    EXPECT_EQ(smoke().data["spectra"][config].dump(), spectrum_data(config).dump()) << config;
  // The paper's numbers: gemma-7b's pairs 101-128 never turn fully over 8192 tokens, all removed by
  // p-RoPE 0.75; llama-3.1-8b's pairs 40-64 over 131072, 16 of them removed by p-RoPE 0.75.
  EXPECT_EQ(smoke().data["spectra"]["gemma-7b"]["pairs_below_one_rotation"], 28);
  EXPECT_EQ(smoke().data["spectra"]["gemma-7b"]["p_rope_removes_of_pairs_below_one_rotation"]["0.75"], 28);
  EXPECT_EQ(smoke().data["spectra"]["llama-3.1-8b"]["pairs_below_one_rotation"], 25);
  EXPECT_EQ(smoke().data["spectra"]["llama-3.1-8b"]["p_rope_removes_of_pairs_below_one_rotation"]["0.75"], 16);
}

TEST(SpectrumSection, MinimalNormBracketsCertifiedAndGrowingWithN) {
  const ScopedPrecision p(128);
  const auto rows = parse_csv(figure(smoke(), "thm-5.3-minimal-norm").csv);
  ASSERT_GT(rows.size(), 1u);
  const auto& h = rows[0];
  const int cn = column(h, "N"), chead = column(h, "head"), ck = column(h, "K"), clo = column(h, "s_lo"), chi = column(h, "s_hi"),
            cc = column(h, "certified");
  // Series (head, K) -> [(N, s_lo, s_hi)]
  std::map<std::pair<std::string, std::string>, std::vector<std::tuple<long long, Real, Real>>> series;
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto& r = rows[i];
    ASSERT_EQ(r.size(), h.size()) << "row " << i;
    EXPECT_EQ(r[static_cast<size_t>(cc)], "1") << "not certified: N " << r[static_cast<size_t>(cn)] << " " << r[static_cast<size_t>(chead)];
    const Real lo(r[static_cast<size_t>(clo)].c_str()), hi(r[static_cast<size_t>(chi)].c_str());
    EXPECT_TRUE(lo > 0 && lo <= hi) << "N " << r[static_cast<size_t>(cn)] << " lo " << lo << " hi " << hi;
    // Relative width: minimal_norm's tolerance 1e-6, plus the outward 20-digit decimal rounding.
    EXPECT_LE(hi / lo - 1, Real(1e-6) + Real(1e-18)) << "lo " << lo << " hi " << hi;
    series[{r[static_cast<size_t>(chead)], r[static_cast<size_t>(ck)]}].emplace_back(std::stoll(r[static_cast<size_t>(cn)]), lo, hi);
  }
  EXPECT_EQ(series.size(), 4u);
  for (const auto& [key, points] : series) {
    EXPECT_EQ(points.size(), 8u) << key.first << " K=" << key.second << ": N = 2, 4, ..., 256";
    if (key.first != "diagonal") continue;
    // T_N's offsets grow with N (every term positive), so s*(N) strictly increases with N. With
    // brackets s_lo(N) <= s*(N) <= s_hi(N), the certified consequence is s_hi(N') > s_lo(N) for
    // every N < N'. (The brackets themselves need not be ordered: with the norm on all 128 pairs,
    // offset 1 dominates T_N and s* rises by only ~1e-12 relative from N = 8 on, far inside the
    // 1e-6 bracket width.)
    for (size_t i = 0; i < points.size(); ++i)
      for (size_t j = i + 1; j < points.size(); ++j) {
        const auto& [n0, lo0, hi0] = points[i];
        const auto& [n1, lo1, hi1] = points[j];
        EXPECT_GT(hi1, lo0) << key.second << ": N " << n0 << " [" << lo0 << ", " << hi0 << "] -> N " << n1 << " [" << lo1 << ", " << hi1 << "]";
      }
  }
}

TEST(SpectrumSection, RoformerBoundStartsAtHalfOfPairsPlusOne) {
  const nlohmann::json& d = smoke().data["roformer_bound"];
  // d = 128: P = 64 pairs, B(0) = (P + 1)/2 = 32.5, exact in binary.
  const ScopedPrecision p(128);
  EXPECT_LE(Real(d["B_0"][0].get<std::string>().c_str()), Real(32.5)) << d["B_0"];
  EXPECT_GE(Real(d["B_0"][1].get<std::string>().c_str()), Real(32.5)) << d["B_0"];
  EXPECT_EQ(d["B_0_equals_exact"], true);
  EXPECT_EQ(d["r_max"], 256);
  EXPECT_EQ(d["envelope_violated"], 0);
  const auto rows = parse_csv(figure(smoke(), "roformer-bound").csv);
  ASSERT_EQ(rows.size(), 258u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"r", "B", "abs_a"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"0", "32.5", "1"})) << "a(0) = 1, B(0) = 65/2";
}

}  // namespace
}  // namespace ropecheck::report

// `ropecheck montecarlo` and `ropecheck merge` through the built binary: the verdicts the issue asks
// for on small sizes (fixed seeds, so each outcome is a deterministic regression), shards merged
// into the very bytes of an unsharded run, results independent of --threads, and every bad input
// rejected with exit 2 and one line naming it, leaving no output file.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "run_cli.h"
#include "tests/support/files.h"

namespace {

namespace fs = std::filesystem;
using ropecheck::test::CliStreams;
using ropecheck::test::read_bytes;
using ropecheck::test::run_cli_streams;

struct TempDir {
  fs::path path;
  TempDir() : path(fs::temp_directory_path() / ("ropecheck_mc_" + std::to_string(::getpid()) + "_" + std::to_string(counter()++))) {
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  static int& counter() {
    static int c = 0;
    return c;
  }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

// Small fig2b: d = 16, 400 trials per distance, distances 0..300. The claim holds, so each test
// rejects with probability 0.001 and the verdict is `confirmed` with probability >= 0.997; with
// the fixed seed the outcome is fixed.
const std::string kSmallFig2bUnseeded = "montecarlo --experiment fig2b --dim 16 --trials 400 --max-distance 300";
const std::string kSmallFig2b = kSmallFig2bUnseeded + " --seed 7";

TEST(MontecarloCommand, Fig2bConfirmsAndShardsMergeByteIdentical) {
  TempDir dir;
  const CliStreams whole = run_cli_streams(kSmallFig2b + " --threads 1 --out " + (dir / "whole.json") + " --csv " + (dir / "whole.csv"));
  ASSERT_EQ(whole.status, 0) << whole.out << whole.err;
  EXPECT_NE(whole.out.find("verdict: confirmed"), std::string::npos) << whole.out;
  EXPECT_NE(whole.err.find("seed 7"), std::string::npos) << whole.err;
  const CliStreams threaded = run_cli_streams(kSmallFig2b + " --threads 3 --out " + (dir / "threaded.json"));
  ASSERT_EQ(threaded.status, 0) << threaded.err;
  EXPECT_EQ(read_bytes(dir / "whole.json"), read_bytes(dir / "threaded.json"));
  for (int k = 0; k < 3; ++k) {
    const CliStreams s = run_cli_streams(kSmallFig2b + " --threads 2 --shard " + std::to_string(k) + "/3 --out " + (dir / ("part" + std::to_string(k) + ".json")));
    ASSERT_EQ(s.status, 0) << s.err;
  }
  // Any order of the partials, the same bytes.
  const CliStreams merged = run_cli_streams("merge " + (dir / "part2.json") + " " + (dir / "part0.json") + " " + (dir / "part1.json") + " --out " +
                                (dir / "merged.json") + " --csv " + (dir / "merged.csv"));
  ASSERT_EQ(merged.status, 0) << merged.err;
  EXPECT_EQ(read_bytes(dir / "whole.json"), read_bytes(dir / "merged.json"));
  EXPECT_EQ(read_bytes(dir / "whole.csv"), read_bytes(dir / "merged.csv"));
  EXPECT_EQ(whole.out, merged.out);
  // Hierarchical merge: two partials first, then the third.
  ASSERT_EQ(run_cli_streams("merge " + (dir / "part0.json") + " " + (dir / "part1.json") + " --partial --out " + (dir / "p01.json")).status, 0);
  ASSERT_EQ(run_cli_streams("merge " + (dir / "p01.json") + " " + (dir / "part2.json") + " --out " + (dir / "merged2.json")).status, 0);
  EXPECT_EQ(read_bytes(dir / "whole.json"), read_bytes(dir / "merged2.json"));

  const nlohmann::json j = nlohmann::json::parse(read_bytes(dir / "whole.json"));
  ASSERT_EQ(j["series"].size(), 1u);
  EXPECT_EQ(j["series"][0]["verdict"], "confirmed");
  EXPECT_EQ(j["series"][0]["tests"].size(), 3u);
  EXPECT_EQ(j["series"][0]["per_distance"]["mean"].size(), 301u);
  // Standard error of a mean of 400 activations of variance 1/16: 1/80 = 0.0125. The sample sd of
  // 400 values of kurtosis 3 + 6/16 has relative sd sqrt((kurtosis - 1) / (4 * 400)) = 3.9%; the
  // largest of 301 lies ~3 sd above; 25% is 6.5 sd (a sanity check of the scale, not a test).
  EXPECT_NEAR(j["series"][0]["max_standard_error"].get<double>(), 0.0125, 0.0125 * 0.25);

  // A missing shard, a repeated shard, a different seed: exit 2 naming the problem.
  const CliStreams missing = run_cli_streams("merge " + (dir / "part0.json") + " " + (dir / "part1.json") + " --out " + (dir / "x.json"));
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("every shard"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("shard 2/3 is missing"), std::string::npos) << missing.err;
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;
  const CliStreams repeated = run_cli_streams("merge " + (dir / "part0.json") + " " + (dir / "part0.json") + " " + (dir / "part1.json") + " --out " + (dir / "x.json"));
  EXPECT_EQ(repeated.status, 2);
  EXPECT_NE(repeated.err.find("given twice"), std::string::npos) << repeated.err;
  EXPECT_EQ(std::count(repeated.err.begin(), repeated.err.end(), '\n'), 1) << repeated.err;
  ASSERT_EQ(run_cli_streams(kSmallFig2bUnseeded + " --seed 8 --shard 2/3 --out " + (dir / "other.json")).status, 0);
  const CliStreams other = run_cli_streams("merge " + (dir / "part0.json") + " " + (dir / "part1.json") + " " + (dir / "other.json") + " --out " + (dir / "x.json"));
  EXPECT_EQ(other.status, 2);
  EXPECT_NE(other.err.find("seed differs"), std::string::npos) << other.err;
  ASSERT_EQ(run_cli_streams("montecarlo --experiment fig9 --dim 16 --trials 40 --max-distance 30 --shard 2/3 --out " + (dir / "fig9.json")).status, 0);
  const CliStreams experiment = run_cli_streams("merge " + (dir / "part0.json") + " " + (dir / "part1.json") + " " + (dir / "fig9.json") + " --out " + (dir / "x.json"));
  EXPECT_EQ(experiment.status, 2);
  EXPECT_NE(experiment.err.find("experiment differs"), std::string::npos) << experiment.err;
  EXPECT_FALSE(fs::exists(dir / "x.json"));

  // A truncated or edited partial is refused by its checksum.
  const std::string text = read_bytes(dir / "part1.json");
  std::ofstream(dir / "truncated.json", std::ios::binary) << text.substr(0, text.size() / 2);
  const CliStreams truncated = run_cli_streams("merge " + (dir / "part0.json") + " " + (dir / "truncated.json") + " " + (dir / "part2.json") + " --out " + (dir / "x.json"));
  EXPECT_EQ(truncated.status, 2);
  EXPECT_NE(truncated.err.find("truncated.json"), std::string::npos) << truncated.err;
  std::string edited = text;
  const size_t at = edited.find("\"choice\":[[") + 11;
  ASSERT_NE(at, std::string::npos + 11);
  edited[at] = edited[at] == '1' ? '3' : '1';  // another trial number
  std::ofstream(dir / "edited.json", std::ios::binary) << edited;
  const CliStreams e = run_cli_streams("merge " + (dir / "part0.json") + " " + (dir / "edited.json") + " " + (dir / "part2.json") + " --out " + (dir / "x.json"));
  EXPECT_EQ(e.status, 2);
  EXPECT_NE(e.err.find("sha256"), std::string::npos) << e.err;
  EXPECT_EQ(std::count(e.err.begin(), e.err.end(), '\n'), 1) << e.err;
  EXPECT_FALSE(fs::exists(dir / "x.json"));
}

TEST(MontecarloCommand, Fig2aDetectsTheDecay) {
  TempDir dir;
  // The fig-2a claim's first negative values (proofs/fig-2a.md): d = 256 at r = 2653 and d = 128
  // at r = 1707, f = (2/d) sum_k cos(r g_k) evaluated independently with mpmath at 30 digits
  // (-0.00129855687267504, -0.00779580515461125). Tolerance: the double evaluation's error bound
  // (~2e-14, tests/montecarlo/simulate_test.cpp, which checks every r against the MPFI
  // enclosures) plus the 1e-17 of the decimals here.
  for (const auto& [dim, r, f] : {std::tuple<int, int, double>{256, 2653, -0.00129855687267504}, {128, 1707, -0.00779580515461125}}) {
    const std::string file = dir / ("a" + std::to_string(dim) + ".json");
    const CliStreams run_a = run_cli_streams("montecarlo --experiment fig2a --dim " + std::to_string(dim) + " --out " + file);
    ASSERT_EQ(run_a.status, 0) << run_a.out << run_a.err;  // exit 0: the verdict is the paper's (decay detected)
    EXPECT_NE(run_a.out.find("decay detected by"), std::string::npos) << run_a.out;
    const nlohmann::json j = nlohmann::json::parse(read_bytes(file));
    ASSERT_EQ(j["series"].size(), 1u);
    const auto& s = j["series"][0];
    EXPECT_EQ(s["verdict"], "not-confirmed");
    EXPECT_FALSE(s["decided_by"].empty());
    EXPECT_EQ(s["per_distance"]["mean"][0].get<double>(), 1.0);  // f(0) = 1 exactly
    EXPECT_NEAR(s["per_distance"]["mean"][r].get<double>(), f, 3e-14);
  }
}

TEST(MontecarloCommand, Fig8AgreesWithTheGapLaw) {
  // n = 60 tokens, L in {60, 120, 240}, 600 trials; d = 32.
  const CliStreams r = run_cli_streams("montecarlo --experiment fig8 --dim 32 --fig8-n 60 --fig8-L 60,120,240 --trials 600 --seed 3 --threads 2");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  size_t agrees = 0;
  for (size_t at = r.out.find("gap-law closed form: agrees"); at != std::string::npos; at = r.out.find("gap-law closed form: agrees", at + 1)) ++agrees;
  EXPECT_EQ(agrees, 3u) << r.out;
}

TEST(MontecarloCommand, VarianceAndFig9AndKernelArithmetic) {
  const CliStreams v = run_cli_streams("montecarlo --experiment variance --dim 8 --trials 3000 --max-distance 40 --seed 5");
  EXPECT_EQ(v.status, 0) << v.out << v.err;
  EXPECT_NE(v.out.find("pooled kurtosis"), std::string::npos);
  const CliStreams f9 = run_cli_streams("montecarlo --experiment fig9 --dim 16 --trials 500 --max-distance 400 --seed 11");
  EXPECT_EQ(f9.status, 0) << f9.out << f9.err;
  EXPECT_NE(f9.out.find("correlated distances"), std::string::npos) << f9.out;
  for (const char* arith : {"f32", "bf16"}) {
    const CliStreams k = run_cli_streams(std::string("montecarlo --experiment fig2b --dim 16 --trials 200 --max-distance 100 --seed 7 --arith ") + arith +
                             " --base-position 1000000");
    EXPECT_EQ(k.status, 0) << arith << "\n" << k.out << k.err;
    EXPECT_NE(k.out.find(std::string("arith ") + arith), std::string::npos);
  }
}

// A model whose yarn attention factor is not 1 (gpt-oss-20b: a = 0.1 ln 32 + 1): the simulation runs
// the rotation (the written spectrum says attention_factor "1") and the series label states a, since
// a scales every activation by a^2 and the no-decay tests are invariant under a positive scale.
TEST(MontecarloCommand, AModelsAttentionFactorIsStatedAndTheRotationSimulated) {
  TempDir dir;
  const CliStreams r = run_cli_streams("montecarlo --experiment fig2b --model gpt-oss-20b --layer-type full_attention --trials 200 "
                           "--max-distance 200 --seed 3 --out " + (dir / "gpt-oss.json"));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("verdict: confirmed"), std::string::npos) << r.out;
  const nlohmann::json j = nlohmann::json::parse(read_bytes(dir / "gpt-oss.json"));
  const nlohmann::json& series = j["params"]["series"][0];
  EXPECT_NE(series["label"].get<std::string>().find("attention factor 1.3465735902799727"), std::string::npos) << series["label"];
  EXPECT_EQ(series["spectrum"]["scaling"]["attention_factor"], "1");
  EXPECT_EQ(series["spectrum"]["scaling"]["kind"], "yarn");
  EXPECT_EQ(series["spectrum"]["dim"], 64);
}

TEST(MontecarloCommand, BadInputExitsTwoWithOneLine) {
  TempDir dir;
  const std::pair<std::string, std::string> cases[] = {
      {"montecarlo --experiment fig2b --dim 15", "--dim"},
      {"montecarlo --experiment fig2b --dim 16 --trials 1", "--trials"},
      {"montecarlo --experiment fig8 --fig8-n 100 --fig8-L 50", "--fig8-L"},
      {"montecarlo --experiment fig2b --dim 16 --trials 10 --shard 3/3 --out " + (dir / "s.json"), "--shard"},
      {"montecarlo --experiment fig2b --dim 16 --trials 10 --shard 1/3", "--out"},
      {"montecarlo --experiment fig5", "--experiment"},
      {"montecarlo --experiment fig2b --arith f16", "--arith"},
      {"montecarlo --experiment fig2b --threads 0", "--threads"},
      {"montecarlo --experiment fig2b --max-distance 5", "--max-distance"},
      {"montecarlo --experiment fig2a --trials 5", "--trials"},
      {"montecarlo --experiment fig2b --fig8-n 100", "--fig8-n"},
      {"montecarlo --experiment fig2b --seed -1", "--seed"},
      {"montecarlo --experiment fig2b --out /nonexistent/dir/x.json", "--out"},
      {"merge " + (dir / "missing.json") + " --out " + (dir / "m.json"), "missing.json"},
  };
  for (const auto& [args, needle] : cases) {
    const CliStreams r = run_cli_streams(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << args << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << "\n" << r.err;
  }
  EXPECT_TRUE(fs::is_empty(dir.path));
}

}  // namespace

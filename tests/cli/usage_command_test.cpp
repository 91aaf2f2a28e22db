// `ropecheck usage`: the example model's capture measured (its previous-token heads found, the
// Section 5 ranking, certified breaks), --json and --out written whole; bad input refused in one
// line with exit code 2, nothing written.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "run_cli.h"
#include "tests/support/files.h"

namespace {

using ropecheck::test::CliStreams;
using ropecheck::test::run_cli_streams;
namespace fs = std::filesystem;

const std::string kToy = std::string(ROPECHECK_TEST_SOURCE_DIR) + "/examples/toy_model/captures/";
const std::string kToyModel = kToy + "rope_seed0.config.json";

TEST(UsageCommand, ExampleModelsPositionalHeadsRankHighest) {
  const ropecheck::test::TempDir dir("usage_cli");
  const fs::path json = dir.path / "usage.json", out = dir.path / "figures";
  const CliStreams r = run_cli_streams("usage --model " + kToyModel + " --capture " + kToy + "rope_seed0.1x.capture.npz --content-distance 16 --threads 2 --json " +
                                       json.string() + " --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json u = nlohmann::json::parse(ropecheck::test::read_bytes(json));
  EXPECT_EQ(u["schema"], "ropecheck-usage/2");
  EXPECT_EQ(u["capture"]["sequences"], 16);
  // Layer 0's heads 2 and 3 attend to the previous token (the committed model: 0.651, 0.660).
  EXPECT_EQ(u["layers"][0]["heads"][2]["kind"], "previous-token") << u["layers"][0].dump();
  EXPECT_EQ(u["layers"][0]["heads"][3]["kind"], "previous-token");
  EXPECT_EQ(u["positional_ranking"]["auc"], 1.0) << u["positional_ranking"].dump();
  for (const auto& h : u["layers"][1]["heads"]) {
    ASSERT_FALSE(h["breaking"].is_null()) << h.dump();
    EXPECT_EQ(h["breaking"]["outcome"], "found") << h.dump();
    EXPECT_GT(h["breaking"]["distance"].get<long long>(), h["breaking"]["key_distance"].get<long long>());
  }
  EXPECT_TRUE(fs::exists(out / "usage.json"));
  EXPECT_TRUE(fs::exists(out / "figures" / "usage-q-layers.csv"));
  EXPECT_EQ(ropecheck::test::read_bytes(out / "usage.json"), ropecheck::test::read_bytes(json));
  EXPECT_NE(r.out.find("previous-token"), std::string::npos) << r.out;
}

TEST(UsageCommand, BadInputIsOneLineExitTwoNothingWritten) {
  const ropecheck::test::TempDir dir("usage_bad");
  const fs::path json = dir.path / "usage.json", out = dir.path / "figures";
  const std::string data = std::string(ROPECHECK_TEST_SOURCE_DIR) + "/tests/usage/data/";
  for (const std::string& args :
       {"usage --model " + kToyModel + " --capture " + data + "bad_q_nan.npz",              // NaN in q (found while streaming)
        "usage --model " + kToyModel + " --capture " + data + "bad_truncated.npz",          // a truncated zip
        "usage --model " + kToyModel + " --capture " + data + "bad_missing_k.npz",
        "usage --model " + kToyModel + " --capture " + data + "stored_f32.npz",             // does not fit the model
        "usage --model llama-3.1-8b --capture " + kToy + "rope_seed0.1x.capture.npz",       // another model
        "usage --model " + kToyModel + " --capture " + kToy + "rope_seed0.1x.capture.npz --threads 0",
        "usage --model " + kToyModel + " --capture " + kToy + "rope_seed0.1x.capture.npz --break-limit 0",
        "usage --model " + kToyModel + " --capture /no/such/file.npz"}) {
    const CliStreams r = run_cli_streams(args + " --json " + json.string() + " --out " + out.string());
    EXPECT_EQ(r.status, 2) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
    EXPECT_FALSE(fs::exists(json)) << args;
    EXPECT_FALSE(fs::exists(out)) << args;
  }
}

}  // namespace

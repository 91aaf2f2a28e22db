// Partial files: an exact round trip, a checksum that refuses any edit or truncation, and a merge
// that refuses partials of another run (naming the parameter that differs).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/input_error.h"
#include "montecarlo/analysis.h"
#include "montecarlo/partial.h"
#include "montecarlo/simulate.h"
#include "io/sha256.h"

namespace ropecheck::montecarlo {
namespace {

Params params(std::uint64_t seed) {
  Params p;
  p.experiment = Experiment::fig9;
  p.seed = seed;
  p.max_distance = 20;
  SeriesSpec s{"d=8", "custom", Spectrum(8, "10000")};
  s.trials = 12;
  s.code = 32;
  p.series.push_back(s);
  return p;
}

TEST(MontecarloPartial, RoundTripsExactly) {
  const Partial a = simulate(params(1), Shard{1, 3}, RunOptions{1, false});
  const std::string text = partial_text(a);
  const Partial b = parse_partial(text, "a.json");
  EXPECT_EQ(partial_text(b), text);
  EXPECT_FALSE(b.complete());
  EXPECT_EQ(b.series[0].choice.size(), 4u);  // trials [4, 8)
  EXPECT_EQ(b.series[0].choice.front().first, 4);
}

TEST(MontecarloPartial, RefusesEditsAndTruncation) {
  const std::string text = partial_text(simulate(params(1), Shard{0, 2}, RunOptions{1, false}));
  EXPECT_THROW(parse_partial(text.substr(0, text.size() - 10), "t.json"), InputError);
  for (size_t at : {text.find("\"seed\":1") + 7, text.find("\"distance\":[[") + 13}) {
    std::string edited = text;
    edited[at] = edited[at] == '1' ? '2' : '1';
    try {
      parse_partial(edited, "e.json");
      ADD_FAILURE() << "an edit at byte " << at << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("e.json"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(parse_partial("{}", "empty.json"), InputError);
  EXPECT_THROW(parse_partial("", "nothing.json"), InputError);
}

TEST(MontecarloPartial, MergeRefusesAnotherRun) {
  const Partial a = simulate(params(1), Shard{0, 2}, RunOptions{1, false});
  const Partial b = simulate(params(2), Shard{1, 2}, RunOptions{1, false});
  try {
    merge_partials({a, b}, {"a.json", "b.json"});
    ADD_FAILURE() << "partials of different seeds merged";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("seed differs"), std::string::npos) << e.what();
  }
  EXPECT_THROW(merge_partials({a, a}, {"a.json", "a2.json"}), InputError);
  const Partial c = simulate(params(1), Shard{1, 2}, RunOptions{1, false});
  EXPECT_TRUE(merge_partials({a, c}, {"a.json", "c.json"}).complete());
}

// A file whose checksum is right (partial_text recomputes it) but whose sums or two-sample values
// are not those of its shards' trials is refused: the fuzzer's find (mc_partial) was a shard 1/2
// holding trial 4 of shard 0/2, which made merge(a, b) and merge(b, a) differ.
TEST(MontecarloPartial, RefusesValuesThatAreNotItsShardsTrials) {
  const Partial a = simulate(params(1), Shard{0, 2}, RunOptions{1, false});  // trials [0, 6)
  const Partial b = simulate(params(1), Shard{1, 2}, RunOptions{1, false});  // trials [6, 12)
  const auto refused = [](const Partial& edited, const std::string& why) {
    try {
      parse_partial(partial_text(edited), "e.json");
      ADD_FAILURE() << "accepted: " << why;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("e.json"), std::string::npos) << e.what();
    }
  };
  Partial other_trial = b;
  other_trial.series[0].choice[1].first = 4;  // shard 0's trial
  refused(other_trial, "a two-sample value of another shard's trial");
  Partial out_of_order = b;
  std::swap(out_of_order.series[0].choice[0], out_of_order.series[0].choice[1]);
  refused(out_of_order, "two-sample values out of trial order");
  Partial missing = b;
  missing.series[0].choice.pop_back();
  refused(missing, "a trial without its two-sample value");
  Partial extra_count = b;
  extra_count.series[0].distance[3].add(0.5);
  refused(extra_count, "a per-distance sum of one value more than the trials");
  Partial slope_count = b;
  slope_count.series[0].slope.add(0.5);
  refused(slope_count, "slope sums of one value more than the trials");
  Partial twice = b;
  twice.shards.push_back(twice.shards.front());
  refused(twice, "one shard given twice in one file");
  // What a run writes, and what merging writes, are read back.
  EXPECT_NO_THROW(parse_partial(partial_text(b), "b.json"));
  const Partial ab = merge_partials({a, b}, {"a.json", "b.json"});
  EXPECT_EQ(partial_text(parse_partial(partial_text(ab), "ab.json")), partial_text(ab));
  EXPECT_EQ(partial_text(ab), partial_text(merge_partials({b, a}, {"b.json", "a.json"})));
}

// ---- version 1 files (experiment.h's kFileVersion) ----
// tests/montecarlo/data holds files the version-1 code wrote (ropecheck montecarlo before the
// spectrum schema of spectrum/spectrum_json.h):
//   v1-fig9-shard{0,1}of2.json, v1-fig9-result.json: --experiment fig9 --dim 8 --p-rope 0.5
//     --scaling linear:2 --trials 12 --max-distance 20 --seed 5 (shards 0/2 and 1/2, and unsharded)
//   v1-fig2b-llama3-shard0of1.json, v1-fig2b-llama3-result.json: --experiment fig2b --config
//     llama-3.1-8b --dim 8 --trials 6 --max-distance 12 --seed 3 (shard 0/1, and unsharded)

std::string data_file(const std::string& name) {
  const std::filesystem::path p = std::filesystem::path(ROPECHECK_TEST_SOURCE_DIR) / "tests/montecarlo/data" / name;
  std::ifstream in(p, std::ios::binary);
  EXPECT_TRUE(in) << p;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The result of a run without the parts whose form changed with the version.
nlohmann::json without_format(nlohmann::json j) {
  j.erase("version");
  j.erase("params");
  return j;
}

TEST(MontecarloPartial, ReadsVersionOneFilesAndMergesThemToTodaysResult) {
  const Partial a = parse_partial(data_file("v1-fig9-shard0of2.json"), "v1-fig9-shard0of2.json");
  const Partial b = parse_partial(data_file("v1-fig9-shard1of2.json"), "v1-fig9-shard1of2.json");
  ASSERT_EQ(a.params.series.size(), 1u);
  EXPECT_EQ(a.params.series[0].spectrum.describe(), "p-rope 0.5, d=8, theta=10000, scaling linear 2");
  EXPECT_EQ(a.params.to_json(1), nlohmann::json::parse(data_file("v1-fig9-shard0of2.json"))["params"]);
  // Merged, the old shards give today's result of the same run, bit for bit: params as version 2
  // writes them, and every number as the version-1 code computed it.
  const Partial merged = merge_partials({a, b}, {"v1-fig9-shard0of2.json", "v1-fig9-shard1of2.json"});
  const Analysis from_old = analyse(merged);
  const Analysis fresh = analyse(simulate(a.params, Shard{}, RunOptions{1, false}));
  EXPECT_EQ(from_old.json.dump(), fresh.json.dump());
  EXPECT_EQ(from_old.csv, fresh.csv);
  EXPECT_EQ(from_old.json["version"], kFileVersion);
  EXPECT_EQ(from_old.json["params"], a.params.to_json());
  const nlohmann::json old_result = nlohmann::json::parse(data_file("v1-fig9-result.json"));
  EXPECT_EQ(old_result["version"], 1);
  EXPECT_EQ(old_result["params"], a.params.to_json(1));
  EXPECT_EQ(without_format(old_result).dump(), without_format(fresh.json).dump());
  // An old partial merges with a new one of the same run.
  const Partial b_new = parse_partial(partial_text(simulate(a.params, Shard{1, 2}, RunOptions{1, false})), "b2.json");
  EXPECT_EQ(analyse(merge_partials({a, b_new}, {"a.json", "b2.json"})).json.dump(), fresh.json.dump());
  // Written again, a version-1 partial is version 2.
  EXPECT_NE(partial_text(a).find("\"version\":2"), std::string::npos);
}

TEST(MontecarloPartial, ReadsAVersionOneLlama3Scaling) {
  const Partial p = parse_partial(data_file("v1-fig2b-llama3-shard0of1.json"), "v1.json");
  ASSERT_TRUE(p.complete());
  EXPECT_EQ(p.params.series[0].spectrum.scaling().describe(), Scaling::llama3_1().describe());
  EXPECT_EQ(p.params.series[0].spectrum_name, "llama-3.1-8b+flags");
  const nlohmann::json old_result = nlohmann::json::parse(data_file("v1-fig2b-llama3-result.json"));
  EXPECT_EQ(without_format(old_result).dump(), without_format(analyse(p).json).dump());
  EXPECT_EQ(analyse(p).json["params"]["series"][0]["spectrum"],
            nlohmann::json::parse(R"({"dim": 8, "theta": "500000", "variant": "rope", "scaling": "llama3"})"));
}

TEST(MontecarloPartial, RefusesAnEditedVersionOneFileAndAnUnknownVersion) {
  // The sealed checksum covers the old params too.
  std::string text = data_file("v1-fig9-shard0of2.json");
  const size_t at = text.find("\"fraction\":\"0.5\"");
  ASSERT_NE(at, std::string::npos);
  text[at + 13] = '7';
  EXPECT_THROW(parse_partial(text, "edited.json"), InputError);
  // A version-1 params object inside a version-2 file (resealed) is not what version 2 writes.
  nlohmann::json j = nlohmann::json::parse(data_file("v1-fig9-shard0of2.json"));
  j.erase("sha256");
  j["version"] = kFileVersion;
  j["sha256"] = sha256_hex(j.dump());
  EXPECT_THROW(parse_partial(j.dump(), "mixed.json"), InputError);
  j.erase("sha256");
  j["version"] = 3;
  j["sha256"] = sha256_hex(j.dump());
  EXPECT_THROW(parse_partial(j.dump(), "v3.json"), InputError);
}

// A version-2 params object whose spectrum is not in canonical form (here theta as a JSON integer,
// which the spectrum reader accepts) was edited: the round trip refuses it, naming the params.
TEST(MontecarloParams, RoundTripIsExact) {
  const Params p = params(1);
  nlohmann::json j = p.to_json();
  EXPECT_EQ(Params::from_json(j, "f.json").to_json(), j);
  j["series"][0]["spectrum"]["theta"] = 10000;
  try {
    Params::from_json(j, "f.json");
    ADD_FAILURE() << "a non-canonical spectrum accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.input(), "f.json: params") << e.what();
  }
  j = p.to_json();
  j["series"][0]["spectrum"]["dimm"] = 8;
  try {
    Params::from_json(j, "f.json");
    ADD_FAILURE() << "an unknown key accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.input(), "f.json: params.series[0].spectrum.dimm") << e.what();
  }
}

}  // namespace
}  // namespace ropecheck::montecarlo

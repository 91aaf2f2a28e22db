#include "adversarial/counterexample.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <filesystem>
#include <limits>

#include "../support/files.h"
#include "io/printf_string.h"
#include "io/sha256.h"
#include "tests/support/show.h"

namespace ropecheck::adversarial {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;


using test::read_bytes;
using test::TempDir;
using test::tree;
using test::write_bytes;

// A small valid counterexample document: d = 4, theta 10000, one distractor, no BOS.
json small_doc() {
  return json::parse(R"({
    "format": "ropecheck-counterexample/1", "target": "channel",
    "head": {"spectrum": {"dim": 4, "theta": "10000", "variant": "rope", "scaling": "none"},
             "query": ["1", "0x1.8p+1", 0, -2.5], "target": ["0.25", 1, "0", "0"],
             "distractors": [[-1, "-0x1p-2", "0", "0"]],
             "notion": "attention", "epsilon": "0.1", "break_at": "0.5"},
    "sequence": {"length": 6, "fill": "d0", "tokens": [[2, "target"]]},
    "swaps": [[2, 4]],
    "found": {"anything": [1, "goes", {"here": null}]}
  })");
}

using test::expect_input_error;

void expect_doc_error(const std::function<void(json&)>& mutate, const std::string& field, const std::vector<std::string>& parts = {}) {
  json doc = small_doc();
  mutate(doc);
  SCOPED_TRACE(field + " <- " + doc.dump());
  expect_input_error([&] { counterexample_from_json(doc, "cx.json"); }, "cx.json: " + field, parts);
}

// ---- round trips ----

Head rich_head() {
  Head h;
  h.spectrum_request.dim = 6;
  h.spectrum_request.theta = "500000";
  h.spectrum_request.variant = Variant::partial;
  h.spectrum_request.fraction = "0.5";
  h.spectrum_request.scaling = Scaling::linear("2");
  h.spectrum = resolve(h.spectrum_request).spectrum;
  const double sub = std::numeric_limits<double>::denorm_min() * 12345;
  h.query = {-0.0, 1e300, sub, 0.1, -4.1, 0x1.fffffffffffffp+1023};
  h.target = {1, 2, 3, 4, 5, -6};
  h.distractors = {{0.5, -0.0, 0, 0, 1e-300, -1e300}, {7, 8, 9, 10, 11, 12}};
  h.bos = std::vector<double>{-sub, 0.25, 0.125, 1, 0, 3};
  h.notion = Notion::argmax;
  h.epsilon = "0.05";
  h.break_at = "0.25";
  validate(h);
  return h;
}

void expect_same_vector(const std::vector<double>& a, const std::vector<double>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(bits(a[i]), bits(b[i])) << what << "[" << i << "]: " << hex_double(a[i]) << " vs " << hex_double(b[i]);
}

void expect_same_head(const Head& a, const Head& b) {
  EXPECT_EQ(a.spectrum.describe(), b.spectrum.describe());
  expect_same_vector(a.query, b.query, "query");
  expect_same_vector(a.target, b.target, "target");
  ASSERT_EQ(a.distractors.size(), b.distractors.size());
  for (size_t i = 0; i < a.distractors.size(); ++i) expect_same_vector(a.distractors[i], b.distractors[i], "distractor");
  ASSERT_EQ(a.bos.has_value(), b.bos.has_value());
  if (a.bos) expect_same_vector(*a.bos, *b.bos, "bos");
  EXPECT_EQ(a.notion, b.notion);
  EXPECT_EQ(a.epsilon, b.epsilon);
  EXPECT_EQ(a.break_at, b.break_at);
}

TEST(CounterexampleJson, HeadRoundTripsExactlyThroughText) {
  const Head h = rich_head();
  const json j = head_to_json(h);
  const Head back = head_from_json(json::parse(j.dump()), "mem");
  expect_same_head(h, back);
  EXPECT_EQ(head_to_json(back), j);
  EXPECT_EQ(j["spectrum"], json::parse(R"({"dim": 6, "theta": "500000", "variant": "partial", "fraction": "0.5", "scaling": "linear:2"})"));
  EXPECT_EQ(j["query"][0], "-0");
  EXPECT_EQ(j["query"][1], "1e+300");
}

TEST(CounterexampleJson, ConfigSpectrumIsWrittenWithItsExplicitFields) {
  Head h;
  h.spectrum_request.config = "llama-3.1-8b";
  h.spectrum_request.variant = Variant::p_rope;
  h.spectrum_request.fraction = "0.75";
  h.spectrum = resolve(h.spectrum_request).spectrum;
  h.query.assign(128, 0.0);
  h.target.assign(128, 0.0);
  h.distractors = {std::vector<double>(128, 0.0)};
  h.query[126] = 1;
  h.target[126] = 2;
  const json j = head_to_json(h);
  EXPECT_EQ(j["spectrum"], json::parse(R"({"config": "llama-3.1-8b", "dim": 128, "theta": "500000", "variant": "p-rope",
                                           "fraction": "0.75", "scaling": "llama3"})"));
  const Head back = head_from_json(j, "mem");
  expect_same_head(h, back);
  // The explicit fields alone name the same spectrum: the file is readable without the config table.
  json no_config = j;
  no_config["spectrum"].erase("config");
  EXPECT_EQ(head_from_json(no_config, "mem").spectrum.describe(), h.spectrum.describe());
  // {"config": NAME} alone is the configuration's spectrum.
  json config_only = j;
  config_only["spectrum"] = json{{"config", "gemma-7b"}};
  config_only["query"] = json::array();
  for (int i = 0; i < 256; ++i) config_only["query"].push_back(0);
  config_only["target"] = config_only["query"];
  config_only["distractors"] = json::array({config_only["query"]});
  EXPECT_EQ(head_from_json(config_only, "mem").spectrum.describe(), config_spectrum("gemma-7b").describe());
}

TEST(CounterexampleJson, CounterexampleRoundTripsAndCanonicalBytesAreStable) {
  const Counterexample c = counterexample_from_json(small_doc(), "mem");
  EXPECT_EQ(c.target, "channel");
  EXPECT_EQ(bits(c.head.query[1]), bits(3.0));
  EXPECT_EQ(bits(c.head.distractors[0][1]), bits(-0.25));
  EXPECT_EQ(c.before.length, 6);
  EXPECT_EQ(c.before.target_position(), 2);
  ASSERT_EQ(c.swaps.size(), 1u);
  EXPECT_EQ(c.swaps[0], Swap(2, 4));
  EXPECT_EQ(c.found["anything"][1], "goes");
  const json j = to_json(c);
  const Counterexample back = counterexample_from_json(json::parse(canonical_text(j)), "mem");
  expect_same_head(c.head, back.head);
  EXPECT_EQ(back.before.length, c.before.length);
  EXPECT_EQ(back.before.tokens, c.before.tokens);
  EXPECT_EQ(back.before.fill, c.before.fill);
  EXPECT_EQ(back.swaps, c.swaps);
  EXPECT_EQ(back.found, c.found);
  EXPECT_EQ(canonical_text(to_json(back)), canonical_text(j));
  // Keys inserted in another order give the same bytes (objects are sorted).
  json reordered = json::object();
  for (auto it = j.rbegin(); it != j.rend(); ++it) reordered[it.key()] = it.value();
  EXPECT_EQ(canonical_text(reordered), canonical_text(j));
  EXPECT_EQ(canonical_text(j).back(), '\n');
}

TEST(CounterexampleJson, SequenceWithBosAndLargeLengthRoundTrips) {
  Head h = rich_head();
  Sequence s;
  s.length = 1LL << 40;
  s.fill = distractor(1);
  s.set(0, kBos);
  s.set(12345678901LL, kTarget);
  s.set(7, distractor(0));
  s.set(8, distractor(1));  // equal to fill: dropped
  validate(s, h);
  const json j = sequence_to_json(s);
  EXPECT_EQ(j, json::parse(R"({"length": 1099511627776, "fill": "d1", "tokens": [[0, "bos"], [7, "d0"], [12345678901, "target"]]})"));
  const Sequence back = sequence_from_json(json::parse(j.dump()), h, "mem");
  EXPECT_EQ(back.length, s.length);
  EXPECT_EQ(back.fill, s.fill);
  EXPECT_EQ(back.tokens, s.tokens);
}

// ---- bad input: every message names the file and the field ----

TEST(CounterexampleJson, BadFieldsNameTheirPath) {
  expect_doc_error([](json& d) { d["head"]["query"][3] = "nan"; }, "head.query[3]", {"a finite number", "\"nan\""});
  expect_doc_error([](json& d) { d["head"]["query"][1] = "inf"; }, "head.query[1]", {"a finite number"});
  expect_doc_error([](json& d) { d["head"]["target"][0] = "1.5x"; }, "head.target[0]", {"a finite number"});
  expect_doc_error([](json& d) { d["head"]["distractors"][0][1] = nullptr; }, "head.distractors[0][1]");
  expect_doc_error([](json& d) { d["head"]["bos"] = json::array({1, 2, 3, "Infinity"}); }, "head.bos[3]");
  // Dimensions that disagree with the spectrum.
  expect_doc_error([](json& d) { d["head"]["query"].push_back(0); }, "head.query", {"4 finite numbers", "a list of 5"});
  expect_doc_error([](json& d) { d["head"]["distractors"][0].erase(0); }, "head.distractors[0]", {"4 finite numbers"});
  expect_doc_error([](json& d) { d["head"]["spectrum"]["dim"] = 6; }, "head.query", {"6 finite numbers", "a list of 4"});
  expect_doc_error([](json& d) { d["head"]["spectrum"] = json{{"config", "gemma-7b"}}; }, "head.query", {"256 finite numbers"});
  expect_doc_error([](json& d) { d["head"]["distractors"] = json::array(); }, "head.distractors", {"non-empty"});
  // Unknown keys, at every level but "found".
  expect_doc_error([](json& d) { d["head"]["qeury"] = d["head"]["query"]; }, "head.qeury", {"unknown key"});
  expect_doc_error([](json& d) { d["head"]["spectrum"]["thta"] = "10"; }, "head.spectrum.thta", {"unknown key"});
  expect_doc_error([](json& d) { d["sequence"]["fil"] = "d0"; }, "sequence.fil", {"unknown key"});
  expect_doc_error([](json& d) { d["extra"] = 1; }, "extra", {"unknown key"});
  // Missing fields.
  expect_doc_error([](json& d) { d["head"].erase("query"); }, "head.query", {"required"});
  expect_doc_error([](json& d) { d["head"].erase("spectrum"); }, "head.spectrum", {"required"});
  expect_doc_error([](json& d) { d["head"]["spectrum"].erase("dim"); }, "head.spectrum.dim", {"config"});
  expect_doc_error([](json& d) { d["sequence"].erase("length"); }, "sequence.length", {"required"});
  expect_doc_error([](json& d) { d.erase("swaps"); }, "swaps", {"required"});
  expect_doc_error([](json& d) { d.erase("head"); }, "head", {"required"});
  expect_doc_error([](json& d) { d.erase("format"); }, "format", {"required"});
  // The spectrum's own checks, re-thrown at the field.
  expect_doc_error([](json& d) { d["head"]["spectrum"]["dim"] = 3; }, "head.spectrum.dim", {"even integer"});
  expect_doc_error([](json& d) { d["head"]["spectrum"]["dim"] = 4.0; }, "head.spectrum.dim", {"even integer"});
  expect_doc_error([](json& d) { d["head"]["spectrum"]["theta"] = "0.5"; }, "head.spectrum.theta", {"> 1", "0.5"});
  expect_doc_error([](json& d) { d["head"]["spectrum"]["theta"] = 10000.5; }, "head.spectrum.theta", {"string"});
  expect_doc_error([](json& d) { d["head"]["spectrum"]["config"] = "gpt-9"; }, "head.spectrum.config", {"gemma-7b", "gpt-9"});
  expect_doc_error([](json& d) { d["head"]["spectrum"]["scaling"] = "cubic"; }, "head.spectrum.scaling", {"llama3", "cubic"});
  expect_doc_error([](json& d) { d["head"]["spectrum"]["variant"] = "alibi"; }, "head.spectrum.variant", {"p-rope", "alibi"});
  expect_doc_error([](json& d) { d["head"]["spectrum"]["variant"] = "p-rope"; }, "head.spectrum.fraction", {"required"});
  expect_doc_error(
      [](json& d) {
        d["head"]["spectrum"]["variant"] = "p-rope";
        d["head"]["spectrum"]["fraction"] = "1.5";
      },
      "head.spectrum.fraction", {"[0, 1]", "1.5"});
  expect_doc_error([](json& d) { d["head"]["spectrum"]["fraction"] = "0.5"; }, "head.spectrum.fraction", {"absent unless"});
  // Head parameters (validate()).
  expect_doc_error([](json& d) { d["head"]["epsilon"] = 0.1; }, "head.epsilon", {"decimal string"});
  expect_doc_error([](json& d) { d["head"]["epsilon"] = "1.5"; }, "head.epsilon", {"(0, 1)"});
  expect_doc_error([](json& d) { d["head"]["break_at"] = "0.95"; }, "head.break_at", {"1 - epsilon"});
  expect_doc_error([](json& d) { d["head"]["notion"] = "softmax"; }, "head.notion", {"attention or argmax"});
  // Sequence fields.
  expect_doc_error([](json& d) { d["sequence"]["length"] = 1; }, "sequence.length", {"[2, 2^40]"});
  expect_doc_error([](json& d) { d["sequence"]["length"] = "6"; }, "sequence.length", {"[2, 2^40]"});
  expect_doc_error([](json& d) { d["sequence"]["tokens"].push_back(json::array({3, "d7"})); }, "sequence.tokens[1][1]", {"type the head has"});
  expect_doc_error([](json& d) { d["sequence"]["tokens"].push_back(json::array({3, "dog"})); }, "sequence.tokens[1][1]", {"token type"});
  expect_doc_error([](json& d) { d["sequence"]["tokens"].push_back(json::array({6, "d0"})); }, "sequence.tokens[1][0]", {"[0, 5]"});
  expect_doc_error([](json& d) { d["sequence"]["tokens"].push_back(json::array({2, "d0"})); }, "sequence.tokens[1][0]", {"listed once"});
  expect_doc_error([](json& d) { d["sequence"]["tokens"].push_back(json::array({3})); }, "sequence.tokens[1]", {"[position, type]"});
  expect_doc_error([](json& d) { d["sequence"]["tokens"] = json::array(); }, "sequence.tokens", {"exactly one target"});
  expect_doc_error([](json& d) { d["sequence"]["fill"] = "target"; }, "sequence.fill", {"distractor"});
  // Swaps.
  expect_doc_error([](json& d) { d["swaps"][0][1] = 6; }, "swaps[0][1]", {"[0, 5]"});
  expect_doc_error([](json& d) { d["swaps"][0][1] = 1.5; }, "swaps[0][1]", {"integer"});
  expect_doc_error([](json& d) { d["swaps"][0][1] = 5; }, "swaps[0]", {"the query at 5 stays"});
  expect_doc_error([](json& d) { d["swaps"] = json::array({json::array({1, 2, 3})}); }, "swaps[0]", {"[a, b]"});
  // The document itself.
  expect_doc_error([](json& d) { d["format"] = "ropecheck-kernel-counterexample/1"; }, "format", {"ropecheck-counterexample/1"});
  expect_doc_error([](json& d) { d["target"] = "kernel"; }, "target", {"channel or band"});
}

TEST(CounterexampleJson, HeadAndSequenceAloneNameTheirPaths) {
  const json doc = small_doc();
  json head = doc["head"];
  head["query"][2] = "0x1p+1024";  // overflows binary64
  expect_input_error([&] { head_from_json(head, "h.json"); }, "h.json: head.query[2]", {"a finite number"});
  const Head h = head_from_json(doc["head"], "h.json");
  json seq = doc["sequence"];
  seq["tokens"][0][1] = "bos";  // the head has no bos key
  expect_input_error([&] { sequence_from_json(seq, h, "s.json"); }, "s.json: sequence.tokens[0][1]", {"type the head has"});
  expect_input_error([&] { head_from_json(json::array(), "h.json"); }, "h.json: head", {"an object"});
}

// ---- files ----

TEST(StoreCounterexample, StoresUnderTheTargetAndRefusesOtherTargets) {
  TempDir dir("cx_store");
  const json doc = small_doc();
  const std::string text = canonical_text(doc);
  const StoredFile first = store_counterexample(dir.path.string(), "channel", doc);
  EXPECT_TRUE(first.created);
  EXPECT_EQ(first.path, (dir.path / "channel" / (sha256_hex(text) + ".json")).string());
  EXPECT_EQ(read_bytes(first.path), text);
  EXPECT_FALSE(store_counterexample(dir.path.string(), "channel", doc).created);
  EXPECT_EQ(tree(dir.path), (std::vector<std::string>{"channel", "channel/" + sha256_hex(text) + ".json"}));
  expect_input_error([&] { store_counterexample(dir.path.string(), "../x", doc); }, "target", {"channel, band or kernel"});
  expect_input_error([&] { store_counterexample("", "channel", doc); }, "--out", {"a writable directory"});
  // --out below a regular file: the directory cannot be created.
  write_bytes(dir.path / "file", "x");
  expect_input_error([&] { store_counterexample((dir.path / "file").string(), "channel", doc); }, "--out", {"a writable directory"});
}

// Every counterexample already written (the regression corpus, the reference report's) reads back
// and writes back to its very bytes, under its name: the spectrum schema kept the counterexample
// form (spectrum/spectrum_json.h), so no content-addressed name changed.
TEST(CounterexampleJson, CorpusFilesKeepTheirBytesAndNames) {
  int files = 0;
  for (const char* dir : {"properties/regressions/channel", "properties/regressions/band", "reports/reference/counterexamples/channel",
                          "reports/reference/counterexamples/band"}) {
    const fs::path d = fs::path(ROPECHECK_TEST_SOURCE_DIR) / dir;
    if (!fs::exists(d)) continue;
    for (const auto& e : fs::directory_iterator(d)) {
      if (e.path().extension() != ".json") continue;
      SCOPED_TRACE(e.path().string());
      const std::string bytes = read_bytes(e.path());
      const Counterexample c = counterexample_from_json(json::parse(bytes), e.path().string());
      EXPECT_EQ(canonical_text(to_json(c)), bytes);
      EXPECT_EQ(e.path().stem().string(), sha256_hex(bytes));
      ++files;
    }
  }
  EXPECT_GE(files, 18);
}

// A llama3 scaling other than Llama 3.1's is written as an object (it has no --scaling text) and
// read back exactly.
TEST(CounterexampleJson, AnyScalingIsWritten) {
  Head h = rich_head();
  h.spectrum_request = SpectrumRequest{};
  h.spectrum = Spectrum(6, "500000", Variant::rope, "1", Scaling::llama3("16", "1", "4", 4096));
  const json j = head_to_json(h);
  EXPECT_EQ(j["spectrum"]["scaling"],
            json::parse(R"({"kind": "llama3", "factor": "16", "low_freq_factor": "1", "high_freq_factor": "4", "original_context": 4096})"));
  const Head back = head_from_json(json::parse(j.dump()), "mem");
  expect_same_head(h, back);
  EXPECT_EQ(head_to_json(back), j);
}

}  // namespace
}  // namespace ropecheck::adversarial

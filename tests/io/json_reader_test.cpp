// io/json_reader.h: the one reader of JSON documents: malformed, truncated and duplicate-key
// refusals, and every limit (size, depth, items) refused with the file and the limit named, at
// the limit exactly and one past it.
#include "io/json_reader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "../support/files.h"
#include "io/content_store.h"
#include "io/json_exact.h"
#include "tests/support/show.h"

namespace ropecheck {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::expect_input_error;
using test::TempDir;
using test::write_bytes;

json small_doc() {
  return json::parse(R"({"format": "x/1", "head": {"query": ["1", "0x1.8p+1", 0, -2.5], "epsilon": "0.1"}, "swaps": [[2, 4]]})");
}

TEST(ReadJsonFile, MissingMalformedTruncatedAndDuplicateKeysAreInputErrors) {
  TempDir dir("json_read");
  const std::string missing = (dir.path / "missing.json").string();
  expect_input_error([&] { read_json_file(missing); }, missing, {"a readable JSON file", "no such file"});
  expect_input_error([&] { read_json_file(dir.path.string()); }, dir.path.string(), {"a directory"});
  const fs::path malformed = dir.path / "malformed.json";
  write_bytes(malformed, "{\"a\": 1,, \"b\": 2}");
  expect_input_error([&] { read_json_file(malformed.string()); }, malformed.string(), {"malformed JSON at byte 9 of 17", "unexpected ','"});
  const fs::path truncated = dir.path / "truncated.json";
  const std::string whole = canonical_text(small_doc());
  write_bytes(truncated, whole.substr(0, whole.size() / 2));
  expect_input_error([&] { read_json_file(truncated.string()); }, truncated.string(), {"truncated JSON at byte"});
  const fs::path empty = dir.path / "empty.json";
  write_bytes(empty, "");
  expect_input_error([&] { read_json_file(empty.string()); }, empty.string(), {"truncated JSON"});
  const fs::path trailing = dir.path / "trailing.json";
  write_bytes(trailing, "{} x");
  expect_input_error([&] { read_json_file(trailing.string()); }, trailing.string(), {"malformed JSON at byte"});
  const fs::path twice = dir.path / "twice.json";
  write_bytes(twice, R"({"head": {"query": [1], "query": [2]}})");
  expect_input_error([&] { read_json_file(twice.string()); }, twice.string(), {"\"query\" twice"});
  const fs::path number = dir.path / "huge.json";
  write_bytes(number, "[1e400]");
  // The parser refuses a number beyond binary64 (nlohmann's out_of_range, not a parse_error).
  expect_input_error([&] { read_json_file(number.string()); }, number.string(), {"malformed JSON", "1e400"});
  const fs::path good = dir.path / "good.json";
  write_bytes(good, whole);
  EXPECT_EQ(read_json_file(good.string()), small_doc());
}

TEST(JsonLimits, DepthIsRefusedPastTheLimitWithTheFileAndTheLimitNamed) {
  const JsonLimits limits{1 << 20, 4, 100};
  EXPECT_EQ(parse_json("[[[[1]]]]", "d.json", limits), json::parse("[[[[1]]]]"));
  EXPECT_EQ(parse_json(R"({"a": {"b": [{"c": 1}]}})", "d.json", limits)["a"]["b"][0]["c"], 1);
  expect_input_error([&] { parse_json("[[[[[1]]]]]", "d.json", limits); }, "d.json",
                     {"nesting depth at most 4", "nested deeper than 4"});
  expect_input_error([&] { parse_json(R"({"a": {"b": [{"c": {}}]}})", "d.json", limits); }, "d.json", {"nested deeper than 4"});
  // The crash this limit removed: a document nested 300000 deep (the DOM's copy recursed until the
  // stack ran out). It is refused at the default limit, from its first 65 bytes.
  const std::string deep = std::string(300000, '[') + std::string(300000, ']');
  expect_input_error([&] { parse_json(deep, "deep.json"); }, "deep.json", {"nested deeper than 64"});
  expect_input_error([&] { parse_json(deep, "deep.json", kJsonLimits, JsonNumbers::exact); }, "deep.json", {"nested deeper than 64"});
}

TEST(JsonLimits, ItemsAndSizeAreRefusedPastTheLimit) {
  const JsonLimits limits{64, 8, 3};
  EXPECT_EQ(parse_json("[1, 2, 3]", "i.json", limits).size(), 3u);
  EXPECT_EQ(parse_json(R"({"a": 1, "b": 2, "c": 3})", "i.json", limits).size(), 3u);
  expect_input_error([&] { parse_json("[1, 2, 3, 4]", "i.json", limits); }, "i.json",
                     {"at most 3 items per array or object", "more than 3 items"});
  expect_input_error([&] { parse_json(R"({"a": 1, "b": 2, "c": 3, "d": 4})", "i.json", limits); }, "i.json", {"more than 3 items"});
  expect_input_error([&] { parse_json("[[1, 2], [1, 2, 3, 4]]", "i.json", limits); }, "i.json", {"more than 3 items"});
  const std::string exactly(64, ' ');
  expect_input_error([&] { parse_json(exactly + "1", "s.json", limits); }, "s.json", {"at most 64 bytes", "(got 65 bytes)"});
  TempDir dir("json_limits");
  const fs::path big = dir.path / "big.json";
  write_bytes(big, "[" + std::string(100, ' ') + "]");
  expect_input_error([&] { read_json_file(big.string(), limits); }, big.string(), {"at most 64 bytes", "(got 102 bytes)"});
  EXPECT_EQ(read_json_file(big.string(), JsonLimits{102, 1, 0}), json::array());
}

TEST(JsonNumbers, ExactKeepsLexemesAndRefusesAStringThatWouldReadAsOne) {
  const json j = parse_json(R"({"theta": 500000.0, "n": 3, "s": "x"})", "e.json", kJsonLimits, JsonNumbers::exact);
  EXPECT_EQ(number_text(j["theta"], "theta", "a number"), "500000.0");
  EXPECT_EQ(number_text(j["n"], "n", "a number"), "3");
  EXPECT_EQ(parse_json(R"({"theta": 500000.0})", "e.json")["theta"], 500000.0);
  expect_input_error([&] { parse_json(R"({"theta": "\u0001abc"})", "e.json", kJsonLimits, JsonNumbers::exact); }, "e.json",
                     {"U+0001"});
  EXPECT_EQ(parse_json(R"({"theta": "\u0001abc"})", "e.json")["theta"], std::string("\x01" "abc"));
}

}  // namespace
}  // namespace ropecheck

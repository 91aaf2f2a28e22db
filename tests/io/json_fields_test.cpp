// io/json_fields.h: field names, the value readers (finite binary64 components among them), unknown
// keys (the reading of whole documents: json_reader_test.cpp).
#include "io/json_fields.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>

#include "../support/files.h"
#include "io/content_store.h"
#include "io/printf_string.h"
#include "tests/support/show.h"

namespace ropecheck {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;


using test::expect_input_error;
using test::TempDir;
using test::write_bytes;

TEST(JsonPlace, NamesTheFileAndThePath) {
  const JsonPlace doc = JsonPlace::document("cx.json");
  EXPECT_EQ(doc.name(), "cx.json");
  EXPECT_EQ(doc.member("head").name(), "cx.json: head");
  EXPECT_EQ(doc.member("head").member("query").item(3).name(), "cx.json: head.query[3]");
  EXPECT_EQ(JsonPlace::document("").member("swaps").item(0).item(1).name(), "swaps[0][1]");
  EXPECT_EQ(JsonPlace("cx.json: spectrum").member("dim").name(), "cx.json: spectrum.dim");
}

TEST(JsonFields, ObjectsRefuseUnknownKeysAndNameMissingFields) {
  const JsonPlace at("f.json: head");
  const json j = json::parse(R"({"a": 1, "b": "x"})");
  require_object(j, at, {"a", "b", "c"});
  expect_input_error([&] { require_object(j, at, {"a"}); }, "f.json: head.b", {"absent: not a field of f.json: head", "an unknown key"});
  expect_input_error([&] { require_object(json::array(), at, {"a"}); }, "f.json: head", {"an object with keys among a", "[]"});
  expect_input_error([&] { refuse_unknown_keys(j, JsonPlace::document("f.json"), {"a"}, "a thing"); }, "f.json: b",
                     {"absent: not a field of a thing, whose fields are a"});
  EXPECT_EQ(required(j, at, "a", "an integer"), 1);
  expect_input_error([&] { required(j, at, "c", "an integer"); }, "f.json: head.c", {"an integer (a required field)", "(got nothing)"});
}

TEST(JsonFields, ValuesOfTheirTypeOnly) {
  EXPECT_EQ(string_value(json("x"), "s", "a string"), "x");
  expect_input_error([] { string_value(json(1), "s", "a string"); }, "s", {"a string", "(got 1)"});
  EXPECT_EQ(integer_value(json(-3), "i", "an integer"), -3);
  EXPECT_EQ(integer_value(json(9223372036854775807ULL), "i", "an integer"), 9223372036854775807LL);
  for (const json& bad : {json(3.0), json("3"), json(9223372036854775808ULL), json(nullptr)})
    expect_input_error([&] { integer_value(bad, "i", "an integer"); }, "i", {"an integer"});
  EXPECT_EQ(unsigned_value(json(18446744073709551615ULL), "u", "u64"), 18446744073709551615ULL);
  expect_input_error([] { unsigned_value(json(-1), "u", "u64"); }, "u");
  EXPECT_EQ(number_value(json(0.5), "n", "a number"), 0.5);
  EXPECT_EQ(number_value(json(2), "n", "a number"), 2.0);
  expect_input_error([] { number_value(json("0.5"), "n", "a number"); }, "n");
  EXPECT_EQ(decimal_value(json("0.75"), "d", "a decimal"), "0.75");
  EXPECT_EQ(decimal_value(json(10000), "d", "a decimal"), "10000");
  expect_input_error([] { decimal_value(json(0.75), "d", "a decimal"); }, "d", {"as a string, so that it stays exact", "0.75"});
  // What was given is cut to 60 characters.
  const std::string shown_long = shown(json(std::string(100, 'x')));
  EXPECT_EQ(shown_long.size(), 60u);
  EXPECT_EQ(shown_long.substr(57), "...");
}

// ---- finite binary64 values (counterexample components) ----

TEST(FiniteDouble, ReadsNumbersDecimalAndHexStrings) {
  struct Case {
    json j;
    double want;
  };
  const std::vector<Case> cases = {
      {json(1.5), 1.5},
      {json(-3), -3.0},
      {json("0.1"), 0.1},
      {json("+2.5e-3"), 2.5e-3},
      {json(".5"), 0.5},
      {json("5."), 5.0},
      {json("1E300"), 1e300},
      {json("0x1.8p+1"), 3.0},
      {json("-0X1P-2"), -0.25},
      {json("0x.8p1"), 1.0},
      {json("0x10"), 16.0},
      {json("0x1p-1074"), std::numeric_limits<double>::denorm_min()},
      {json("4.9406564584124654e-324"), std::numeric_limits<double>::denorm_min()},
      {json("2.2250738585072009e-308"), std::bit_cast<double>(std::uint64_t{0x000fffffffffffff})},
      {json("1.7976931348623157e308"), std::numeric_limits<double>::max()},
      // Correct rounding of a decimal between two binary64 values (halfway cases go to even):
      // 2^53 + 1 is halfway between 2^53 and 2^53 + 2.
      {json("9007199254740993"), 9007199254740992.0},
      {json(9007199254740993ULL), 9007199254740992.0},
  };
  for (const auto& c : cases) {
    const double got = finite_double_value(c.j, "x");
    EXPECT_EQ(bits(got), bits(c.want)) << c.j.dump() << " -> " << hex_double(got) << ", want " << hex_double(c.want);
  }
  const double neg_zero = finite_double_value(json("-0"), "x");
  EXPECT_TRUE(neg_zero == 0 && std::signbit(neg_zero)) << hex_double(neg_zero);
  const double neg_zero_number = finite_double_value(json::parse("-0.0"), "x");
  EXPECT_TRUE(neg_zero_number == 0 && std::signbit(neg_zero_number)) << hex_double(neg_zero_number);
}

TEST(FiniteDouble, RejectsNonFiniteGarbageAndTrailingCharacters) {
  const std::vector<json> bad = {json("nan"),  json("NaN"),  json("inf"),  json("-inf"), json("Infinity"), json("1e400"),
                                 json("-1e400"), json("1e-400"), json("0x1p-1080"), json(""), json(" 1"), json("1 "),
                                 json("1.5x"), json("0x"), json("0x1p"), json("1e"), json("--1"), json("+-1"), json("."),
                                 json("1,5"), json("0x1.g"), json("1e+"), json(true), json(nullptr), json::array(), json::object(),
                                 json(std::numeric_limits<double>::infinity()), json(std::numeric_limits<double>::quiet_NaN())};
  for (const auto& j : bad) {
    SCOPED_TRACE(j.dump());
    expect_input_error([&] { finite_double_value(j, "f.json: head.query[3]"); }, "f.json: head.query[3]", {"a finite number"});
  }
}

}  // namespace
}  // namespace ropecheck

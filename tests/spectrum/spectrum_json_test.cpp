// spectrum/spectrum_json.h: the one JSON form of a spectrum: canonical writer, a reader that takes
// both scaling forms and refuses unknown keys, and every Scaling writable.
#include "spectrum/spectrum_json.h"

#include <gtest/gtest.h>

#include "../support/files.h"

namespace ropecheck {
namespace {

using nlohmann::json;

using test::expect_input_error;

Scaling custom_llama3() { return Scaling::llama3("16", "0.5", "8", 4096); }

TEST(SpectrumJson, WriterKeepsTheShortScalingTextsAndWritesTheRestAsObjects) {
  EXPECT_EQ(scaling_to_json(Scaling{}), json("none"));
  EXPECT_EQ(scaling_to_json(Scaling::linear("2.5")), json("linear:2.5"));
  EXPECT_EQ(scaling_to_json(Scaling::llama3_1()), json("llama3"));
  EXPECT_EQ(scaling_to_json(custom_llama3()),
            json::parse(R"({"kind": "llama3", "factor": "16", "low_freq_factor": "0.5", "high_freq_factor": "8", "original_context": 4096})"));
  // Every form reads back to the same scaling.
  for (const Scaling& s : {Scaling{}, Scaling::linear("2.5"), Scaling::llama3_1(), custom_llama3()}) {
    const Scaling back = scaling_from_json(scaling_to_json(s), "x");
    EXPECT_EQ(back.describe(), s.describe());
    EXPECT_EQ(scaling_to_json(back), scaling_to_json(s));
  }
}

TEST(SpectrumJson, ScalingObjectsOfEveryKindAreRead) {
  EXPECT_EQ(scaling_from_json(json::parse(R"({"kind": "none"})"), "x").kind, Scaling::Kind::none);
  const Scaling linear = scaling_from_json(json::parse(R"({"kind": "linear", "factor": "4"})"), "x");
  EXPECT_EQ(linear.describe(), "linear 4");
  EXPECT_EQ(scaling_to_json(linear), json("linear:4"));  // canonical: the short text
  const Scaling shipped = scaling_from_json(
      json::parse(R"({"kind": "llama3", "factor": 8, "low_freq_factor": "1", "high_freq_factor": "4", "original_context": 8192})"), "x");
  EXPECT_EQ(shipped.describe(), Scaling::llama3_1().describe());
  EXPECT_EQ(scaling_to_json(shipped), json("llama3"));
}

TEST(SpectrumJson, BadScalingsNameTheField) {
  const std::string at = "f.json: spectrum.scaling";
  expect_input_error([&] { scaling_from_json(json("cubic"), at); }, at, {"llama3", "cubic"});
  expect_input_error([&] { scaling_from_json(json("linear:0"), at); }, at, {"linear:F", "linear:0"});
  expect_input_error([&] { scaling_from_json(json(2), at); }, at, {"scaling object"});
  expect_input_error([&] { scaling_from_json(json::parse(R"({"factor": "2"})"), at); }, at + ".kind", {"required"});
  expect_input_error([&] { scaling_from_json(json::parse(R"({"kind": "ntk"})"), at); }, at + ".kind", {"none, linear, llama3, dynamic, yarn or longrope", "ntk"});
  expect_input_error([&] { scaling_from_json(json::parse(R"({"kind": "yarn"})"), at); }, at + ".factor", {"required"});
  expect_input_error([&] { scaling_from_json(json::parse(R"({"kind": "yarn", "factor": "4", "original_context": 32768, "beta_fast": "32", "beta_slow": "1"})"), at); },
                     at + ".truncate", {"true or false"});
  expect_input_error([&] { scaling_from_json(json::parse(R"({"kind": "none", "factor": "2"})"), at); }, at + ".factor", {"unknown key"});
  expect_input_error([&] { scaling_from_json(json::parse(R"({"kind": "linear", "factr": "2"})"), at); }, at + ".factr", {"unknown key"});
  expect_input_error([&] { scaling_from_json(json::parse(R"({"kind": "linear"})"), at); }, at + ".factor", {"required"});
  expect_input_error([&] { scaling_from_json(json::parse(R"({"kind": "linear", "factor": "-1"})"), at); }, at + ".factor", {"> 0", "-1"});
  expect_input_error([&] { scaling_from_json(json::parse(R"({"kind": "linear", "factor": 2.5})"), at); }, at + ".factor", {"string"});
  json llama = scaling_to_json(custom_llama3());
  llama["high_freq_factor"] = "0.25";  // below low (0.5); equal is Llama 4 Scout's hard cut, accepted
  expect_input_error([&] { scaling_from_json(llama, at); }, at + ".high_freq_factor", {"low_freq_factor"});
  llama = scaling_to_json(custom_llama3());
  llama["original_context"] = 0;
  expect_input_error([&] { scaling_from_json(llama, at); }, at + ".original_context", {">= 1"});
  llama.erase("original_context");
  expect_input_error([&] { scaling_from_json(llama, at); }, at + ".original_context", {"required"});
}

TEST(SpectrumJson, RequestsAreWrittenWithTheFieldsTheyHold) {
  SpectrumRequest r;
  r.config = "gemma-7b";
  EXPECT_EQ(spectrum_request_to_json(r), json::parse(R"({"config": "gemma-7b"})"));
  r.variant = Variant::p_rope;
  r.fraction = "0.75";
  EXPECT_EQ(spectrum_request_to_json(r), json::parse(R"({"config": "gemma-7b", "variant": "p-rope", "fraction": "0.75"})"));
  r.variant = Variant::nope;  // no fraction with a variant that takes none
  EXPECT_EQ(spectrum_request_to_json(r), json::parse(R"({"config": "gemma-7b", "variant": "nope"})"));
  r.context = 100;  // not part of a spectrum
  EXPECT_EQ(spectrum_request_to_json(r), json::parse(R"({"config": "gemma-7b", "variant": "nope"})"));
  EXPECT_EQ(spectrum_to_json(config_spectrum("llama-3.1-8b"), std::string("llama-3.1-8b")),
            json::parse(R"({"config": "llama-3.1-8b", "dim": 128, "theta": "500000", "variant": "rope", "scaling": "llama3"})"));
  EXPECT_EQ(spectrum_to_json(Spectrum(6, "500000", Variant::partial, "0.5", Scaling::linear("2"))),
            json::parse(R"({"dim": 6, "theta": "500000", "variant": "partial", "fraction": "0.5", "scaling": "linear:2"})"));
}

TEST(SpectrumJson, EverySpectrumRoundTrips) {
  for (const Spectrum& s : {Spectrum(2, "10000"), Spectrum(256, "10000", Variant::p_rope, "0.75"), Spectrum(8, "37", Variant::nope),
                            Spectrum(64, "500000", Variant::reversed, "0.25", Scaling::llama3_1()),
                            Spectrum(128, "500000", Variant::rope, "1", custom_llama3()),
                            Spectrum(16, "1.5", Variant::partial, "0.5", Scaling::linear("32"))}) {
    SCOPED_TRACE(s.describe());
    const json j = spectrum_to_json(s);
    const Spectrum back = spectrum_from_json(json::parse(j.dump()), "mem");
    EXPECT_EQ(back.describe(), s.describe());
    EXPECT_EQ(spectrum_to_json(back), j);
    const SpectrumRequest r = spectrum_request_from_json(j, "mem");
    ASSERT_TRUE(r.scaling.has_value());
    EXPECT_EQ(r.scaling->describe(), s.scaling().describe());
  }
  // A configuration with a custom scaling over it: the fields override the configuration.
  const json over = {{"config", "llama-3.1-8b"}, {"scaling", scaling_to_json(custom_llama3())}};
  EXPECT_EQ(spectrum_from_json(over, "mem").scaling().describe(), custom_llama3().describe());
}

TEST(SpectrumJson, BadSpectraNameTheField) {
  const std::string at = "f.json: spectrum";
  expect_input_error([&] { spectrum_from_json(json::array(), at); }, at, {"an object"});
  expect_input_error([&] { spectrum_from_json(json::parse(R"({"dimm": 4})"), at); }, at + ".dimm", {"unknown key"});
  expect_input_error([&] { spectrum_from_json(json::parse(R"({"theta": "10"})"), at); }, at + ".dim", {"config"});
  expect_input_error([&] { spectrum_from_json(json::parse(R"({"dim": "4"})"), at); }, at + ".dim", {"even integer"});
  expect_input_error([&] { spectrum_from_json(json::parse(R"({"dim": 5})"), at); }, at + ".dim", {"even integer", "5"});
  expect_input_error([&] { spectrum_from_json(json::parse(R"({"dim": 4, "theta": "1"})"), at); }, at + ".theta", {"> 1"});
  expect_input_error([&] { spectrum_from_json(json::parse(R"({"config": "gpt-9"})"), at); }, at + ".config", {"gemma-7b", "gpt-9"});
  expect_input_error([&] { spectrum_from_json(json::parse(R"({"dim": 4, "variant": "alibi"})"), at); }, at + ".variant", {"p-rope", "alibi"});
  expect_input_error([&] { spectrum_from_json(json::parse(R"({"dim": 4, "variant": "partial"})"), at); }, at + ".fraction", {"required"});
  expect_input_error([&] { spectrum_from_json(json::parse(R"({"dim": 4, "fraction": "0.5"})"), at); }, at + ".fraction", {"absent unless"});
  expect_input_error([&] { spectrum_from_json(json::parse(R"({"dim": 4, "variant": "p-rope", "fraction": "2"})"), at); }, at + ".fraction",
                     {"[0, 1]", "2"});
  expect_input_error([&] { spectrum_from_json(json::parse(R"({"dim": 4, "scaling": {"kind": "linear"}})"), at); }, at + ".scaling.factor",
                     {"required"});
}

}  // namespace
}  // namespace ropecheck

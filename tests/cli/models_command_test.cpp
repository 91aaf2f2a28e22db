// `ropecheck models` and `--model` on the command line: the zoo listed, a model's layer types
// printed, and bad models or configs refused in one line with exit code 2, nothing written.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "run_cli.h"

namespace {

using ropecheck::test::CliRun;
using ropecheck::test::run_cli;

TEST(ModelsCommand, ListsTheZooWithEveryLayerType) {
  const CliRun r = run_cli("models --json", false);
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_GE(j.size(), 18u);
  bool gemma3 = false;
  for (const auto& m : j) {
    EXPECT_FALSE(m["sources"].empty()) << m["model"];
    if (m["model"] == "gemma-3-27b") {
      gemma3 = true;
      EXPECT_EQ(m["layer_types"].size(), 2u);
    }
  }
  EXPECT_TRUE(gemma3);
}

TEST(ModelsCommand, SpectrumOfAModelNamesItsLayerTypes) {
  const CliRun r = run_cli("spectrum --model gemma-3-27b --json", false);
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["layer_types"].size(), 2u);
  EXPECT_EQ(j["layer_types"][0]["layer_type"], "sliding_attention");
  EXPECT_EQ(j["layer_types"][0]["span"], 1024);
  EXPECT_EQ(j["layer_types"][1]["spectrum"]["scaling"], "linear 8.0");
  const CliRun one = run_cli("spectrum --model gpt-oss-20b --layer-type full_attention", false);
  ASSERT_EQ(one.status, 0);
  EXPECT_NE(one.out.find("attention factor 1.34657359"), std::string::npos) << one.out;
}

TEST(ModelsCommand, BadModelsAreOneLineAndExitCode2) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("ropecheck_models_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  const std::string base = R"("num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 2, "max_position_embeddings": 4096)";
  struct Case {
    std::string args, names;
  };
  const Case cases[] = {
      {"spectrum --model no-such-model", "--model"},
      {"spectrum --model llama-3.1-8b --layer-type sliding", "--layer-type"},
      {"spectrum --model " + write("malformed.json", "{\"rope_theta\": "), "malformed.json"},
      {"spectrum --model " + write("type.json", "{" + base + R"(, "rope_scaling": {"rope_type": "mrope"}})"), "rope_scaling.rope_type"},
      {"spectrum --model " + write("missing.json", "{" + base + R"(, "rope_scaling": {"rope_type": "yarn", "original_max_position_embeddings": 3000}})"),
       "rope_scaling.factor"},  // factor may be omitted only when max_position_embeddings is a multiple of it
      {"spectrum --model " + write("string.json", "{" + base + R"(, "rope_theta": "big"})"), "rope_theta"},
      {"spectrum --model " + write("both.json", "{" + base + R"(, "rope_scaling": {"rope_type": "linear", "factor": 2}, "rope_parameters": {}})"),
       "rope_scaling"},
      {"verify --claim lemma-a1 --model llama-3.1-8b --dim 64", "--dim"},
      {"verify --claim lemma-a1 --model llama-4-scout --layer-type nope", "--layer-type"},
      {"fuzz --target band --budget 1 --model no-such-model --out " + (dir / "out").string(), "--model"},
  };
  for (const Case& c : cases) {
    const CliRun r = run_cli(c.args, true);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.names), std::string::npos) << c.args << "\n" << r.out;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));  // the bad model is refused before --out is made
  std::filesystem::remove_all(dir);
}

}  // namespace

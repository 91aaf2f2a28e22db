// The CLI's contract on bad input: exit code 2 and exactly one line on stderr that names the input
// and its accepted range; never an abort or an uncaught exception. And on good input, the outputs
// the foundation issue promises.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "run_cli.h"

namespace {

using ropecheck::test::CliRun;
using ropecheck::test::run_cli;


struct BadCase {
  const char* args;
  const char* names;  // the flag the message must name
};

TEST(Cli, BadInputIsOneLineAndExitCode2) {
  const BadCase cases[] = {
      {"spectrum --dim 7", "--dim"},
      {"spectrum --dim abc", "--dim"},
      {"spectrum", "--dim"},
      {"spectrum --dim 8 --theta 1", "--theta"},
      {"spectrum --dim 8 --theta 0.5", "--theta"},
      {"spectrum --dim 8 --theta ten", "--theta"},
      {"spectrum --dim 8 --p-rope 1.5", "--p-rope"},
      {"spectrum --dim 8 --reversed -1", "--reversed"},
      {"spectrum --dim 8 --partial 2", "--partial"},
      {"spectrum --dim 8 --context 0", "--context"},
      {"spectrum --config gpt-9", "--config"},
      {"spectrum --dim 8 --precision 52", "--precision"},
      {"spectrum --dim 8 --scaling yarn", "--scaling"},
      {"spectrum --dim 8 --p-rope 0.5 --reversed 0.5", "--p-rope"},
      {"spectrum --frobnicate", "--frobnicate"},
      {"verify --claim no-such-claim", "--claim"},
      {"verify --claim prop-3.1 --dim 8 --context 10 --distance 11", "--distance"},
      {"verify --claim prop-3.1 --dim 4 --context 10 --distance 3 --query 1,2", "--query"},
      {"verify --claim lemma-a1 --dim 8 --json /nonexistent-ropecheck-dir/out.json", "--json"},
      {"verify --seed -1", "--seed"},
      {"verify --claim dynamic-ntk-cache --distance 9000", "--distance"},
      {"verify --claim dynamic-ntk-cache --query-length 0", "--query-length"},
      {"verify --claim dynamic-ntk-cache --dim 64", "--dim"},
      {"verify --claim dynamic-ntk-cache --model llama-3.1-8b", "--model"},
  };
  for (const BadCase& c : cases) {
    const CliRun r = run_cli(c.args, true);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.names), std::string::npos) << c.args << "\n" << r.out;
    EXPECT_EQ(r.out.find("terminate"), std::string::npos) << c.args << "\n" << r.out;
  }
}

TEST(Cli, SpectrumJsonForLlama31) {
  const CliRun r = run_cli("spectrum --config llama-3.1-8b --json", false);
  ASSERT_EQ(r.status, 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["rows"].size(), 64u);
  EXPECT_EQ(j["context"], 131072);
  EXPECT_EQ(j["rows"][0]["g"], "1");
  EXPECT_EQ(j["rows"][0]["quarter_turn_horizon"], 2);
  EXPECT_NE(j["scaling"].get<std::string>().find("llama3"), std::string::npos);
  // Pairs 40-64 turn less than once over 131072 tokens (spectrum/rotations.h).
  EXPECT_EQ(j["semantic_pairs"], 25);
  EXPECT_EQ(j["rows"][38]["semantic"], "no");
  EXPECT_EQ(j["rows"][39]["semantic"], "yes");
}

TEST(Cli, VerifyWritesCertificatesAtomically) {
  const std::filesystem::path out = std::filesystem::temp_directory_path() / ("ropecheck_cli_" + std::to_string(::getpid()) + ".json");
  const CliRun r = run_cli("verify --claim lemma-a1 --claim prop-3.1 --dim 16 --context 200 --distance 3 --json " + out.string(), false);
  ASSERT_EQ(r.status, 0) << r.out;
  std::ifstream in(out);
  const nlohmann::json j = nlohmann::json::parse(in);
  ASSERT_EQ(j["certificates"].size(), 2u);
  ASSERT_EQ(j["claims"].size(), 2u);
  EXPECT_EQ(j["claims"][0]["claim"], "lemma-a1");
  EXPECT_EQ(j["claims"][1]["certificates"], 1);
  EXPECT_EQ(j["claims"][1]["as_paper_states"], true);
  EXPECT_EQ(j["certificates"][0]["claim"], "lemma-a1");
  EXPECT_EQ(j["certificates"][1]["claim"], "prop-3.1");
  EXPECT_EQ(j["certificates"][1]["verdict"], "holds");
  EXPECT_EQ(j["all_as_paper_states"], true);
  EXPECT_EQ(j["arithmetic"]["fast_math"], false);
  EXPECT_EQ(j["certificates"][1]["parameters"]["query"]["seed"], 1);
  std::filesystem::remove(out);
}

TEST(Cli, VerifyDynamicNtkCachePrintsItsTable) {
  // The default example (LlamaConfig() with dynamic factor 2, M = 2048): rows at S = M + 1 certify
  // the mixed activation off both bases; the key at j = 0 is unrotated and equals the fresh one.
  const CliRun r = run_cli("verify --claim dynamic-ntk-cache --query-length 2049", false);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("explicit example, not a released model"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("a_mixed != a_old, a_mixed != a_new"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("a_mixed = a_new (j = 0: key unrotated)"), std::string::npos) << r.out;
}

TEST(Cli, VerifyExitsOneWhenAVerdictDiffers) {
  // NoPE makes every activation equal: prop-3.1 is inconclusive, which is not what the paper states.
  const CliRun r = run_cli("verify --claim prop-3.1 --dim 8 --nope --context 20 --distance 2", false);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("inconclusive"), std::string::npos) << r.out;
}

}  // namespace

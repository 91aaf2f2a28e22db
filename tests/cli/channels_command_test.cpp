// `ropecheck channels`: the paper's channel over a model's 8 lowest rotating pairs, its certified
// shortest breaking context against the layer type's span, the p-RoPE control; bad input refused in
// one line with exit code 2, nothing written.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "run_cli.h"
#include "tests/support/files.h"

namespace {

using ropecheck::test::CliStreams;
using ropecheck::test::run_cli_streams;
namespace fs = std::filesystem;

TEST(ChannelsCommand, LlamaBandBreaksOutsideItsContextGlmInside) {
  const ropecheck::test::TempDir dir("channels");
  const fs::path json = dir.path / "rows.json";
  // llama-3.1-8b's channel breaks at 3,644,840 tokens (the fuzz preset llama-3.1-8b-band8, the same
  // head: a = 1), far outside its 131072; glm-4-9b's (theta 10^4 over 32 rotating pairs) inside.
  const CliStreams llama = run_cli_streams("channels --model llama-3.1-8b --max-context 4000000");
  ASSERT_EQ(llama.status, 0) << llama.err;
  EXPECT_NE(llama.out.find("3644840"), std::string::npos) << llama.out;
  EXPECT_NE(llama.out.find("outside"), std::string::npos) << llama.out;
  EXPECT_NE(llama.out.find("never breaks (position-free, certified)"), std::string::npos) << llama.out;
  const CliStreams glm = run_cli_streams("channels --model glm-4-9b --max-context 100000 --json " + json.string());
  ASSERT_EQ(glm.status, 0) << glm.err;
  const nlohmann::json rows = nlohmann::json::parse(ropecheck::test::read_bytes(json));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["shortest_break"], 9710) << rows.dump();
  EXPECT_EQ(rows[0]["minimal"], "yes");
  EXPECT_EQ(rows[0]["breaks_inside_span"], true);
  EXPECT_EQ(rows[0]["control_position_free"], "yes");
}

TEST(ChannelsCommand, NoBreakUpToTheSearchIsCertifiedNotAssumed) {
  // mistral-small-3 (theta 10^8): nothing breaks within 2^20 tokens, certified by the same pass.
  const CliStreams r = run_cli_streams("channels --model mistral-small-3 --max-context 1048576");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("none <= 1048576"), std::string::npos) << r.out;
}

TEST(ChannelsCommand, BadInputIsOneLineExitTwoNothingWritten) {
  const ropecheck::test::TempDir dir("channels_bad");
  const fs::path json = dir.path / "rows.json";
  for (const char* args : {"channels --model llama-3.1-8b --max-context 0", "channels --model llama-3.1-8b --max-context 3000000000",
                                  "channels --model no-such-model", "channels --model llama-3.1-8b --layer-type nope",
                                  "channels --layer-type all"}) {
    const CliStreams r = run_cli_streams(std::string(args) + " --json " + json.string());
    EXPECT_EQ(r.status, 2) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
    EXPECT_FALSE(fs::exists(json)) << args;
  }
}

}  // namespace

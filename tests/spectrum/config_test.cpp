#include "spectrum/config.h"

#include <gtest/gtest.h>

#include "io/input_error.h"

namespace ropecheck {
namespace {

TEST(Config, NamedConfigurationsCarryThePublishedNumbers) {
  const ModelConfig& g7 = find_config("gemma-7b");
  EXPECT_EQ(g7.dim, 256);
  EXPECT_EQ(g7.theta, "10000");
  EXPECT_EQ(g7.context, 8192);
  const ModelConfig& l = find_config("llama-3.1-8b");
  EXPECT_EQ(l.dim, 128);
  EXPECT_EQ(l.theta, "500000");
  EXPECT_EQ(l.context, 131072);
  EXPECT_EQ(l.scaling.kind, Scaling::Kind::llama3);
  EXPECT_EQ(l.scaling.factor, "8");
  EXPECT_EQ(find_config("llama-3.1-8b-unscaled").scaling.kind, Scaling::Kind::none);
  EXPECT_EQ(find_config("gemma-2b").dim, 256);
  EXPECT_EQ(find_config("roformer").context, 512);
}

TEST(Config, UnknownNameListsTheKnownOnes) {
  try {
    find_config("gpt-5");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.input(), "config");
    EXPECT_NE(std::string(e.what()).find("gemma-7b"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ropecheck

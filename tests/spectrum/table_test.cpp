#include "spectrum/table.h"

#include <gtest/gtest.h>

#include "numeric/precision.h"
#include "spectrum/rotations.h"

namespace ropecheck {
namespace {

TEST(Table, FastestPairTurnsAQuarterWithinTwoTokens) {
  ScopedPrecision p(128);
  const Spectrum s(256, "10000", Variant::p_rope, "0.75");
  const auto rows = spectrum_rows(s, 8192);
  ASSERT_EQ(rows.size(), 128u);
  EXPECT_EQ(rows[0].g, "1");
  EXPECT_EQ(*rows[0].horizon, 2);  // ceil(pi/2)
  EXPECT_EQ(rows[0].wavelength.substr(0, 10), "6.28318530");
  EXPECT_EQ(rows[0].rotations.substr(0, 8), "1.303797");  // 8192 / (2 pi) = 1303.797...
  EXPECT_FALSE(rows[100].kept);
  EXPECT_FALSE(rows[100].horizon.has_value());
  EXPECT_EQ(rows[100].wavelength, "inf");
  // Pair 96 (k=96, g = 1e4^(-190/256) ~ 1.07e-3): horizon ceil(pi/2 / g) ~ 1466 < 8192.
  EXPECT_TRUE(rows[95].kept);
  EXPECT_LT(*rows[95].horizon, 8192);
  // p-RoPE 0.75 removes pairs 97-128, among them every pair that turns less than once over 8192.
  EXPECT_EQ(count_semantic(rows), 0);
  EXPECT_EQ(rows[100].semantic, Decision::no);
  // Full RoPE: pairs 101-128 turn less than once (spectrum/rotations.h), although only pairs whose
  // quarter-turn horizon exceeds 8192 (g < pi/(2*8192)) keep their sign: the horizon does not define it.
  const auto rope = spectrum_rows(Spectrum(256, "10000"), 8192);
  EXPECT_EQ(count_semantic(rope), 28);
  EXPECT_EQ(count_semantic(rope, Decision::undecided), 0);
  EXPECT_EQ(rope[99].semantic, Decision::no);
  EXPECT_EQ(rope[100].semantic, Decision::yes);
  EXPECT_EQ(rope[118].semantic, Decision::yes);
  EXPECT_LE(*rope[118].horizon, 8192) << "pair 119 turns more than a quarter turn over 8192 tokens, yet is semantic";
}

TEST(Table, JsonHasOneRowPerPair) {
  ScopedPrecision p(128);
  const Spectrum s(8, "10000");
  const auto j = spectrum_json(s, "custom", 100, spectrum_rows(s, 100));
  EXPECT_EQ(j["rows"].size(), 4u);
  EXPECT_EQ(j["rows"][0]["quarter_turn_horizon"], 2);
  EXPECT_EQ(j["context"], 100);
  // g_k = 1e4^(-(k-1)/4) turns 100 g_k / (2 pi) times: 15.9, 1.59, 0.159, 0.0159.
  EXPECT_EQ(j["semantic_pairs"], 2);
  EXPECT_EQ(j["semantic_pairs_undecided"], 0);
  EXPECT_EQ(j["semantic_pairs_definition"], kSemanticPairDefinition);
  EXPECT_EQ(j["rows"][1]["semantic"], "no");
  EXPECT_EQ(j["rows"][2]["semantic"], "yes");
  EXPECT_EQ(j["rows"][3]["semantic"], "yes");
  const std::string text = spectrum_text(s, "custom", 100, spectrum_rows(s, 100));
  EXPECT_NE(text.find("4 of 4 pairs rotate; 2 are semantic (turn less than once over the context: wavelength > 100)\n"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace ropecheck

#include "spectrum/table.h"

#include <gtest/gtest.h>

#include "numeric/precision.h"

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
  EXPECT_EQ(semantic_pairs(rows, 8192), 0);
  // Full RoPE keeps pairs whose horizon exceeds 8192: g < pi/(2*8192).
  EXPECT_GT(semantic_pairs(spectrum_rows(Spectrum(256, "10000"), 8192), 8192), 0);
}

TEST(Table, JsonHasOneRowPerPair) {
  ScopedPrecision p(128);
  const Spectrum s(8, "10000");
  const auto j = spectrum_json(s, "custom", 100, spectrum_rows(s, 100));
  EXPECT_EQ(j["rows"].size(), 4u);
  EXPECT_EQ(j["rows"][0]["quarter_turn_horizon"], 2);
  EXPECT_EQ(j["context"], 100);
}

}  // namespace
}  // namespace ropecheck

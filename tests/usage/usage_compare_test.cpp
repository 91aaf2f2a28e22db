#include "usage/usage_compare.h"

#include <gtest/gtest.h>

#include <cmath>

#include "../support/files.h"

namespace ropecheck::usage {
namespace {

std::vector<LayerNorms> pattern(double scale, bool swap_layers = false) {
  // Two layers of four pairs: layer 0 fast-heavy, layer 1 slow-heavy.
  std::vector<LayerNorms> l = {{{4 * scale, 3 * scale, 1 * scale, 1 * scale}, {2, 2, 1, 1}, {}},
                               {{1 * scale, 1 * scale, 3 * scale, 5 * scale}, {1, 1, 2, 3}, {}}};
  if (swap_layers) std::swap(l[0], l[1]);
  return l;
}

TEST(UsageCompare, SharesNotScaleAndAPatternAgainstItsMirror) {
  const std::vector<LayerNorms> a = pattern(1);
  // Shares are per layer: u = (q + k) / sum; layer 0 of a: (6, 5, 2, 2) / 15.
  const auto u = usage_shares(a);
  EXPECT_DOUBLE_EQ(u[0][0], 6.0 / 15);
  EXPECT_DOUBLE_EQ(u[1][3], 8.0 / 17);  // layer 1: (2, 2, 5, 8) / 17
  const UsageSimilarity same = compare_usage(a, a);
  EXPECT_NEAR(same.correlation, 1.0, 1e-15);
  EXPECT_EQ(same.points, 8);
  EXPECT_EQ(same.max_difference, 0.0);
  // The layers swapped: the fast-heavy pattern meets the slow-heavy one.
  const UsageSimilarity mirror = compare_usage(a, pattern(1, true));
  EXPECT_LT(mirror.correlation, 0);
  EXPECT_LT(mirror.per_layer[0], 0);
  EXPECT_GT(mirror.max_difference, 0.2);
}

TEST(UsageCompare, KindsAgreeOnlyWhenBothAreClassified) {
  std::vector<LayerNorms> a = pattern(1), b = pattern(2);
  EXPECT_FALSE(compare_usage(a, b).kinds_agree.has_value());  // no kinds: nothing to compare
  a[0].kinds = {HeadKind::previous_token, HeadKind::other};
  a[1].kinds = {HeadKind::induction, HeadKind::first_token};
  b[0].kinds = {HeadKind::previous_token, HeadKind::induction};
  EXPECT_FALSE(compare_usage(a, b).kinds_agree.has_value());  // b's layer 1 unclassified
  b[1].kinds = {HeadKind::induction, HeadKind::first_token};
  const UsageSimilarity s = compare_usage(a, b);
  ASSERT_TRUE(s.kinds_agree.has_value());
  EXPECT_EQ(*s.kinds_agree, 0.75);  // 3 of 4 heads
  EXPECT_NE(s.statement.find("3 of 4 heads of the same kind"), std::string::npos) << s.statement;
}

TEST(UsageCompare, RefusesCapturesOfAnotherShape) {
  std::vector<LayerNorms> one = pattern(1);
  one.pop_back();
  test::expect_input_error([&] { compare_usage(pattern(1), one); }, "b", {"2 layers"});
  std::vector<LayerNorms> fewer = pattern(1);
  fewer[1].q_norm.pop_back();
  fewer[1].k_norm.pop_back();
  test::expect_input_error([&] { compare_usage(pattern(1), fewer); }, "b", {"layer 1 with 4 pairs"});
}

}  // namespace
}  // namespace ropecheck::usage

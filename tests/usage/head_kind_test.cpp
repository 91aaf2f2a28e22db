#include "usage/head_kind.h"

#include <gtest/gtest.h>

#include <string>

#include "io/input_error.h"

namespace ropecheck::usage {
namespace {

// n rows, each with mass w and baseline b (no row-to-row variation: the z-test is +inf when
// w > lift b).
ScoreSums rows(int n, double w, double b) {
  ScoreSums s;
  for (int i = 0; i < n; ++i) s.add_row(w, b);
  return s;
}

HeadScores scores(double first, double previous, double induction) {
  HeadScores h;
  h.offsets.assign(17, rows(100, 0.01, 0.01));
  h.offsets[1] = rows(100, previous, 0.01);
  h.first = rows(100, first, 0.01);
  h.induction = rows(100, induction, 0.01);
  return h;
}

TEST(HeadKind, OneListOneSpelling) {
  for (HeadKind k : kHeadKinds) EXPECT_EQ(head_kind_from_name(head_kind_name(k), "kind"), k);
  EXPECT_THROW(head_kind_from_name("slash", "kind"), InputError);
  EXPECT_TRUE(is_positional(HeadKind::offset));
  EXPECT_FALSE(is_positional(HeadKind::first_token));
  EXPECT_TRUE(is_content(HeadKind::induction));
}

// The Bonferroni critical value: Phi^-1(1 - 0.01) = 2.3263..., and for 100 tests Phi^-1(1 - 1e-4).
TEST(HeadKind, CriticalZIsBonferroni) {
  const KindRule rule;
  EXPECT_NEAR(kind_critical_z(rule, 1), 2.3263478740408408, 1e-12);
  EXPECT_NEAR(kind_critical_z(rule, 100), 3.7190164854556804, 1e-12);
}

// The kind: the largest significant offset or induction score; the first token (the sink) only
// alone; a score below min_mass or below lift x uniform never counts.
TEST(HeadKind, SinkOnlyAloneAndEffectSizesCount) {
  const KindRule rule;
  const double z = kind_critical_z(rule, 1000);
  EXPECT_EQ(classify_head(scores(0.8, 0.15, 0.0), true, rule, z).kind, HeadKind::previous_token);
  EXPECT_EQ(classify_head(scores(0.8, 0.15, 0.5), true, rule, z).kind, HeadKind::induction);
  EXPECT_EQ(classify_head(scores(0.8, 0.05, 0.0), true, rule, z).kind, HeadKind::first_token);  // 0.05 < min_mass
  EXPECT_EQ(classify_head(scores(0.01, 0.01, 0.0), true, rule, z).kind, HeadKind::other);
  // Without token ids the induction score is not tested (and not in the family).
  const HeadClass no_ids = classify_head(scores(0.8, 0.15, 0.9), false, rule, z);
  EXPECT_FALSE(no_ids.induction.has_value());
  EXPECT_EQ(no_ids.kind, HeadKind::previous_token);
  // Mass 0.12 on a key whose uniform share is 0.07 is not twice chance.
  HeadScores near = scores(0.0, 0.0, 0.0);
  near.offsets[3] = rows(100, 0.12, 0.07);
  EXPECT_EQ(classify_head(near, true, rule, z).kind, HeadKind::other);
  near.offsets[3] = rows(100, 0.15, 0.07);
  const HeadClass three = classify_head(near, true, rule, z);
  EXPECT_EQ(three.kind, HeadKind::offset);
  EXPECT_EQ(three.offset, 3);
  EXPECT_EQ(scores_per_head(rule, true), 19);
}

// Row-to-row variation: the z-test uses the rows' spread, so a mean just above twice chance with
// noisy rows is not significant, and the interval covers the mean.
TEST(HeadKind, TheTestUsesTheRowsSpread) {
  ScoreSums s;
  for (int i = 0; i < 50; ++i) s.add_row(i % 2 ? 0.45 : 0.0, 0.1);  // mean 0.225 vs 2 x 0.1
  const ScoreTest t = test_score(s, KindRule{}, kind_critical_z(KindRule{}, 100));
  EXPECT_NEAR(t.mass, 0.225, 1e-15);
  EXPECT_LT(t.lo, t.mass);
  EXPECT_GT(t.hi, t.mass);
  EXPECT_LT(t.z, 1.0);
  EXPECT_FALSE(t.significant);
}

}  // namespace
}  // namespace ropecheck::usage

#include "statistics/rank_sum.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace ropecheck {
namespace {

// Small cases counted by hand: every n-subset of the pooled items is equally likely.
TEST(RankSum, ExactLawOnSmallCases) {
  // {3, 4} against {1, 2}: U = 4 (every pair), the largest of C(4, 2) = 6 subsets: p = 1/6.
  const RankSumTest t = rank_sum_test(std::vector<double>{3, 4}, std::vector<double>{1, 2});
  EXPECT_EQ(t.u, 4);
  EXPECT_EQ(t.auc, 1);
  EXPECT_NEAR(t.p_value, 1.0 / 6, 1e-15);
  EXPECT_EQ(t.method, "exact permutation");
  // {2} against {1, 3}: U = 1 of 2; P(U >= 1) = 2/3.
  const RankSumTest m = rank_sum_test(std::vector<double>{2}, std::vector<double>{1, 3});
  EXPECT_EQ(m.auc, 0.5);
  EXPECT_NEAR(m.p_value, 2.0 / 3, 1e-15);
  // Ties count 1/2: {1} against {1}: U = 1/2, P(U >= 1/2) = 1.
  const RankSumTest tie = rank_sum_test(std::vector<double>{1}, std::vector<double>{1});
  EXPECT_EQ(tie.auc, 0.5);
  EXPECT_NEAR(tie.p_value, 1.0, 1e-15);
}

// Stratified: labels permuted within each stratum independently. Two strata {2} vs {1}: each U is
// 0 or 1 with probability 1/2, so P(U1 + U2 >= 2) = 1/4; pooling them instead ({2, 2} vs {1, 1})
// would give 1/6.
TEST(RankSum, StratifiedConvolvesTheStrata) {
  const std::vector<double> g{2}, o{1};
  const Stratum two[] = {{g, o}, {g, o}};
  const RankSumTest t = stratified_rank_sum_test(two);
  EXPECT_EQ(t.u, 2);
  EXPECT_EQ(t.auc, 1);
  EXPECT_NEAR(t.p_value, 0.25, 1e-15);
  // One stratum is rank_sum_test bit for bit.
  const std::vector<double> a{0.3, 0.9, 0.5}, b{0.1, 0.4, 0.2, 0.8};
  const Stratum one[] = {{a, b}};
  const RankSumTest s = stratified_rank_sum_test(one), r = rank_sum_test(a, b);
  EXPECT_EQ(s.u, r.u);
  EXPECT_EQ(s.p_value, r.p_value);
  // A layer effect does not leak: stratum 1's items all exceed stratum 2's, and within each the
  // group is in the middle: AUC 1/2 within, p well above 0.05; pooled the group would look high.
  const std::vector<double> g1{10.5}, o1{10, 11}, g2{0.5}, o2{0, 1};
  const Stratum layered[] = {{g1, o1}, {g2, o2}};
  const RankSumTest w = stratified_rank_sum_test(layered);
  EXPECT_EQ(w.auc, 0.5);
  EXPECT_GT(w.p_value, 0.5);
}

// Large groups fall back to the normal approximation: U's mean n m / 2, its tie-corrected variance
// n m / 12 ((N + 1) - sum(t^3 - t) / (N (N - 1))), a continuity correction of 1/2, computed here
// by hand for 300 items against 300 with ties of two (each value twice).
TEST(RankSum, NormalApproximationIsTheTieCorrectedFormula) {
  std::vector<double> g, o;
  for (int i = 0; i < 150; ++i) {
    g.push_back(i + 10);  // the group shifted up by 10 of 150 ranks' worth
    g.push_back(i + 10);
    o.push_back(i);
    o.push_back(i);
  }
  const RankSumTest t = rank_sum_test(g, o);
  ASSERT_EQ(t.method, "normal approximation (tie-corrected)");
  // Values 0..159 appear with counts 2 (o only: 0..9), 4 (10..149: both), 2 (g only: 150..159).
  double u = 0;
  for (double x : g)
    for (double y : o) u += x > y ? 1 : x == y ? 0.5 : 0;
  EXPECT_EQ(t.u, u);
  const double n = 300, m = 300, N = 600, ties = 20 * (8 - 2) + 140 * (64 - 4);
  const double var = n * m / 12 * ((N + 1) - ties / (N * (N - 1)));
  const double z = (u - n * m / 2 - 0.5) / std::sqrt(var);
  EXPECT_NEAR(t.p_value, 0.5 * std::erfc(z / std::sqrt(2.0)), 1e-15);
  // The same shift stratified in two halves: the strata's means and variances add.
  std::vector<double> g1(g.begin(), g.begin() + 150), g2(g.begin() + 150, g.end()), o1(o.begin(), o.begin() + 150), o2(o.begin() + 150, o.end());
  const Stratum halves[] = {{g1, o1}, {g2, o2}};
  const RankSumTest h = stratified_rank_sum_test(halves);
  EXPECT_GT(h.auc, 0.5);
  EXPECT_LT(h.p_value, 0.05);
}

TEST(RankSum, RefusesEmptyGroups) {
  EXPECT_THROW(rank_sum_test(std::vector<double>{}, std::vector<double>{1}), std::invalid_argument);
  EXPECT_THROW(stratified_rank_sum_test(std::span<const Stratum>()), std::invalid_argument);
}

}  // namespace
}  // namespace ropecheck

// File: rank_sum.h
// The Mann-Whitney / Wilcoxon rank-sum comparison of two groups, for "do these items rank highest?"
// questions on measured scores (usage.h: do positional heads have the largest high-frequency share?).
//   auc      = P(X > Y) + P(X = Y) / 2 over all (x in group, y in others): U / (n m).
//   p_value  one-sided, P(U >= U_observed) when the group's labels are a uniformly random subset
//            of the pooled items (ties get midranks). Exact (the permutation distribution of the
//            midrank sum, counted by dynamic programming) when n_total * n_group * (rank sum range)
//            <= 2e8; otherwise the normal approximation with tie correction and continuity
//            correction (method says which).
#pragma once

#include <span>
#include <string>

namespace ropecheck {

struct RankSumTest {
  double auc = 0;
  double u = 0;
  double p_value = 1;
  std::string method;  // "exact permutation" or "normal approximation (tie-corrected)"
};

// Preconditions: both groups non-empty, no NaN (throws std::invalid_argument otherwise).
RankSumTest rank_sum_test(std::span<const double> group, std::span<const double> others);

// The same question within strata (e.g. heads compared only with heads of their own layer): U is
// the sum of the strata's U, auc = U / sum(n_s m_s), and under the null the labels are permuted
// within each stratum independently (the van Elteren-style stratified test with equal weights).
// Exact (the convolution of each stratum's exact law) when every stratum is admitted by the rule
// above; otherwise the normal approximation with the summed means and tie-corrected variances.
// Preconditions: at least one stratum, each as rank_sum_test's.
struct Stratum {
  std::span<const double> group, others;
};
RankSumTest stratified_rank_sum_test(std::span<const Stratum> strata);

}  // namespace ropecheck

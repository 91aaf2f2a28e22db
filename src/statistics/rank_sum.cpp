#include "statistics/rank_sum.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace ropecheck {

namespace {

// One stratum's ranks: doubled midranks (integers) of the pooled, sorted items, which are the
// group's, the tie sizes, and U doubled (the group's doubled rank sum minus n (n + 1)).
struct Ranked {
  size_t n = 0, m = 0;
  std::vector<long long> rank2;
  std::vector<bool> in_group;
  std::vector<long long> tie_sizes;
  long long u2 = 0;
};

Ranked rank(std::span<const double> group, std::span<const double> others) {
  Ranked r;
  r.n = group.size();
  r.m = others.size();
  const size_t total = r.n + r.m;
  if (r.n == 0 || r.m == 0) throw std::invalid_argument("rank_sum_test: empty group");
  std::vector<std::pair<double, bool>> items;
  for (double x : group) items.push_back({x, true});
  for (double y : others) items.push_back({y, false});
  for (const auto& it : items)
    if (std::isnan(it.first)) throw std::invalid_argument("rank_sum_test: NaN");
  std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  // Doubled midranks (integers): ties at sorted places i..j-1 share rank (i + 1 + j), doubled.
  r.rank2.resize(total);
  r.in_group.resize(total);
  for (size_t i = 0; i < total;) {
    size_t j = i;
    while (j < total && items[j].first == items[i].first) ++j;
    for (size_t k = i; k < j; ++k) r.rank2[k] = static_cast<long long>(i + 1 + j);
    r.tie_sizes.push_back(static_cast<long long>(j - i));
    i = j;
  }
  long long observed2 = 0;
  for (size_t k = 0; k < total; ++k) {
    r.in_group[k] = items[k].second;
    if (items[k].second) observed2 += r.rank2[k];
  }
  r.u2 = observed2 - static_cast<long long>(r.n * (r.n + 1));
  return r;
}

// The largest doubled rank sum the group can have, and whether the exact count is admitted.
long long max_sum2(const Ranked& r) {
  std::vector<long long> sorted = r.rank2;  // already ascending
  return std::accumulate(sorted.end() - static_cast<long>(r.n), sorted.end(), 0LL);
}

bool exact_admitted(const Ranked& r) {
  return static_cast<double>(r.n + r.m) * static_cast<double>(r.n) * static_cast<double>(max_sum2(r)) <= 2e8;
}

// The number of n-subsets with U2 = u, u = 0 .. 2 n m: under random labels (the group a uniformly
// random n-subset) each is equally likely.
std::vector<double> null_law(const Ranked& r) {
  const size_t n = r.n, total = r.n + r.m;
  const long long top = max_sum2(r);
  // ways[j][s]: subsets of j items among those seen with doubled rank sum s (as doubles: counts up
  // to C(total, n) stay exact below 2^53 for the sizes admitted here, and are ratios anyway).
  std::vector<std::vector<double>> ways(n + 1, std::vector<double>(static_cast<size_t>(top) + 1, 0));
  ways[0][0] = 1;
  for (size_t k = 0; k < total; ++k)
    for (size_t j = std::min(n, k + 1); j >= 1; --j)
      for (long long s = top; s >= r.rank2[k]; --s) ways[j][static_cast<size_t>(s)] += ways[j - 1][static_cast<size_t>(s - r.rank2[k])];
  const long long base = static_cast<long long>(n * (n + 1));
  std::vector<double> law(static_cast<size_t>(2 * n * r.m) + 1, 0.0);
  for (long long s = base; s <= top; ++s) law[static_cast<size_t>(s - base)] = ways[n][static_cast<size_t>(s)];
  return law;
}

// The normal law's mean and variance of U (tie-corrected).
std::pair<double, double> normal_moments(const Ranked& r) {
  const double nn = static_cast<double>(r.n), mm = static_cast<double>(r.m), N = nn + mm;
  double ties = 0;
  for (long long t : r.tie_sizes) ties += static_cast<double>(t) * static_cast<double>(t) * static_cast<double>(t) - static_cast<double>(t);
  return {nn * mm / 2, nn * mm / 12 * ((N + 1) - ties / (N * (N - 1)))};
}

}  // namespace

RankSumTest rank_sum_test(std::span<const double> group, std::span<const double> others) {
  const Stratum one{group, others};
  return stratified_rank_sum_test(std::span<const Stratum>(&one, 1));
}

RankSumTest stratified_rank_sum_test(std::span<const Stratum> strata) {
  if (strata.empty()) throw std::invalid_argument("stratified_rank_sum_test: no stratum");
  std::vector<Ranked> ranked;
  double pairs = 0;
  long long u2 = 0;
  bool exact = true;
  for (const Stratum& s : strata) {
    ranked.push_back(rank(s.group, s.others));
    pairs += static_cast<double>(ranked.back().n) * static_cast<double>(ranked.back().m);
    u2 += ranked.back().u2;
    exact = exact && exact_admitted(ranked.back());
  }
  RankSumTest r;
  r.u = static_cast<double>(u2) / 2;
  r.auc = r.u / pairs;
  if (exact) {
    // The strata are independent under the null: the counts of the summed U2 are the convolution
    // (products of counts: exact below 2^53, relative error ~1e-16 per term beyond).
    std::vector<double> law{1.0};
    for (const Ranked& k : ranked) {
      const std::vector<double> one = null_law(k);
      std::vector<double> next(law.size() + one.size() - 1, 0.0);
      for (size_t a = 0; a < law.size(); ++a)
        if (law[a] != 0)
          for (size_t b = 0; b < one.size(); ++b) next[a + b] += law[a] * one[b];
      law = std::move(next);
    }
    double tail = 0, all = 0;
    for (size_t s = 0; s < law.size(); ++s) {
      all += law[s];
      if (s >= static_cast<size_t>(u2)) tail += law[s];
    }
    r.p_value = tail / all;
    r.method = "exact permutation";
    return r;
  }
  double mean = 0, var = 0;
  for (const Ranked& k : ranked) {
    const auto [mu, v] = normal_moments(k);
    mean += mu;
    var += v;
  }
  const double z = (r.u - mean - 0.5) / std::sqrt(var);
  r.p_value = 0.5 * std::erfc(z / std::sqrt(2.0));
  r.method = "normal approximation (tie-corrected)";
  return r;
}

}  // namespace ropecheck

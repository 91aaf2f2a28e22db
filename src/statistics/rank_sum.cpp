#include "statistics/rank_sum.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace ropecheck {

RankSumTest rank_sum_test(std::span<const double> group, std::span<const double> others) {
  const size_t n = group.size(), m = others.size(), total = n + m;
  if (n == 0 || m == 0) throw std::invalid_argument("rank_sum_test: empty group");
  std::vector<std::pair<double, bool>> items;
  for (double x : group) items.push_back({x, true});
  for (double y : others) items.push_back({y, false});
  for (const auto& it : items)
    if (std::isnan(it.first)) throw std::invalid_argument("rank_sum_test: NaN");
  std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  // Doubled midranks (integers): ties at sorted places i..j-1 share rank (i + 1 + j), doubled.
  std::vector<long long> rank2(total);
  std::vector<long long> tie_sizes;
  for (size_t i = 0; i < total;) {
    size_t j = i;
    while (j < total && items[j].first == items[i].first) ++j;
    for (size_t k = i; k < j; ++k) rank2[k] = static_cast<long long>(i + 1 + j);
    tie_sizes.push_back(static_cast<long long>(j - i));
    i = j;
  }
  long long observed2 = 0;
  for (size_t k = 0; k < total; ++k)
    if (items[k].second) observed2 += rank2[k];
  RankSumTest r;
  r.u = static_cast<double>(observed2) / 2 - static_cast<double>(n * (n + 1)) / 2;
  r.auc = r.u / (static_cast<double>(n) * static_cast<double>(m));

  const long long max_sum2 = std::accumulate(rank2.end() - static_cast<long>(n), rank2.end(), 0LL);
  if (static_cast<double>(total) * static_cast<double>(n) * static_cast<double>(max_sum2) <= 2e8) {
    // ways[j][s]: subsets of j items among those seen with doubled rank sum s (as doubles: counts
    // up to C(total, n) stay exact below 2^53 for the sizes admitted here, and are ratios anyway).
    std::vector<std::vector<double>> ways(n + 1, std::vector<double>(static_cast<size_t>(max_sum2) + 1, 0));
    ways[0][0] = 1;
    for (size_t k = 0; k < total; ++k)
      for (size_t j = std::min(n, k + 1); j >= 1; --j)
        for (long long s = max_sum2; s >= rank2[k]; --s) ways[j][static_cast<size_t>(s)] += ways[j - 1][static_cast<size_t>(s - rank2[k])];
    double all = 0, tail = 0;
    for (long long s = 0; s <= max_sum2; ++s) {
      all += ways[n][static_cast<size_t>(s)];
      if (s >= observed2) tail += ways[n][static_cast<size_t>(s)];
    }
    r.p_value = tail / all;
    r.method = "exact permutation";
    return r;
  }
  const double nn = static_cast<double>(n), mm = static_cast<double>(m), N = static_cast<double>(total);
  double ties = 0;
  for (long long t : tie_sizes) ties += static_cast<double>(t) * static_cast<double>(t) * static_cast<double>(t) - static_cast<double>(t);
  const double var = nn * mm / 12 * ((N + 1) - ties / (N * (N - 1)));
  const double z = (r.u - nn * mm / 2 - 0.5) / std::sqrt(var);
  r.p_value = 0.5 * std::erfc(z / std::sqrt(2.0));
  r.method = "normal approximation (tie-corrected)";
  return r;
}

}  // namespace ropecheck

#include "montecarlo/random_positions.h"

#include <gtest/gtest.h>

#include <boost/math/distributions/chi_squared.hpp>
#include <cstdint>
#include <map>
#include <vector>

#include "io/input_error.h"
#include "montecarlo/gap_law.h"
#include "random/counter_rng.h"

namespace ropecheck::montecarlo {
namespace {

// Pearson's chi-square statistic against expected probabilities; every expected count must be at
// least 5 for the chi-square approximation to hold (asserted by the callers' designs).
struct ChiSquare {
  double statistic = 0;
  double p_value = 1;
  int degrees = 0;
};

ChiSquare chi_square(const std::vector<std::uint64_t>& observed, const std::vector<double>& probability,
                     std::uint64_t draws) {
  ChiSquare out;
  int bins = 0;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    if (probability[i] == 0) {
      EXPECT_EQ(observed[i], 0u) << "an impossible outcome occurred: bin " << i;
      continue;
    }
    const double expected = probability[i] * static_cast<double>(draws);
    EXPECT_GE(expected, 5.0) << "bin " << i << ": too few expected counts for the chi-square approximation";
    const double diff = static_cast<double>(observed[i]) - expected;
    out.statistic += diff * diff / expected;
    ++bins;
  }
  out.degrees = bins - 1;
  out.p_value = boost::math::cdf(boost::math::complement(boost::math::chi_squared(out.degrees), out.statistic));
  return out;
}

// Every statistical test below uses a fixed seed (so it is deterministic) and rejects at p < 1e-6:
// were the sampler exactly right, the probability that a given seed makes it fail is 1e-6 per
// test, and the five chi-square tests of this file together fail falsely with probability <= 5e-6.
constexpr double kRejectBelow = 1e-6;

void expect_valid(const std::vector<std::int64_t>& p, std::int64_t n, std::int64_t L) {
  ASSERT_EQ(static_cast<std::int64_t>(p.size()), n);
  for (std::size_t i = 0; i < p.size(); ++i) {
    ASSERT_GE(p[i], 0) << "n=" << n << " L=" << L << " i=" << i;
    ASSERT_LT(p[i], L) << "n=" << n << " L=" << L << " i=" << i;
    if (i > 0) {
      ASSERT_LT(p[i - 1], p[i]) << "n=" << n << " L=" << L << " i=" << i;
    }
  }
}

TEST(RandomPositions, SortedDistinctInRange) {
  const std::pair<std::int64_t, std::int64_t> sizes[] = {{1, 1},   {1, 2},     {1, 1000}, {3, 7},       {999, 1000},
                                                         {1000, 2000}, {1000, 8000}, {7, 1 << 20}};
  for (const auto& [n, L] : sizes) {
    for (std::uint64_t stream = 0; stream < 5; ++stream) expect_valid(random_positions(n, L, 17, stream, 0), n, L);
  }
}

TEST(RandomPositions, LEqualsNIsTheIdentity) {
  for (const std::int64_t n : {1, 2, 5, 1000}) {
    const std::vector<std::int64_t> p = random_positions(n, n, 3, 9, 12345);
    ASSERT_EQ(static_cast<std::int64_t>(p.size()), n);
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(p[static_cast<std::size_t>(i)], i);
  }
}

TEST(RandomPositions, SameCountersSameOutput) {
  EXPECT_EQ(random_positions(1000, 8000, 42, 7, 0), random_positions(1000, 8000, 42, 7, 0));
  // Different seed, stream or first index: another subset (a collision of two uniform 1000-subsets
  // of 8000 has probability 1/C(8000, 1000), nil).
  EXPECT_NE(random_positions(1000, 8000, 42, 7, 0), random_positions(1000, 8000, 43, 7, 0));
  EXPECT_NE(random_positions(1000, 8000, 42, 7, 0), random_positions(1000, 8000, 42, 8, 0));
  EXPECT_NE(random_positions(1000, 8000, 42, 7, 0), random_positions(1000, 8000, 42, 7, 1));
}

TEST(RandomPositions, ConsumesTheDocumentedCounters) {
  // n = 1, L = 2: one draw U uniform on [0, 2) from the word at first_index (s = 2 never rejects:
  // 2^64 mod 2 = 0), keeping 0 iff U < 1, and U is the word's top bit.
  const CounterRng rng(5, 6);
  for (std::uint64_t first = 0; first < 64; ++first) {
    const std::int64_t expected = static_cast<std::int64_t>(rng.bits(first) >> 63);
    EXPECT_EQ(random_positions(1, 2, 5, 6, first), std::vector<std::int64_t>{expected}) << "first_index " << first;
  }
}

// Every n-subset equally likely, on the tiny cases where all subsets can be counted.
void expect_uniform_over_subsets(std::int64_t n, std::int64_t L, std::uint64_t seed, std::uint64_t draws) {
  std::map<std::vector<std::int64_t>, std::uint64_t> count;
  for (std::uint64_t i = 0; i < draws; ++i) ++count[random_positions(n, L, seed, i, 0)];
  double subsets = 1;
  for (std::int64_t i = 0; i < n; ++i) subsets = subsets * static_cast<double>(L - i) / static_cast<double>(i + 1);
  ASSERT_EQ(static_cast<double>(count.size()), subsets) << "n=" << n << " L=" << L << ": some subset never drawn";
  std::vector<std::uint64_t> observed;
  for (const auto& [subset, c] : count) {
    expect_valid(subset, n, L);
    observed.push_back(c);
  }
  const ChiSquare chi = chi_square(observed, std::vector<double>(observed.size(), 1 / subsets), draws);
  EXPECT_GE(chi.p_value, kRejectBelow) << "n=" << n << " L=" << L << " chi2=" << chi.statistic << " df=" << chi.degrees;
}

TEST(RandomPositions, EverySubsetEquallyLikely) {
  expect_uniform_over_subsets(2, 5, 2024, 100000);  // 10 subsets
  expect_uniform_over_subsets(3, 7, 2025, 100000);  // 35 subsets
}

// The gap p_{j+r} - p_j follows gap_probabilities. One gap per draw (j = draw mod (n - r)), so the
// counted gaps are independent and the chi-square test applies; exchangeability makes the law the
// same for every j.
TEST(RandomPositions, GapsFollowTheGapLaw) {
  const std::int64_t n = 4, L = 10;
  const std::uint64_t draws = 100000;
  for (std::int64_t r = 1; r <= 3; ++r) {
    std::vector<std::uint64_t> observed(static_cast<std::size_t>(L) + 1, 0);
    for (std::uint64_t i = 0; i < draws; ++i) {
      const std::vector<std::int64_t> p = random_positions(n, L, 77 + static_cast<std::uint64_t>(r), i, 0);
      const std::size_t j = static_cast<std::size_t>(i % static_cast<std::uint64_t>(n - r));
      ++observed[static_cast<std::size_t>(p[j + static_cast<std::size_t>(r)] - p[j])];
    }
    const ChiSquare chi = chi_square(observed, gap_probabilities(n, L, r), draws);
    EXPECT_GE(chi.p_value, kRejectBelow) << "r=" << r << " chi2=" << chi.statistic << " df=" << chi.degrees;
  }
}

TEST(RandomPositions, BadSizesAreInputErrors) {
  const auto input_of = [](std::int64_t n, std::int64_t L) -> std::string {
    try {
      random_positions(n, L, 1, 1, 0);
    } catch (const InputError& e) {
      return e.input();
    }
    return "no error";
  };
  EXPECT_EQ(input_of(0, 5), "n");
  EXPECT_EQ(input_of(-1, 5), "n");
  EXPECT_EQ(input_of(6, 5), "n");
  EXPECT_EQ(input_of(1, 0), "L");
  EXPECT_EQ(input_of(1, (std::int64_t{1} << 40) + 1), "L");
}

}  // namespace
}  // namespace ropecheck::montecarlo

// The kernel fuzz's candidates: near-returns are exactly the best approximations (checked against a
// brute-force search in exact integer arithmetic), candidates are pure functions of (seed, index),
// and every kind of position and input the header promises is drawn.
#include "tests/support/small_float_bits.h"
#include "accuracy/kernel_candidates.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "io/input_error.h"
#include "io/printf_string.h"
#include "numeric/small_floats.h"
#include "spectrum/request.h"

namespace ropecheck::accuracy {
namespace {

using u128 = unsigned __int128;

std::string hex128(u128 v) { return printf_string("0x%016llx%016llx", static_cast<unsigned long long>(v >> 64), static_cast<unsigned long long>(v)); }

// The distance of frac(p m G / 2^128) to the nearest integer, times 2^128 (exact: u128 wraps mod 2^128).
u128 distance(std::uint64_t p, u128 mg) {
  const u128 f = static_cast<u128>(p) * mg;
  return std::min(f, u128{0} - f);
}

TEST(KernelCandidates, NearReturnsOfGOneAreThePiConvergents) {
  // Pair 0 of every rope spectrum has g = theta^0 = 1: p comes near a multiple of 2pi at the
  // numerators of 2pi's convergents (44 = 7 * 2pi + ..., 710 = 113 * 2pi + ...) and near a multiple
  // of pi at pi's (103993, 104348).
  const kernel::RopePlan plan(config_spectrum("gemma-7b"), kernel::Layout::interleaved);
  const std::vector<std::int64_t> r = near_returns(plan_turns(plan, 0));
  for (std::int64_t q : {44, 710, 103993, 104348}) EXPECT_TRUE(std::binary_search(r.begin(), r.end(), q)) << q;
  EXPECT_TRUE(std::is_sorted(r.begin(), r.end()));
  EXPECT_EQ(std::adjacent_find(r.begin(), r.end()), r.end());
  EXPECT_GT(r.back(), std::int64_t{1} << 40);  // convergents run up to the int64 range
  EXPECT_TRUE(near_returns(0).empty());
}

TEST(KernelCandidates, NearReturnsAreExactlyTheRecordApproximations) {
  // A convergent denominator q is a record: |q x - round(q x)| is smaller than for every p < q, and
  // every record p > 1 is a convergent denominator (Lagrange's best approximations of the second
  // kind). Brute force over p < 2^17 for m = 1, 2, 4 and three pairs, in exact integers.
  const kernel::RopePlan plan(config_spectrum("llama-3.1-8b"), kernel::Layout::half);
  constexpr std::uint64_t kLimit = std::uint64_t{1} << 17;
  for (int k : {0, 5, 40}) {
    const u128 g = plan_turns(plan, k);
    std::set<std::int64_t> records;
    for (unsigned m : {1u, 2u, 4u}) {
      u128 best = ~u128{0};
      for (std::uint64_t p = 1; p < kLimit; ++p) {
        const u128 d = distance(p, g * m);
        if (d < best) {
          best = d;
          if (p > 1) records.insert(static_cast<std::int64_t>(p));
        }
      }
    }
    std::set<std::int64_t> got;
    for (std::int64_t q : near_returns(g))
      if (q > 1 && static_cast<std::uint64_t>(q) < kLimit) got.insert(q);
    EXPECT_EQ(got, records) << "pair " << k << " G = " << hex128(g);
  }
}

KernelCandidates gemma_candidates(std::uint64_t seed, kernel::RopePlan& plan) {
  std::vector<std::vector<std::int64_t>> returns;
  for (int k = 0; k < plan.block_pairs(); ++k) returns.push_back(near_returns(plan_turns(plan, k)));
  return KernelCandidates(seed, plan.block_pairs(), returns, 2);
}

const CosSin kCosSin = [](int k, double& c, double& s) {
  c = 0.6 + k * 1e-3;
  s = 0.8 - k * 1e-3;
};

bool same(const KernelCandidate& a, const KernelCandidate& b) {
  return a.index == b.index && a.position == b.position && a.subject == b.subject && a.pair == b.pair && a.format == b.format &&
         a.layout == b.layout && a.kind == b.kind && a.input[0] == b.input[0] && a.input[1] == b.input[1];
}

TEST(KernelCandidates, PureFunctionOfSeedAndIndex) {
  kernel::RopePlan plan(config_spectrum("gemma-7b"), kernel::Layout::interleaved);
  const KernelCandidates gen = gemma_candidates(3, plan);
  const KernelCandidates again = gemma_candidates(3, plan);
  const KernelCandidates other = gemma_candidates(4, plan);
  std::vector<KernelCandidate> forward;
  for (long long i = 0; i < 600; ++i) forward.push_back(gen.candidate(i, kCosSin));
  int differ = 0;
  for (long long i = 599; i >= 0; --i) {
    const KernelCandidate c = again.candidate(i, kCosSin);
    EXPECT_TRUE(same(c, forward[static_cast<std::size_t>(i)])) << "candidate " << i;
    EXPECT_EQ(c.pair, i % 128);
    EXPECT_EQ(c.position, forward[static_cast<std::size_t>(i / 128 * 128)].position) << "a block shares its position";
    differ += !same(c, other.candidate(i, kCosSin));
  }
  EXPECT_GT(differ, 590) << "another seed, other candidates";
}

TEST(KernelCandidates, EveryKindIsDrawn) {
  kernel::RopePlan plan(config_spectrum("gemma-7b"), kernel::Layout::interleaved);
  const KernelCandidates gen = gemma_candidates(1, plan);
  std::map<std::string, int> origins, kinds;
  std::set<std::int64_t> positions;
  int negative = 0, huge = 0, subject1 = 0;
  for (long long b = 0; b < 400; ++b) {
    const KernelBlock blk = gen.block(b);
    origins[blk.origin.substr(0, 11)]++;
    positions.insert(blk.position);
    negative += blk.position < 0;
    huge += blk.position > (std::int64_t{1} << 40) || blk.position < -(std::int64_t{1} << 40);
    subject1 += blk.subject == 1;
  }
  EXPECT_EQ(origins.size(), 4u);  // "bit pattern", "log-uniform", "edge", "near-return"
  EXPECT_GT(negative, 100);
  EXPECT_GT(huge, 40);
  EXPECT_GT(subject1, 20);  // one block in eight: 50 expected
  int f32 = 0, half = 0, non_finite_outside_specials = 0;
  for (long long i = 0; i < 4000; ++i) {
    const KernelCandidate c = gen.candidate(i, kCosSin);
    kinds[input_kind_name(c.kind)]++;
    f32 += c.format == Dtype::f32;
    half += c.layout == kernel::Layout::half;
    for (std::uint32_t u : c.input) {
      const double v = c.format == Dtype::f32 ? std::bit_cast<float>(u) : bf16_value(static_cast<std::uint16_t>(u));
      if (!std::isfinite(v) && c.kind != KernelInputKind::specials) ++non_finite_outside_specials;
      if (c.format == Dtype::bf16) {
        EXPECT_LT(u, 0x10000u);
      }
    }
    if (c.kind == KernelInputKind::zeros) {
      EXPECT_EQ((c.input[0] | c.input[1]) & (c.format == Dtype::f32 ? 0x7FFFFFFFu : 0x7FFFu), 0u);  // no magnitude in any format
    }
  }
  EXPECT_EQ(kinds.size(), 7u);
  EXPECT_EQ(non_finite_outside_specials, 0);
  // Fair draws over 4000: f32 is one of the 3 kernel dtypes, 1333 +- 4.5 sigma (sigma = 29.8); half
  // is a fair coin, 2000 +- 4.5 sigma (sigma = 31.6): each fails with probability < 1e-5.
  EXPECT_NEAR(f32, 4000.0 / static_cast<double>(kKernelDtypes.size()), 4.5 * std::sqrt(4000.0 / 3 * 2 / 3));
  EXPECT_NEAR(half, 2000, 142);
}

TEST(KernelCandidates, BadArguments) {
  EXPECT_THROW(KernelCandidates(1, 0, {}, 1), InputError);
  EXPECT_THROW(KernelCandidates(1, 4, {}, 0), InputError);
}

}  // namespace
}  // namespace ropecheck::accuracy

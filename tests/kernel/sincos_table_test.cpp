// The sin/cos table against MPFR: the 2^-50 contract of sincos_table.h, bit-identity of every
// path, the exact symmetry of negative positions, and thread independence.
#include "kernel/sincos_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "numeric/precision.h"
#include "numeric/scalar.h"
#include "random/counter_rng.h"
#include "io/input_error.h"
#include "spectrum/request.h"
#include "spectrum/frequencies.h"

namespace ropecheck::kernel {
namespace {

constexpr std::uint64_t kSeed = 20261121;


std::vector<std::int64_t> test_positions(int random_count) {
  std::vector<std::int64_t> p{0, 1, 2, 3, 710, 103993, (1LL << 24) - 1, 1LL << 24, (1LL << 31) - 1, 1LL << 31,
                              (1LL << 40) - 1, -1, -710, -(1LL << 40), std::numeric_limits<std::int64_t>::max(),
                              std::numeric_limits<std::int64_t>::min()};
  const CounterRng rng(kSeed, 41);
  for (int i = 0; i < random_count; ++i) {
    // log-uniform in [1, 2^40): a random exponent, then random low bits
    const std::uint64_t b = rng.bits(static_cast<std::uint64_t>(i));
    const int e = static_cast<int>(b % 40);
    p.push_back(static_cast<std::int64_t>((std::uint64_t{1} << e) | ((b >> 8) & ((std::uint64_t{1} << e) - 1))));
  }
  return p;
}

// Returns the largest |table - exact| over the positions and pairs, failing on any value beyond
// the contract. The reference: g_k from frequencies<Real> at 256 bits (relative error ~2^-250, so
// even |p| = 2^63 leaves the angle correct to ~2^-180) and correctly rounded MPFR sin/cos.
double max_table_error(const Spectrum& spectrum, const std::vector<std::int64_t>& positions, cpu::Path path) {
  const RopePlan plan(spectrum, Layout::half);
  const SinCosTable table(plan, positions, path);
  ScopedPrecision precision(256);
  const std::vector<Real> g = frequencies<Real>(spectrum);
  double worst = 0;
  for (std::int64_t t = 0; t < table.tokens(); ++t) {
    const Real p(static_cast<long long>(positions[static_cast<size_t>(t)]));
    for (int k = 0; k < plan.block_pairs(); ++k) {
      if (plan.identity(k)) continue;
      Real s, c;
      sin_cos(Real(p * g[static_cast<size_t>(k)]), s, c);
      const double ec = to_double(Real(abs(Real(table.cos_row(t)[k]) - c)));
      const double es = to_double(Real(abs(Real(table.sin_row(t)[k]) - s)));
      if (ec > kSinCosErrorBound || es > kSinCosErrorBound)
        ADD_FAILURE() << spectrum.describe() << " path " << cpu::path_name(path) << " p=" << positions[static_cast<size_t>(t)]
                      << " k=" << k << ": cos got " << std::hexfloat << table.cos_row(t)[k] << " err " << ec << ", sin got "
                      << table.sin_row(t)[k] << " err " << es << std::defaultfloat;
      worst = std::max({worst, ec, es});
    }
  }
  return worst;
}

TEST(SinCosTable, WithinTheProvedBoundOfTheExactValueOnEveryPath) {
  const std::vector<std::int64_t> positions = test_positions(120);
  for (cpu::Path path : cpu::available_paths()) {
    for (const char* config : {"gemma-7b", "llama-3.1-8b"}) {
      const double worst = max_table_error(config_spectrum(config), positions, path);
      // The proof gives < 2^-51.2; a sampled maximum is a lower bound on the true maximum.
      std::printf("[ sincos ] %s %s: max |error| over %zu positions x all pairs = %a (2^%.2f), proved bound 2^-50\n",
                  cpu::path_name(path).c_str(), config, positions.size(), worst, std::log2(worst));
      EXPECT_LE(worst, std::exp2(-51.2));
    }
  }
}

TEST(SinCosTable, EveryPathComputesTheSameBits) {
  const std::vector<std::int64_t> positions = test_positions(300);
  // dims 2..40 exercise every vector tail (n mod 8 and n mod 4) of the SIMD paths.
  for (int dim = 2; dim <= 40; dim += 2) {
    const RopePlan plan(Spectrum(dim, "10000"), Layout::interleaved);
    const SinCosTable reference(plan, positions, cpu::Path::scalar);
    for (cpu::Path path : cpu::available_paths()) {
      const SinCosTable table(plan, positions, path);
      for (std::int64_t t = 0; t < table.tokens(); ++t)
        for (int k = 0; k < plan.block_pairs(); ++k) {
          ASSERT_EQ(std::bit_cast<std::uint64_t>(table.cos_row(t)[k]), std::bit_cast<std::uint64_t>(reference.cos_row(t)[k]))
              << cpu::path_name(path) << " d=" << dim << " p=" << positions[static_cast<size_t>(t)] << " k=" << k << std::hexfloat
              << " got " << table.cos_row(t)[k] << " scalar " << reference.cos_row(t)[k];
          ASSERT_EQ(std::bit_cast<std::uint64_t>(table.sin_row(t)[k]), std::bit_cast<std::uint64_t>(reference.sin_row(t)[k]))
              << cpu::path_name(path) << " d=" << dim << " p=" << positions[static_cast<size_t>(t)] << " k=" << k << std::hexfloat
              << " got " << table.sin_row(t)[k] << " scalar " << reference.sin_row(t)[k];
        }
    }
  }
}

TEST(SinCosTable, NegativePositionsMirrorExactly) {
  // frac(-x) = -frac(x): the reduced offset and quadrant negate, and the polynomials are exactly
  // odd (sin) and even (cos) under negation of x, so cos(-p g) and sin(-p g) are bit-exact mirrors
  // unless the offset is exactly -2^61 (probability 2^-62 per value).
  std::vector<std::int64_t> pos = test_positions(200), neg;
  pos.erase(std::remove(pos.begin(), pos.end(), std::numeric_limits<std::int64_t>::min()), pos.end());
  for (auto p : pos) neg.push_back(-p);
  const RopePlan plan(config_spectrum("gemma-7b"), Layout::half);
  const SinCosTable a(plan, pos), b(plan, neg);
  for (std::int64_t t = 0; t < a.tokens(); ++t)
    for (int k = 0; k < plan.block_pairs(); ++k) {
      ASSERT_EQ(a.cos_row(t)[k], b.cos_row(t)[k]) << "p=" << pos[static_cast<size_t>(t)] << " k=" << k;
      ASSERT_EQ(a.sin_row(t)[k], -b.sin_row(t)[k]) << "p=" << pos[static_cast<size_t>(t)] << " k=" << k;
    }
}

TEST(SinCosTable, ThreadCountDoesNotChangeABit) {
  const std::vector<std::int64_t> positions = test_positions(500);
  const RopePlan plan(config_spectrum("llama-3.1-8b"), Layout::interleaved);
  const SinCosTable one(plan, positions, cpu::default_path(), 1);
  for (int threads : {2, 3, 7}) {
    const SinCosTable many(plan, positions, cpu::default_path(), threads);
    for (std::int64_t t = 0; t < one.tokens(); ++t)
      for (int k = 0; k < plan.block_pairs(); ++k) {
        ASSERT_EQ(std::bit_cast<std::uint64_t>(one.cos_row(t)[k]), std::bit_cast<std::uint64_t>(many.cos_row(t)[k]));
        ASSERT_EQ(std::bit_cast<std::uint64_t>(one.sin_row(t)[k]), std::bit_cast<std::uint64_t>(many.sin_row(t)[k]));
      }
  }
}

TEST(SinCosTable, PositionZeroIsExactlyTheIdentityRotation) {
  const RopePlan plan(config_spectrum("gemma-7b"), Layout::half);
  const std::vector<std::int64_t> zero{0};
  for (cpu::Path path : cpu::available_paths()) {
    const SinCosTable table(plan, zero, path);
    for (int k = 0; k < plan.block_pairs(); ++k) {
      EXPECT_EQ(table.cos_row(0)[k], 1.0) << cpu::path_name(path) << " k=" << k;
      EXPECT_EQ(table.sin_row(0)[k], 0.0) << cpu::path_name(path) << " k=" << k;
    }
  }
}

TEST(SinCosTable, RejectsBadThreadCounts) {
  const RopePlan plan(Spectrum(8, "10000"), Layout::half);
  const std::vector<std::int64_t> p{1, 2};
  EXPECT_THROW(SinCosTable(plan, p, cpu::Path::scalar, 0), InputError);
}

// SinCosPairs: chosen pairs at one position, bit for bit the table's entries for those pairs.
TEST(SinCosPairs, EqualsTheTableEntriesOfItsPairsOnEveryPath) {
  std::vector<std::int64_t> positions = test_positions(100);
  for (std::int64_t p : std::initializer_list<std::int64_t>{std::numeric_limits<std::int64_t>::max() - 1, std::numeric_limits<std::int64_t>::min() + 1,
                                                           -(std::int64_t{1} << 62), (std::int64_t{1} << 62) + 12345, -103993, -2})
    positions.push_back(p);
  // p-rope 0.5 has identity pairs (cos 1, sin 0); dim 34 gives 17 pairs, an odd SIMD tail.
  const std::vector<Spectrum> spectra = {config_spectrum("llama-3.1-8b"), Spectrum(34, "10000"),
                                         Spectrum(64, "10000", Variant::p_rope, "0.5")};
  for (const Spectrum& spectrum : spectra)
    for (Layout layout : {Layout::interleaved, Layout::half}) {
      const RopePlan plan(spectrum, layout);
      const int r = plan.block_pairs();
      // Any order, repeats, first and last pair; and every pair in order.
      std::vector<std::vector<int>> choices = {{r - 1, 0, r / 2, 0, 3 % r, r - 1, 1 % r}, {r / 3}, {}};
      choices.push_back(std::vector<int>(static_cast<size_t>(r)));
      std::iota(choices.back().begin(), choices.back().end(), 0);
      for (cpu::Path path : cpu::available_paths()) {
        const SinCosTable table(plan, positions, path);
        for (const std::vector<int>& pairs : choices) {
          const SinCosPairs chosen(plan, pairs, path);
          ASSERT_EQ(chosen.size(), pairs.size());
          std::vector<double> c(pairs.size() + 1, -7.0), s(pairs.size() + 1, -7.0);
          for (std::int64_t t = 0; t < table.tokens(); ++t) {
            chosen.at(table.position(t), c.data(), s.data());
            for (size_t j = 0; j < pairs.size(); ++j) {
              const int k = pairs[j];
              ASSERT_EQ(std::bit_cast<std::uint64_t>(c[j]), std::bit_cast<std::uint64_t>(table.cos_row(t)[k]))
                  << spectrum.describe() << " " << layout_name(layout) << " " << cpu::path_name(path) << " p=" << table.position(t) << " k=" << k;
              ASSERT_EQ(std::bit_cast<std::uint64_t>(s[j]), std::bit_cast<std::uint64_t>(table.sin_row(t)[k]))
                  << spectrum.describe() << " " << layout_name(layout) << " " << cpu::path_name(path) << " p=" << table.position(t) << " k=" << k;
            }
            ASSERT_EQ(c[pairs.size()], -7.0) << "wrote past its pairs";
            ASSERT_EQ(s[pairs.size()], -7.0) << "wrote past its pairs";
          }
        }
      }
    }
}

TEST(SinCosPairs, EmptyListTouchesNothing) {
  const RopePlan plan(config_spectrum("gemma-7b"), Layout::half);
  const SinCosPairs none(plan, std::vector<int>{});
  EXPECT_EQ(none.size(), 0u);
  none.at(std::numeric_limits<std::int64_t>::min(), nullptr, nullptr);  // must not dereference
  double c = -7, s = -7;
  none.at(5, &c, &s);
  EXPECT_EQ(c, -7.0);
  EXPECT_EQ(s, -7.0);
}

TEST(SinCosPairs, DoesNotNeedThePlanAfterConstruction) {
  const std::vector<int> pairs{2, 0, 5};
  std::optional<RopePlan> plan(std::in_place, config_spectrum("gemma-7b"), Layout::interleaved);
  const std::vector<std::int64_t> p{1234567};
  const SinCosTable table(*plan, p);
  const double c2 = table.cos_row(0)[2], s5 = table.sin_row(0)[5];
  const SinCosPairs chosen(*plan, pairs);
  plan.reset();
  double c[3], s[3];
  chosen.at(1234567, c, s);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(c[0]), std::bit_cast<std::uint64_t>(c2));
  EXPECT_EQ(std::bit_cast<std::uint64_t>(s[2]), std::bit_cast<std::uint64_t>(s5));
}

TEST(SinCosPairs, RejectsPairIndicesOutsideTheBlock) {
  const RopePlan plan(Spectrum(8, "10000"), Layout::half);  // 4 block pairs
  for (const std::vector<int>& bad : {std::vector<int>{-1}, std::vector<int>{4}, std::vector<int>{0, 1, 2, 3, 4}}) {
    try {
      SinCosPairs chosen(plan, bad, cpu::Path::scalar);
      ADD_FAILURE() << "accepted pair " << bad.back();
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("pairs"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("[0, 4)"), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(SinCosPairs(plan, std::vector<int>{0, 3, 3}, cpu::Path::scalar));
  const std::vector<cpu::Path> available = cpu::available_paths();
  for (cpu::Path path : cpu::all_paths())
    if (std::find(available.begin(), available.end(), path) == available.end()) {
      EXPECT_THROW(SinCosPairs(plan, std::vector<int>{0}, path), InputError) << cpu::path_name(path);
    }
}

}  // namespace
}  // namespace ropecheck::kernel

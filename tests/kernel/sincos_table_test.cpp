// The sin/cos table against MPFR: the 2^-50 contract of sincos_table.h, bit-identity of every
// path, the exact symmetry of negative positions, and thread independence.
#include "kernel/sincos_table.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>

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

}  // namespace
}  // namespace ropecheck::kernel

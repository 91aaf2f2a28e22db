// The Monte Carlo engine's invariants: fig2a is the fig-2a claim's curve (inside its MPFI
// enclosures within the error bound of the double evaluation), fig8 with L = n is RoPE itself bit
// for bit (the activation's own summation bound: tests/attention/activation_test.cpp), the result
// does not depend on threads or shards, and the f32/bf16 arithmetic (the production kernel) stays within
// its derived bound of the f64 activation on the same Gaussian vectors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "cpu/path.h"
#include "io/input_error.h"
#include "montecarlo/analysis.h"
#include "montecarlo/simulate.h"
#include "montecarlo/streams.h"
#include "numeric/precision.h"
#include "proofs/fig-2a.h"
#include "random/counter_rng.h"
#include "random/normal_sampler.h"
#include "spectrum/frequencies.h"

namespace ropecheck::montecarlo {
namespace {

Params small_params(Experiment e, int d, std::int64_t trials, std::int64_t max_distance) {
  Params p;
  p.experiment = e;
  p.seed = 42;
  p.max_distance = max_distance;
  SeriesSpec s{"d=" + std::to_string(d), "custom", Spectrum(d, "10000")};
  s.vectors = e == Experiment::fig2a ? Vectors::ones : Vectors::gaussian;
  s.trials = trials;
  s.code = static_cast<std::uint32_t>(static_cast<int>(e) * 16);
  p.series.push_back(s);
  return p;
}

TEST(MontecarloSimulate, Fig2aIsTheCertifiedAllOnesCurve) {
  for (int d : {128, 256}) {
    const Params p = small_params(Experiment::fig2a, d, 1, 5000);
    const Partial part = simulate(p, Shard{}, RunOptions{2, false});
    const std::vector<double> f = all_ones_curve(p.series[0].spectrum, 5001);
    const ScopedPrecision prec(200);
    const std::vector<Interval> g = frequencies<Interval>(p.series[0].spectrum);
    const std::vector<Interval> exact = proofs::all_ones_activation(g, 5000);
    // Error of the double evaluation: the kernel's cos table (2^-50 per term, so 2^-50 after the
    // 1/P average), recursive summation of P terms of size <= 2 in any order (<= (P + 3) 2^-53 * 2P,
    // i.e. (P + 3) 2^-53 after dividing by d = 2P), and the final division (2^-53).
    const int P = d / 2;
    const double bound = 0x1p-50 + (P + 3) * 0x1p-53 + 0x1p-53;
    for (std::int64_t r = 0; r <= 5000; ++r) {
      const double mc = part.series[0].distance[static_cast<size_t>(r)].s1.value();
      ASSERT_EQ(mc, f[static_cast<size_t>(r)]) << "r=" << r;
      const double lo = static_cast<double>(lower_of(exact[static_cast<size_t>(r)]));
      const double hi = static_cast<double>(upper_of(exact[static_cast<size_t>(r)]));
      ASSERT_TRUE(mc >= lo - bound && mc <= hi + bound) << "d=" << d << " r=" << r << std::hexfloat << " mc=" << mc << " enclosure=[" << lo << ", " << hi
                                                        << "] bound=" << bound;
    }
    EXPECT_EQ(f[0], 1.0);
  }
}

TEST(MontecarloSimulate, Fig8WithLEqualNIsRopeBitForBit) {
  Params p = small_params(Experiment::fig8, 32, 3, 79);
  p.fig8_n = 80;
  p.series[0].vectors = Vectors::ones;
  p.series[0].L = 80;
  const Partial part = simulate(p, Shard{}, RunOptions{1, false});
  const std::vector<double> f = all_ones_curve(p.series[0].spectrum, 80);
  for (std::int64_t r = 0; r < 80; ++r) {
    const statistics::Summary s = statistics::summarize(part.series[0].distance[static_cast<size_t>(r)]);
    ASSERT_EQ(s.mean, f[static_cast<size_t>(r)]) << "r=" << r;
    ASSERT_EQ(s.variance, 0.0) << "r=" << r;
  }
}

TEST(MontecarloSimulate, ThreadsAndShardsDoNotChangeABit) {
  for (Experiment e : {Experiment::fig2b, Experiment::fig9, Experiment::variance, Experiment::fig8}) {
    Params p = small_params(e, 16, 30, 60);
    if (e == Experiment::fig8) {
      p.fig8_n = 61;
      p.series[0].L = 200;
    }
    const Partial one = simulate(p, Shard{}, RunOptions{1, false});
    const Partial three = simulate(p, Shard{}, RunOptions{3, false});
    EXPECT_EQ(partial_text(one), partial_text(three)) << experiment_name(e);
    std::vector<Partial> shards;
    for (std::int64_t k = 0; k < 4; ++k) shards.push_back(parse_partial(partial_text(simulate(p, Shard{k, 4}, RunOptions{2, false})), "shard"));
    const Partial merged = merge_partials({shards[3], shards[1], shards[0], shards[2]}, {"3", "1", "0", "2"});
    EXPECT_EQ(analyse(merged).json.dump(), analyse(one).json.dump()) << experiment_name(e);
    EXPECT_EQ(analyse(merged).csv, analyse(one).csv) << experiment_name(e);
  }
}

// An incomplete merge says which shards it lacks (what a user resubmits), on one line however many
// shards the run has: at most eight named, the rest counted.
TEST(MontecarloSimulate, AnIncompleteMergeNamesTheMissingShards) {
  const Params p = small_params(Experiment::fig9, 8, 64, 10);
  const auto refusal = [&p](std::int64_t n, const std::vector<std::int64_t>& shards) {
    std::vector<Partial> parts;
    std::vector<std::string> inputs;
    for (const std::int64_t k : shards) {
      parts.push_back(simulate(p, Shard{k, n}, RunOptions{1, false}));
      inputs.push_back("part-" + std::to_string(k) + ".json");
    }
    try {
      analyse(merge_partials(parts, inputs));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const std::string must = "merge must be partials covering every shard of the run ";
  EXPECT_EQ(refusal(4, {3, 0, 1}), must + "(got shards 0/4, 1/4, 3/4; shard 2/4 is missing)");
  EXPECT_EQ(refusal(4, {1}), must + "(got shards 1/4; shards 0/4, 2/4, 3/4 are missing)");
  std::vector<std::int64_t> most;
  for (std::int64_t k = 0; k < 50; ++k)
    if (k != 2 && k != 5) most.push_back(k);
  EXPECT_EQ(refusal(64, most),
            must + "(got 48 of 64 shards; shards 2/64, 5/64, 50/64, 51/64, 52/64, 53/64, 54/64, 55/64 and 8 more are missing)");
  EXPECT_EQ(refusal(4, {2, 0, 3, 1}), "accepted");
}

double norm_of(const std::vector<double>& v, int from, int d) {
  double s = 0;
  for (int i = from; i < from + d; ++i) s += v[static_cast<size_t>(i)] * v[static_cast<size_t>(i)];
  return std::sqrt(s);
}

TEST(MontecarloSimulate, KernelArithmeticWithinItsBoundOfF64) {
  const int d = 16;
  const Params p64 = small_params(Experiment::fig2b, d, 2, 40);
  const Partial ref = simulate(p64, Shard{}, RunOptions{1, false});
  for (Dtype arith : {Dtype::f32, Dtype::bf16}) {
    Params p = p64;
    p.arith = arith;
    p.base_position = 123456789;
    const Partial got = simulate(p, Shard{}, RunOptions{1, false});
    // Per activation, with u the format's unit roundoff (2^-24 f32, 2^-8 bf16): rounding q and k
    // (||dq|| <= u ||q||), the kernel's rotation (each component within ~u of the pair's norm, so
    // ||dq|| <= sqrt(2) u ||q||), and the float dot product (<= 6 roundings of 2^-24 on the path of
    // each term, |sum| <= ||q|| ||k||): |a - a64| <= (2 (1 + sqrt 2) u + 6 2^-24 + O(u^2)) ||q|| ||k|| / d;
    // 5.2 u (bf16) and 11 u (f32) cover it, the f64 side's error (2^-50) included. The mean of two
    // trials is within the larger of the two bounds.
    const double u = arith == Dtype::f32 ? 0x1p-24 : 0x1p-8;
    const double factor = arith == Dtype::f32 ? 11.0 : 5.2;
    for (std::int64_t r = 0; r <= 40; ++r) {
      double bound = 0;
      for (std::int64_t t = 0; t < 2; ++t) {
        std::vector<double> n(2 * d);
        normal_fill(p.seed, stream_id(p.series[0].code, static_cast<std::uint64_t>(r), static_cast<std::uint64_t>(t)), 0, n, cpu::Path::scalar);
        bound = std::max(bound, factor * u * norm_of(n, 0, d) * norm_of(n, d, d) / d);
      }
      const double a = statistics::summarize(got.series[0].distance[static_cast<size_t>(r)]).mean;
      const double b = statistics::summarize(ref.series[0].distance[static_cast<size_t>(r)]).mean;
      ASSERT_LE(std::fabs(a - b), bound) << dtype_name(arith) << " r=" << r << std::hexfloat << " got=" << a << " f64=" << b;
    }
  }
}

}  // namespace
}  // namespace ropecheck::montecarlo

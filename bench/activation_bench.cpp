// Activation evaluations per second per core, end to end through montecarlo::simulate (one
// thread, progress off): fig2b draws a fresh Gaussian (q, k) for every activation (2d normals
// each), fig9 evaluates every distance from one pair (the dot product alone). Beside them, the
// dot product on its own (attention/activation.h's lagged_activation) and this core's measured FMA peak, in the same run, so
// the ratio is not hostage to a noisy shared machine:
//   ratio_to_fma_peak = (4 flops per pair: 2 mul + 2 add, times d/2 pairs, per activation) /
//                       (the FMA loop's flops per second)
// The engine uses no FMA (mul and add separately, for bit-identical results on every machine and
// path), so 0.5 is its ceiling on a core whose FMA pipes also do plain mul/add.
// Run: build/bench/ropecheck_montecarlo_bench --benchmark_filter='Activation|Fma|Simulate'
#include <benchmark/benchmark.h>

#include <vector>

#include "attention/activation.h"
#include "montecarlo/simulate.h"
#include "random/counter_rng.h"

namespace ropecheck::montecarlo {
namespace {

// 16 independent chains of 8-double FMAs (AVX-512): enough in flight to cover the FMA latency (4
// cycles) on two pipes. Compiled for AVX-512 by attribute; skipped on CPUs without it.
__attribute__((target("avx512f,fma"))) double fma_loop(long iterations) {
  typedef double v8 __attribute__((vector_size(64)));
  // Sixteen named accumulators (an array would live on the stack, and store-to-load forwarding
  // would become the measured latency).
  v8 c0 = v8{} + 1.00, c1 = v8{} + 1.01, c2 = v8{} + 1.02, c3 = v8{} + 1.03, c4 = v8{} + 1.04, c5 = v8{} + 1.05, c6 = v8{} + 1.06,
     c7 = v8{} + 1.07, c8 = v8{} + 1.08, c9 = v8{} + 1.09, c10 = v8{} + 1.10, c11 = v8{} + 1.11, c12 = v8{} + 1.12, c13 = v8{} + 1.13,
     c14 = v8{} + 1.14, c15 = v8{} + 1.15;
  const v8 a = v8{} + 0.999999, b = v8{} + 1e-7;
#define ROPECHECK_FMA(c)                                      \
  c = __builtin_ia32_vfmaddpd512_mask(c, a, b, -1, 4);        \
  asm volatile("" : "+v"(c));  // every FMA runs: no folding of the recurrence
  for (long it = 0; it < iterations; ++it) {
    ROPECHECK_FMA(c0) ROPECHECK_FMA(c1) ROPECHECK_FMA(c2) ROPECHECK_FMA(c3) ROPECHECK_FMA(c4) ROPECHECK_FMA(c5) ROPECHECK_FMA(c6)
    ROPECHECK_FMA(c7) ROPECHECK_FMA(c8) ROPECHECK_FMA(c9) ROPECHECK_FMA(c10) ROPECHECK_FMA(c11) ROPECHECK_FMA(c12)
    ROPECHECK_FMA(c13) ROPECHECK_FMA(c14) ROPECHECK_FMA(c15)
  }
#undef ROPECHECK_FMA
  const v8 s = ((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7)) + ((c8 + c9) + (c10 + c11)) + ((c12 + c13) + (c14 + c15));
  double out = 0;
  for (int i = 0; i < 8; ++i) out += s[i];
  return out;
}

void BM_FmaPeak(benchmark::State& state) {
  if (!__builtin_cpu_supports("avx512f")) {
    state.SkipWithError("no AVX-512F on this CPU");
    return;
  }
  const long iterations = 1 << 16;
  for (auto _ : state) benchmark::DoNotOptimize(fma_loop(iterations));
  const double flops = static_cast<double>(iterations) * 16 * 8 * 2;
  state.counters["flops"] = benchmark::Counter(flops * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.SetItemsProcessed(static_cast<std::int64_t>(iterations) * 16 * static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_FmaPeak)->Iterations(4000);

void BM_ActivationSum(benchmark::State& state) {
  const int pairs = static_cast<int>(state.range(0)) / 2;
  const CounterRng rng(1, 2);
  std::vector<double> u(static_cast<size_t>(pairs)), w(u), c(u), s(u);
  for (int k = 0; k < pairs; ++k) {
    u[static_cast<size_t>(k)] = rng.uniform_dyadic(static_cast<std::uint64_t>(4 * k));
    w[static_cast<size_t>(k)] = rng.uniform_dyadic(static_cast<std::uint64_t>(4 * k + 1));
    c[static_cast<size_t>(k)] = rng.uniform_dyadic(static_cast<std::uint64_t>(4 * k + 2));
    s[static_cast<size_t>(k)] = rng.uniform_dyadic(static_cast<std::uint64_t>(4 * k + 3));
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(u.data());
    benchmark::DoNotOptimize(lagged_activation(u.data(), w.data(), c.data(), s.data(), pairs));
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["flops"] = benchmark::Counter(4.0 * pairs * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ActivationSum)->Arg(128)->Arg(256);

void simulate_bench(benchmark::State& state, Experiment e) {
  const int d = static_cast<int>(state.range(0));
  Params p;
  p.experiment = e;
  p.seed = 1;
  p.max_distance = e == Experiment::fig2b ? 499 : 4999;
  SeriesSpec s{"d=" + std::to_string(d), "custom", Spectrum(d, "10000")};
  s.trials = e == Experiment::fig2b ? 16 : 8;
  s.code = 1;
  p.series.push_back(s);
  for (auto _ : state) benchmark::DoNotOptimize(simulate(p, Shard{}, RunOptions{1, false}));
  const double activations = static_cast<double>(s.trials) * static_cast<double>(p.max_distance + 1) * static_cast<double>(state.iterations());
  state.SetItemsProcessed(static_cast<std::int64_t>(activations));
  state.counters["activations_per_s"] = benchmark::Counter(activations, benchmark::Counter::kIsRate);
  state.counters["dot_flops"] = benchmark::Counter(activations * 2.0 * d, benchmark::Counter::kIsRate);
  if (e == Experiment::fig2b)
    state.counters["normals_per_s"] = benchmark::Counter(activations * 2.0 * d, benchmark::Counter::kIsRate);
}

void BM_SimulateFig2b(benchmark::State& state) { simulate_bench(state, Experiment::fig2b); }
void BM_SimulateFig9(benchmark::State& state) { simulate_bench(state, Experiment::fig9); }
BENCHMARK(BM_SimulateFig2b)->Arg(128)->Arg(256)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SimulateFig9)->Arg(128)->Arg(256)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ropecheck::montecarlo

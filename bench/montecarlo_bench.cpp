// The Monte Carlo engine's inner costs. BM_normal_fill: standard normal deviates per second on one
// thread, per kernel path (Arg = index into cpu::kPaths, labelled with the path's name), 4096 deviates per call into an L1-resident buffer, so the figure is the sampler's
// arithmetic, not memory bandwidth. Rates use CPU time (Google Benchmark's default), which the
// other tenants of this shared machine do not inflate. Goal: >= 4e8 deviates/s on avx512.
// Run:
//   build/bench/ropecheck_montecarlo_bench --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <vector>

#include "cpu/path.h"
#include "random/normal_sampler.h"

namespace ropecheck {
namespace {

void BM_normal_fill(benchmark::State& state) {
  const auto path = cpu::kPaths[static_cast<std::size_t>(state.range(0))].value;
  const auto paths = cpu::available_paths();
  if (std::find(paths.begin(), paths.end(), path) == paths.end()) {
    state.SkipWithError("path not available on this CPU");
    return;
  }
  state.SetLabel(cpu::path_name(path));
  constexpr std::size_t kChunk = 4096;
  std::vector<double> out(kChunk);
  std::uint64_t first = 0;
  for (auto _ : state) {
    normal_fill(20261121, 1, first, out, path);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
    first += kChunk;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(kChunk));
}
BENCHMARK(BM_normal_fill)->DenseRange(0, static_cast<int>(std::size(ropecheck::cpu::kPaths)) - 1)->ArgName("path");

}  // namespace
}  // namespace ropecheck

BENCHMARK_MAIN();

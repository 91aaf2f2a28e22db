// The production RoPE kernel against memcpy of the same bytes, measured in the same benchmark and
// interleaved iteration by iteration (the machine is shared and noisy: a ratio from one run is
// meaningful, absolute GB/s less so). memcpy out-of-place moves the same bytes the kernel must
// read and write, so it is the physical limit of an out-of-place pass. Each iteration is one timed
// pair of accuracy/memory_speed.h (the routine the report's kernel section uses too); the
// iteration time Google Benchmark reports is the kernel's alone (manual time).
// Run:
//   build/bench/ropecheck_kernel_bench --benchmark_out=kernel.json --benchmark_out_format=json
// Counters, medians over the iterations (summarize_speed): GBps = (read + write bytes) / kernel
// time; memcpy_GBps the same for memcpy; ratio_to_memcpy = memcpy time / kernel time within an
// iteration (the goal: >= 0.8 on one thread for f32 and bf16 [4096, 32, 128]).
#include <benchmark/benchmark.h>

#include <functional>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "accuracy/baselines.h"
#include "accuracy/memory_speed.h"
#include "kernel/apply_rope.h"

namespace ropecheck::kernel {
namespace {

using accuracy::apply_rope_baseline;
using accuracy::Baseline;
using cpu::available_paths;
using cpu::default_path;
using cpu::Path;
using cpu::path_name;

constexpr int kHeads = 32, kDim = 128;

const RopePlan& plan_for(Layout layout) {
  static const RopePlan interleaved(Spectrum(kDim, "10000"), Layout::interleaved);
  static const RopePlan half(Spectrum(kDim, "10000"), Layout::half);
  return layout == Layout::interleaved ? interleaved : half;
}

enum class Impl { kernel, kernel_table, f32_angle, f64_angle };

// state.range(0) = tokens, range(1) = threads.
template <typename E, Layout kLayout, Impl kImpl>
void BM_Rope(benchmark::State& state) {
  const std::int64_t tokens = state.range(0);
  const int threads = static_cast<int>(state.range(1));
  const size_t elements = static_cast<size_t>(tokens) * kHeads * kDim, bytes = elements * sizeof(E);
  accuracy::TouchedBuffer in(bytes, 0x3C), out(bytes, 0);
  // Inputs: small, ordinary values (0x3C3C3C3C as f32 is 0.0115; as bf16 pairs 0.0114).
  std::vector<std::int64_t> positions(static_cast<size_t>(tokens));
  std::iota(positions.begin(), positions.end(), 0);
  const RopePlan& plan = plan_for(kLayout);
  const TensorView<const E> x = dense_view<const E>(reinterpret_cast<const E*>(in.data()), tokens, kHeads, kDim);
  const TensorView<E> y = dense_view<E>(reinterpret_cast<E*>(out.data()), tokens, kHeads, kDim);
  const KernelOptions options{default_path(), threads};
  std::unique_ptr<SinCosTable> table;
  if constexpr (kImpl == Impl::kernel_table) table = std::make_unique<SinCosTable>(plan, positions, options.path, threads);
  const std::function<void()> run = [&] {
    if constexpr (kImpl == Impl::kernel) apply_rope(plan, positions, x, y, options);
    if constexpr (kImpl == Impl::kernel_table) apply_rope(*table, x, y, options);
    if constexpr (kImpl == Impl::f32_angle) apply_rope_baseline(Baseline::f32_angle, plan, positions, x, y);
    if constexpr (kImpl == Impl::f64_angle) apply_rope_baseline(Baseline::f64_angle, plan, positions, x, y);
  };
  std::vector<accuracy::PairTiming> pairs;
  for (auto _ : state) {
    pairs.push_back(accuracy::time_against_memcpy(out.data(), in.data(), bytes, run));
    state.SetIterationTime(pairs.back().seconds);
  }
  const accuracy::SpeedSummary summary = accuracy::summarize_speed(pairs);
  const double moved = 2.0 * static_cast<double>(bytes);
  state.counters["GBps"] = accuracy::gb_per_s(moved, summary.median_seconds);
  state.counters["memcpy_GBps"] = accuracy::gb_per_s(moved, summary.median_memcpy_seconds);
  state.counters["ratio_to_memcpy"] = summary.ratio_to_memcpy;
  state.SetLabel(path_name(options.path) + (kImpl == Impl::f32_angle || kImpl == Impl::f64_angle ? " (baseline, scalar)" : ""));
}

void Shapes(benchmark::internal::Benchmark* b) {
  for (std::int64_t tokens : {4096, 32768})
    for (std::int64_t threads : {1, 2}) b->Args({tokens, threads});
  b->ArgNames({"tokens", "threads"})->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);
}
void BaselineShapes(benchmark::internal::Benchmark* b) {
  b->Args({4096, 1})->ArgNames({"tokens", "threads"})->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);
}

using bf16 = std::uint16_t;
BENCHMARK(BM_Rope<float, Layout::half, Impl::kernel>)->Name("rope/f32/half")->Apply(Shapes);
BENCHMARK(BM_Rope<float, Layout::interleaved, Impl::kernel>)->Name("rope/f32/interleaved")->Apply(Shapes);
BENCHMARK(BM_Rope<bf16, Layout::half, Impl::kernel>)->Name("rope/bf16/half")->Apply(Shapes);
BENCHMARK(BM_Rope<bf16, Layout::interleaved, Impl::kernel>)->Name("rope/bf16/interleaved")->Apply(Shapes);
BENCHMARK(BM_Rope<float, Layout::half, Impl::kernel_table>)->Name("rope_with_table/f32/half")->Apply(BaselineShapes);
BENCHMARK(BM_Rope<float, Layout::half, Impl::f32_angle>)->Name("baseline_f32_angle/f32/half")->Apply(BaselineShapes);
BENCHMARK(BM_Rope<float, Layout::half, Impl::f64_angle>)->Name("baseline_f64_angle/f32/half")->Apply(BaselineShapes);
BENCHMARK(BM_Rope<bf16, Layout::half, Impl::f32_angle>)->Name("baseline_f32_angle/bf16/half")->Apply(BaselineShapes);

}  // namespace
}  // namespace ropecheck::kernel


namespace ropecheck::kernel {
namespace {
// The sin/cos table alone (tokens x d/2 evaluations) on each path: the part of a call that does
// not scale with the number of heads.
void BM_SinCosTable(benchmark::State& state) {
  const Path path = available_paths()[static_cast<size_t>(state.range(0))];
  std::vector<std::int64_t> positions(4096);
  std::iota(positions.begin(), positions.end(), 0);
  const RopePlan& plan = plan_for(Layout::half);
  std::vector<double> c(kDim / 2), s(kDim / 2);
  for (auto _ : state) {
    // Row by row into one buffer, as apply_rope does (a fresh 4 MiB SinCosTable per iteration
    // would mostly measure page faults).
    for (std::int64_t p : positions) sincos_row(plan, p, c.data(), s.data(), path);
    benchmark::DoNotOptimize(c.data());
  }
  state.SetItemsProcessed(state.iterations() * 4096 * (kDim / 2));
  state.SetLabel(path_name(path));
}
BENCHMARK(BM_SinCosTable)->Name("sincos_table/tokens:4096/d:128")->DenseRange(0, static_cast<int>(available_paths().size()) - 1)->Unit(benchmark::kMicrosecond);
}  // namespace
}  // namespace ropecheck::kernel

BENCHMARK_MAIN();

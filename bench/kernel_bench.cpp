// The production RoPE kernel against memcpy of the same number of bytes, measured in the same
// benchmark and paired iteration by iteration (the machine is shared and noisy: a ratio from one
// run is meaningful, absolute GB/s less so). memcpy out of place moves the bytes the kernel must
// read and write, so it is the physical limit of an out-of-place pass. Each iteration is one timed
// pair of accuracy/memory_speed.h (the routine the report's kernel section uses too): the kernel
// on its own input and output buffers, and memcpy between the baseline's OWN two buffers (so the
// baseline leaves none of the kernel's data in the cache), in an order drawn from SplitMix64 per
// pair. The iteration time Google Benchmark reports is the kernel's alone (manual time).
//
// Rows, first the shapes (one thread, heads 32, head dim 128, positions 0..L-1, out of
// place, inputs uniform in (-4, 4): accuracy::fill_uniform), for f32 and bf16 x interleaved and
// half x L = 4096 and 32768:
//   rope/DTYPE/LAYOUT/inside/tokens:L       apply_rope(plan, positions, in, out): the sin/cos
//                                           table built inside the call, as a caller uses it
//   rope/DTYPE/LAYOUT/precomputed/tokens:L  apply_rope(table, in, out) with a SinCosTable built
//                                           beforehand (outside the timing)
// then two threads, the naive baselines (scalar, f32 and f64 angles), the input rows, and the
// sin/cos rows alone. The input rows, rope_inputs/DTYPE/half/INPUT/tokens:256 (in cache, no memcpy
// pairing: what an input costs, not the memory system), time the kernel on
//   constant    every element 0x3C3C3C3C (0.0115; as bf16 pairs 0.0114): no rounding test fails
//   random      uniform in (-4, 4) from SplitMix64(seed), the rows above' input
//   zeros       all zero (padding tokens)
//   cancelling  adversarial: each pair (x_a, x_b) = (RN(sin~), RN(cos~)) of its own token and pair,
//               so y_a = x_a cos - x_b sin cancels to about one ulp of the input: the fast tests
//               fail often and the accurate path runs
// with items_per_second (outputs per second) and slow_share (KernelStats: outputs that took the
// accurate path).
// The slow path must not make the common case slower: constant, random and zeros should cost alike.
// Run (the numbers: medians of >= 5 repetitions):
//   build/bench/ropecheck_kernel_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//       --benchmark_filter='^rope/' [--seed=N] --benchmark_out=kernel.json --benchmark_out_format=json
// --seed=N (default 1, printed in the context as pair_order_seed) seeds the pair orders; benchmark
// run i (in the order they run) uses SplitMix64(seed + i)'s first output as its PairOrders seed.
// Counters, medians over the iterations of one run (summarize_speed): GBps = (read + written
// bytes) / kernel time; memcpy_GBps the same for memcpy; ratio_to_memcpy = median over the pairs
// of memcpy time / kernel time (the goals: >= 0.95 with the table inside the call, >= 1.0
// precomputed). With --benchmark_repetitions the _median aggregate is the median of those.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "accuracy/baselines.h"
#include "accuracy/memory_speed.h"
#include "kernel/apply_rope.h"
#include "numeric/small_floats.h"
#include "kernel/sincos_table.h"

namespace ropecheck::kernel {
namespace {

using accuracy::apply_rope_baseline;
using accuracy::Implementation;
using cpu::available_paths;
using cpu::default_path;
using cpu::Path;
using cpu::path_name;

constexpr int kHeads = 32, kDim = 128;

std::uint64_t g_seed = 1;  // --seed
std::uint64_t g_runs = 0;  // benchmark runs so far: run i orders its pairs with seed + i

const RopePlan& plan_for(Layout layout) {
  static const RopePlan interleaved(Spectrum(kDim, "10000"), Layout::interleaved);
  static const RopePlan half(Spectrum(kDim, "10000"), Layout::half);
  return layout == Layout::interleaved ? interleaved : half;
}

// The kernel's input (accuracy::fill_uniform, seeded by --seed) and output and the baseline's two
// buffers, all touched; kept from one run to the next while the size and type stay (rows of one
// size are registered together), so that a run does not spend a second on page faults of up to 2 GiB.
struct Buffers {
  Buffers(std::size_t bytes, std::size_t element_size) : in(bytes, 0), out(bytes, 0), baseline(bytes), element_size(element_size) {}
  accuracy::TouchedBuffer in, out;
  accuracy::MemcpyBaseline baseline;
  std::size_t element_size;
};
template <typename E>
Buffers& buffers_for(std::size_t bytes) {
  static std::unique_ptr<Buffers> held;
  if (!held || held->in.size() != bytes || held->element_size != sizeof(E)) {
    held.reset();
    held = std::make_unique<Buffers>(bytes, sizeof(E));
    accuracy::fill_uniform(reinterpret_cast<E*>(held->in.data()), bytes / sizeof(E), g_seed);
  }
  return *held;
}

enum class Impl { kernel, kernel_table, f32_angle, f64_angle };

// state.range(0) = tokens, range(1) = threads.
template <typename E, Layout kLayout, Impl kImpl>
void BM_Rope(benchmark::State& state) {
  const std::int64_t tokens = state.range(0);
  const int threads = static_cast<int>(state.range(1));
  const size_t elements = static_cast<size_t>(tokens) * kHeads * kDim, bytes = elements * sizeof(E);
  Buffers& b = buffers_for<E>(bytes);
  std::vector<std::int64_t> positions(static_cast<size_t>(tokens));
  std::iota(positions.begin(), positions.end(), 0);
  const RopePlan& plan = plan_for(kLayout);
  const TensorView<const E> x = dense_view<const E>(reinterpret_cast<const E*>(b.in.data()), tokens, kHeads, kDim);
  const TensorView<E> y = dense_view<E>(reinterpret_cast<E*>(b.out.data()), tokens, kHeads, kDim);
  const KernelOptions options{default_path(), threads};
  std::unique_ptr<SinCosTable> table;
  if constexpr (kImpl == Impl::kernel_table) table = std::make_unique<SinCosTable>(plan, positions, options.path, threads);
  const std::function<void()> run = [&] {
    if constexpr (kImpl == Impl::kernel) apply_rope(plan, positions, x, y, options);
    if constexpr (kImpl == Impl::kernel_table) apply_rope(*table, x, y, options);
    if constexpr (kImpl == Impl::f32_angle) apply_rope_baseline(Implementation::f32_angle, plan, positions, x, y);
    if constexpr (kImpl == Impl::f64_angle) apply_rope_baseline(Implementation::f64_angle, plan, positions, x, y);
    accuracy::clobber_memory(y.data);
  };
  accuracy::PairOrders orders(accuracy::SplitMix64(g_seed + g_runs++).next());
  std::vector<accuracy::PairTiming> pairs;
  for (auto _ : state) {
    pairs.push_back(accuracy::time_against_memcpy(b.baseline, run, orders.next()));
    state.SetIterationTime(pairs.back().seconds);
  }
  const accuracy::SpeedSummary summary = accuracy::summarize_speed(pairs);
  const double moved = 2.0 * static_cast<double>(bytes);
  state.counters["GBps"] = accuracy::gb_per_s(moved, summary.median_seconds);
  state.counters["memcpy_GBps"] = accuracy::gb_per_s(moved, summary.median_memcpy_seconds);
  state.counters["ratio_to_memcpy"] = summary.ratio_to_memcpy;
  state.SetLabel(path_name(options.path) + (kImpl == Impl::f32_angle || kImpl == Impl::f64_angle ? " (baseline, scalar)" : ""));
}

void reg(const char* name, void (*fn)(benchmark::State&), std::int64_t tokens, std::int64_t threads) {
  benchmark::RegisterBenchmark(name, fn)->Args({tokens, threads})->ArgNames({"tokens", "threads"})->UseManualTime()
      ->Unit(benchmark::kMillisecond)->MinTime(0.4);
}

using bf16 = Bf16Bits;

void register_all() {
  // The shapes, grouped by tensor size (the buffers are kept while the size stays).
  for (std::int64_t tokens : {4096, 32768}) {
    reg("rope/f32/interleaved/inside", BM_Rope<float, Layout::interleaved, Impl::kernel>, tokens, 1);
    reg("rope/f32/interleaved/precomputed", BM_Rope<float, Layout::interleaved, Impl::kernel_table>, tokens, 1);
    reg("rope/f32/half/inside", BM_Rope<float, Layout::half, Impl::kernel>, tokens, 1);
    reg("rope/f32/half/precomputed", BM_Rope<float, Layout::half, Impl::kernel_table>, tokens, 1);
    reg("rope/bf16/interleaved/inside", BM_Rope<bf16, Layout::interleaved, Impl::kernel>, tokens, 1);
    reg("rope/bf16/interleaved/precomputed", BM_Rope<bf16, Layout::interleaved, Impl::kernel_table>, tokens, 1);
    reg("rope/bf16/half/inside", BM_Rope<bf16, Layout::half, Impl::kernel>, tokens, 1);
    reg("rope/bf16/half/precomputed", BM_Rope<bf16, Layout::half, Impl::kernel_table>, tokens, 1);
  }
  // Two threads (each token computed by one worker: the bits do not change).
  reg("rope_threads/f32/half/inside", BM_Rope<float, Layout::half, Impl::kernel>, 4096, 2);
  reg("rope_threads/bf16/half/inside", BM_Rope<bf16, Layout::half, Impl::kernel>, 4096, 2);
  // The naive baselines (scalar, an angle per element), for scale.
  reg("baseline_f32_angle/f32/half", BM_Rope<float, Layout::half, Impl::f32_angle>, 4096, 1);
  reg("baseline_f64_angle/f32/half", BM_Rope<float, Layout::half, Impl::f64_angle>, 4096, 1);
  reg("baseline_f32_angle/bf16/half", BM_Rope<bf16, Layout::half, Impl::f32_angle>, 4096, 1);
}

// rope_inputs rows (file comment): in cache, no memcpy pairing.
enum class Input { constant, random, zeros, cancelling };
template <typename E, Input kInput>
void BM_Inputs(benchmark::State& state) {
  const std::int64_t tokens = state.range(0);
  const RopePlan& plan = plan_for(Layout::half);
  std::vector<std::int64_t> positions(static_cast<size_t>(tokens));
  std::iota(positions.begin(), positions.end(), 1000);
  const size_t elements = static_cast<size_t>(tokens) * kHeads * kDim;
  std::vector<float> x(elements, std::bit_cast<float>(0x3C3C3C3Cu));
  if constexpr (kInput == Input::random) accuracy::fill_uniform(x.data(), x.size(), g_seed);
  if constexpr (kInput == Input::zeros) std::fill(x.begin(), x.end(), 0.0f);
  if constexpr (kInput == Input::cancelling) {
    const SinCosTable table(plan, positions, Path::scalar);
    for (std::int64_t t = 0; t < tokens; ++t)
      for (int h = 0; h < kHeads; ++h)
        for (int k = 0; k < kDim / 2; ++k) {
          float* row = x.data() + (static_cast<size_t>(t) * kHeads + static_cast<size_t>(h)) * kDim;
          row[k] = static_cast<float>(table.sin_row(t)[k]);
          row[k + kDim / 2] = static_cast<float>(table.cos_row(t)[k]);
        }
  }
  std::vector<E> in(elements), out(elements);
  for (size_t i = 0; i < elements; ++i) {
    if constexpr (std::is_same_v<E, float>) in[i] = x[i];
    else in[i] = bf16_from_float(x[i]);
  }
  const TensorView<const E> xv = dense_view<const E>(in.data(), tokens, kHeads, kDim);
  const TensorView<E> yv = dense_view<E>(out.data(), tokens, kHeads, kDim);
  KernelStats stats;
  apply_rope(plan, positions, xv, yv, {default_path(), 1, &stats});
  for (auto _ : state) {
    apply_rope(plan, positions, xv, yv, {default_path(), 1});
    accuracy::clobber_memory(out.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(elements));
  state.counters["slow_share"] = stats.slow_share();
  state.SetLabel(path_name(default_path()));
}

void register_inputs() {
  // What an input costs (file comment).
  auto inputs = [](const char* name, void (*fn)(benchmark::State&)) {
    benchmark::RegisterBenchmark(name, fn)->Arg(256)->ArgName("tokens")->Unit(benchmark::kMillisecond)->MinTime(0.2);
  };
  inputs("rope_inputs/f32/half/constant", BM_Inputs<float, Input::constant>);
  inputs("rope_inputs/f32/half/random", BM_Inputs<float, Input::random>);
  inputs("rope_inputs/f32/half/zeros", BM_Inputs<float, Input::zeros>);
  inputs("rope_inputs/f32/half/cancelling", BM_Inputs<float, Input::cancelling>);
  inputs("rope_inputs/bf16/half/constant", BM_Inputs<bf16, Input::constant>);
  inputs("rope_inputs/bf16/half/random", BM_Inputs<bf16, Input::random>);
  inputs("rope_inputs/bf16/half/zeros", BM_Inputs<bf16, Input::zeros>);
  inputs("rope_inputs/bf16/half/cancelling", BM_Inputs<bf16, Input::cancelling>);
}

// The sin/cos rows alone (tokens x d/2 evaluations) on each path: the part of a call that does
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

}  // namespace
}  // namespace ropecheck::kernel

int main(int argc, char** argv) {
  using namespace ropecheck::kernel;
  // --seed=N is ours: taken out before Google Benchmark reads the rest.
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (i > 0 && std::strncmp(argv[i], "--seed=", 7) == 0) {
      char* end = nullptr;
      g_seed = std::strtoull(argv[i] + 7, &end, 0);
      if (end == argv[i] + 7 || *end != '\0') {
        std::fprintf(stderr, "--seed wants an unsigned integer, got '%s'\n", argv[i] + 7);
        return 2;
      }
    } else {
      args.push_back(argv[i]);
    }
  }
  int n = static_cast<int>(args.size());
  benchmark::AddCustomContext("pair_order_seed", std::to_string(g_seed));
  benchmark::AddCustomContext("pair_order", "each pair's order drawn from SplitMix64; run i seeded with SplitMix64(seed + i)");
  register_all();
  register_inputs();
  benchmark::RegisterBenchmark("sincos_table/tokens:4096/d:128", BM_SinCosTable)
      ->DenseRange(0, static_cast<int>(ropecheck::cpu::available_paths().size()) - 1)
      ->Unit(benchmark::kMicrosecond);
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

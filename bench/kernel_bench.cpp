// The production RoPE kernel against memcpy of the same number of bytes, measured in the same
// benchmark and paired iteration by iteration (the machine is shared and noisy: a ratio from one
// run is meaningful, absolute GB/s less so). memcpy out of place moves the bytes the kernel must
// read and write, so it is the physical limit of an out-of-place pass. Each iteration is one timed
// pair of accuracy/memory_speed.h (the routine the report's kernel section uses too): the kernel
// on its own input and output buffers, and memcpy between the baseline's OWN two buffers (so the
// baseline leaves none of the kernel's data in the cache), in an order drawn from SplitMix64 per
// pair. A row at N threads is paired with an N-thread memcpy (N contiguous parts, one thread each,
// started per call as the kernel starts its workers). The iteration time Google Benchmark reports
// is the kernel's alone (manual time). Shared pieces: bench/kernel_bench_support.h.
//
// Rows, the shape (heads 32, head dim 128, positions 0..L-1, out of place, inputs uniform
// in (-4, 4): accuracy::fill_uniform, theta 10000):
//   rope/PATH/DTYPE/LAYOUT/threads:N/ENTRY/tokens:4096   for every path this CPU runs
//       (cpu::available_paths()), every kernel dtype (kKernelDtypes), both layouts, N = 1 and 2, and
//       ENTRY one of
//         internal     apply_rope(plan, positions, in, out, {PATH, N}): the sin/cos table built
//                      inside the call, as a caller of the C++ API uses it
//         c_abi        ropecheck_plan_apply_f32/_bf16/_f16 of libropecheck.so (the C ABI) on a
//                      plan from a config.json text with the same geometry
//         c_abi_v1     ropecheck_apply_rope_f32/_bf16/_f16 (the version-1 spec entry) on a ropecheck_rope_spec
//       The C ABI has no path argument: it runs cpu::default_path(), which reads ROPECHECK_KERNEL
//       at every call, so a C ABI row sets ROPECHECK_KERNEL=PATH around its run (and checks
//       ropecheck_kernel_path() says so).
//   rope_floor/PATH/DTYPE/LAYOUT/threads:N/tokens:4096   the same rows on the bench-only floor
//       (kernel/floor.h: the path files compiled again with every fast rounding test
//       removed, outputs RN(y), NOT correctly rounded; never in libropecheck.so), run through
//       apply_rope's own loop. The price of correct rounding on a path is the floor's time /
//       the internal row's time.
//   rope/PATH/DTYPE/LAYOUT/threads:1/precomputed/tokens:L   the default path only, L = 4096 and
//       32768 (and internal at 32768): apply_rope(table, in, out) with a SinCosTable built
//       beforehand (outside the timing)
// then the naive baselines (scalar, f32 and f64 angles), the input rows, the second-core controls
// (control/second_core/{compute,memcpy}: BM_SecondCore says what they show) and the sin/cos rows
// alone. Each row's label is its path and the CPU's model name (also in the context: cpu_model).
// The input rows, rope_inputs/DTYPE/half/INPUT/tokens:256 (default path, in cache, no memcpy
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
// Run (the numbers: medians of >= 5 repetitions; ~15 minutes with every path):
//   build/bench/ropecheck_kernel_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//       --benchmark_filter='^rope' [--seed=N] --benchmark_out=kernel.json --benchmark_out_format=json
// ('^rope/avx2/' for one path's rows, '^rope(_floor)?/avx2/' with its floor.)
// --seed=N (default 1, printed in the context as pair_order_seed) seeds the pair orders; benchmark
// run i (in the order they run) uses SplitMix64(seed + i)'s first output as its PairOrders seed.
// Counters, medians over the iterations of one run (summarize_speed): GBps = (read + written
// bytes) / kernel time; memcpy_GBps the same for memcpy; ratio_to_memcpy = median over the pairs
// of memcpy time / kernel time (the goals: >= 0.95 with the table inside the call, >= 1.0
// precomputed, at 2 threads >= 0.95 of a 2-thread memcpy); memcpy_threads; on internal rows
// redone_share and slow_share (KernelStats: outputs whose first fast test failed; outputs that took
// the accurate path), counted on one untimed call. With
// --benchmark_repetitions the _median aggregate is the median of those.
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
#include <thread>
#include <vector>

#include "accuracy/baselines.h"
#include "accuracy/memory_speed.h"
#include "kernel/apply_rope.h"
#include "numeric/small_floats.h"
#include "kernel/c_api.h"
#include "kernel/floor.h"
#include "kernel/sincos_table.h"
#include "kernel_bench_support.h"

namespace ropecheck::kernel {
namespace {

using accuracy::apply_rope_baseline;
using accuracy::Implementation;
using bench::Entry;
using bench::kDim;
using bench::kHeads;
using bench::plan_for;
using cpu::available_paths;
using cpu::default_path;
using cpu::Path;
using cpu::path_name;

std::uint64_t& g_seed = bench::g_seed;

struct Row {
  Path path;
  Layout layout;
  int threads;
  Entry entry;
  std::int64_t tokens;
};

// One rope or rope_floor row (file comment).
template <typename E>
void BM_Rope(benchmark::State& state, Row row) {
  const size_t elements = static_cast<size_t>(row.tokens) * kHeads * kDim, bytes = elements * sizeof(E);
  bench::Buffers& b = bench::buffers_for<E>(bytes, row.threads);
  std::vector<std::int64_t> positions(static_cast<size_t>(row.tokens));
  std::iota(positions.begin(), positions.end(), 0);
  const RopePlan& plan = plan_for(row.layout);
  E* in = reinterpret_cast<E*>(b.in.data());
  E* out = reinterpret_cast<E*>(b.out.data());
  const TensorView<const E> x = dense_view<const E>(in, row.tokens, kHeads, kDim);
  const TensorView<E> y = dense_view<E>(out, row.tokens, kHeads, kDim);
  const KernelOptions options{row.path, row.threads};
  std::unique_ptr<SinCosTable> table;
  if (row.entry == Entry::precomputed) table = std::make_unique<SinCosTable>(plan, positions, row.path, row.threads);
  const ropecheck_tensor cin{in, row.tokens, kHeads, kHeads * kDim, kDim}, cout{out, row.tokens, kHeads, kHeads * kDim, kDim};
  const ropecheck_rope_spec spec = bench::c_spec(row.layout);
  std::string error;
  const ropecheck_plan* cplan = row.entry == Entry::c_abi ? bench::c_plan(row.layout, &error) : nullptr;
  if (!error.empty()) return state.SkipWithError(error.c_str());
  int rc = ROPECHECK_OK;
  std::function<void()> run;
  switch (row.entry) {
    case Entry::internal: run = [&] { apply_rope(plan, positions, x, y, options); }; break;
    case Entry::precomputed: run = [&] { apply_rope(*table, x, y, options); }; break;
    case Entry::floor:
      run = [&] { apply_rope_floor(plan, positions, x, y, options); };
      break;
    case Entry::c_abi:
      run = [&] { rc |= bench::DtypeCalls<E>::plan(cplan, positions.data(), &cin, &cout, row.threads, nullptr); };
      break;
    case Entry::c_abi_v1:
      run = [&] { rc |= bench::DtypeCalls<E>::v1(&spec, positions.data(), &cin, &cout, row.threads); };
      break;
  }
  const std::function<void()> timed = [&] {
    run();
    accuracy::clobber_memory(out);
  };
  if (row.entry == Entry::c_abi || row.entry == Entry::c_abi_v1) {
    if (!bench::with_c_abi_path(row.path, &error, [&] { bench::time_pairs(state, *b.baseline, bytes, timed); }))
      return state.SkipWithError(error.c_str());
    if (rc != ROPECHECK_OK) return state.SkipWithError((std::string("C ABI: ") + ropecheck_last_error()).c_str());
  } else {
    bench::time_pairs(state, *b.baseline, bytes, timed);
  }
  if (row.entry == Entry::internal) {
    // How often the first fast test fails on these inputs (KernelStats::redone, the same on every
    // path), and how often the accurate path runs: what the retries cost is counted, not guessed.
    KernelStats stats;
    apply_rope(plan, positions, x, y, {row.path, row.threads, &stats});
    state.counters["redone_share"] = stats.outputs > 0 ? static_cast<double>(stats.redone) / static_cast<double>(stats.outputs) : 0.0;
    state.counters["slow_share"] = stats.slow_share();
  }
  state.SetLabel(path_name(row.path) + (row.entry == Entry::floor ? " floor, not correctly rounded" : "") +
                 (bench::cpu_model().empty() ? "" : ", " + bench::cpu_model()));
}

// The naive baselines (scalar, an angle per element), for scale: one thread, half layout.
template <typename E, Implementation kImpl>
void BM_Baseline(benchmark::State& state) {
  const std::int64_t tokens = state.range(0);
  const size_t bytes = static_cast<size_t>(tokens) * kHeads * kDim * sizeof(E);
  bench::Buffers& b = bench::buffers_for<E>(bytes, 1);
  std::vector<std::int64_t> positions(static_cast<size_t>(tokens));
  std::iota(positions.begin(), positions.end(), 0);
  const RopePlan& plan = plan_for(Layout::half);
  const TensorView<const E> x = dense_view<const E>(reinterpret_cast<const E*>(b.in.data()), tokens, kHeads, kDim);
  const TensorView<E> y = dense_view<E>(reinterpret_cast<E*>(b.out.data()), tokens, kHeads, kDim);
  bench::time_pairs(state, *b.baseline, bytes, [&] {
    apply_rope_baseline(kImpl, plan, positions, x, y);
    accuracy::clobber_memory(y.data);
  });
  state.SetLabel("baseline, scalar");
}

void reg(const std::string& name, Row row, auto fn) {
  benchmark::RegisterBenchmark((name + "/tokens:" + std::to_string(row.tokens)).c_str(), fn, row)
      ->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.4);
}

void register_all() {
  // Grouped by tensor size and thread count (the buffers and the baseline are kept while they stay).
  bench::for_each_kernel_dtype([&]<typename E>(Dtype dtype) {
    for (int threads : {1, 2})
      for (Path path : available_paths())
        for (Layout layout : {Layout::interleaved, Layout::half})
          for (Entry entry : {Entry::internal, Entry::floor, Entry::c_abi, Entry::c_abi_v1}) {
            const std::string where = path_name(path) + "/" + dtype_name(dtype) + "/" + layout_name(layout) +
                                      "/threads:" + std::to_string(threads);
            const std::string name = entry == Entry::floor ? "rope_floor/" + where : "rope/" + where + "/" + bench::entry_name(entry);
            reg(name, Row{path, layout, threads, entry, 4096}, BM_Rope<E>);
          }
  });
  // The default path's precomputed table, and the long sequence (one thread).
  for (std::int64_t tokens : {4096, 32768})
    bench::for_each_kernel_dtype([&]<typename E>(Dtype dtype) {
      for (Layout layout : {Layout::interleaved, Layout::half})
        for (Entry entry : {Entry::internal, Entry::precomputed}) {
          if (tokens == 4096 && entry == Entry::internal) continue;  // a row above
          reg("rope/" + path_name(default_path()) + "/" + dtype_name(dtype) + "/" + layout_name(layout) + "/threads:1/" +
                  bench::entry_name(entry),
              Row{default_path(), layout, 1, entry, tokens}, BM_Rope<E>);
        }
    });
  auto baseline = [](const char* name, void (*fn)(benchmark::State&)) {
    benchmark::RegisterBenchmark(name, fn)->Arg(4096)->ArgName("tokens")->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.4);
  };
  baseline("baseline_f32_angle/f32/half", BM_Baseline<float, Implementation::f32_angle>);
  baseline("baseline_f64_angle/f32/half", BM_Baseline<float, Implementation::f64_angle>);
  baseline("baseline_f32_angle/bf16/half", BM_Baseline<Bf16Bits, Implementation::f32_angle>);
  // float16 with the f32-angle baseline: ggml's CPU arithmetic (accuracy/baselines.h).
  baseline("baseline_f32_angle/f16/half", BM_Baseline<F16Bits, Implementation::f32_angle>);
}

using bf16 = Bf16Bits;
using f16 = F16Bits;

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
  for (size_t i = 0; i < elements; ++i) in[i] = narrow_to<E>(x[i]);
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
  inputs("rope_inputs/f16/half/constant", BM_Inputs<f16, Input::constant>);
  inputs("rope_inputs/f16/half/random", BM_Inputs<f16, Input::random>);
  inputs("rope_inputs/f16/half/zeros", BM_Inputs<f16, Input::zeros>);
  inputs("rope_inputs/f16/half/cancelling", BM_Inputs<f16, Input::cancelling>);
}

// The control of the threads:2 rows: was the second core free, and is it a core of its own? Each
// pair runs the same per-thread work once on 1 thread and once on 2 threads at the same time
// (std::thread per run, as cpu::split_tokens starts its workers), in a seeded order; the counter
// efficiency is the median over the pairs of t(1 thread) / t(2 threads): 1 when the two threads ran
// on two free, independent cores, about 0.5 when they shared one (SMT siblings under a hypervisor,
// or the other core busy). compute: 8 independent multiply-add chains, no memory traffic (what a
// kernel bound by arithmetic can gain); memcpy: 64 MiB per thread between the thread's own buffers
// (what a kernel bound by memory can gain).
void BM_SecondCore(benchmark::State& state, bool memory) {
  constexpr std::size_t kBytes = std::size_t{64} << 20;
  std::vector<std::unique_ptr<accuracy::MemcpyBaseline>> copies;
  if (memory)
    for (int t = 0; t < 2; ++t) copies.push_back(std::make_unique<accuracy::MemcpyBaseline>(kBytes, 1));
  auto work = [&](int t) {
    if (memory) {
      copies[static_cast<size_t>(t)]->run();
      return;
    }
    double x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    for (int i = 0; i < (1 << 22); ++i)
      for (double& v : x) v = v * 0.999999 + 1e-6;
    benchmark::DoNotOptimize(x);
  };
  accuracy::PairOrders orders(accuracy::SplitMix64(g_seed + bench::g_runs++).next());
  std::vector<double> one, two, efficiency;
  for (auto _ : state) {
    const auto [t1, t2] = bench::time_two(orders.next(), [&] { work(0); }, [&] {
      std::thread other(work, 1);
      work(0);
      other.join();
    });
    one.push_back(t1);
    two.push_back(t2);
    efficiency.push_back(t1 / t2);
    state.SetIterationTime(t2);
  }
  if (efficiency.empty()) return;
  state.counters["one_thread_ms"] = 1e3 * accuracy::median(one);
  state.counters["two_threads_ms"] = 1e3 * accuracy::median(two);
  state.counters["efficiency"] = accuracy::median(efficiency);
  state.SetLabel(bench::cpu_model());
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
  std::optional<std::vector<char*>> args = bench::take_seed_flag(argc, argv);  // --seed=N is ours
  if (!args) return 2;
  int n = static_cast<int>(args->size());
  benchmark::AddCustomContext("pair_order_seed", std::to_string(g_seed));
  benchmark::AddCustomContext("pair_order", "each pair's order drawn from SplitMix64; run i seeded with SplitMix64(seed + i)");
  benchmark::AddCustomContext("cpu_model", bench::cpu_model());
  std::string paths;
  for (ropecheck::cpu::Path p : ropecheck::cpu::available_paths()) paths += (paths.empty() ? "" : " ") + ropecheck::cpu::path_name(p);
  benchmark::AddCustomContext("kernel_paths", paths);
  benchmark::AddCustomContext("default_path", ropecheck::cpu::path_name(ropecheck::cpu::default_path()));
  register_all();
  register_inputs();
  benchmark::RegisterBenchmark("control/second_core/compute", BM_SecondCore, false)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);
  benchmark::RegisterBenchmark("control/second_core/memcpy", BM_SecondCore, true)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);
  benchmark::RegisterBenchmark("sincos_table/tokens:4096/d:128", BM_SinCosTable)
      ->DenseRange(0, static_cast<int>(ropecheck::cpu::available_paths().size()) - 1)
      ->Unit(benchmark::kMicrosecond);
  benchmark::Initialize(&n, args->data());
  if (benchmark::ReportUnrecognizedArguments(n, args->data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

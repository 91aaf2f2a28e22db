// ropecheck's kernel and ggml's CPU rope (ggml_rope_ext) in one process, paired iteration by
// iteration (issue 43). Built only when CMake is pointed at a ggml checkout the user has:
//   cmake -S . -B build -DROPECHECK_GGML_DIR=/path/to/ggml && cmake --build build --target ropecheck_ggml_bench
// (bench/CMakeLists.txt builds ggml from that checkout with its own flags, -O3 and -march=native by
// its GGML_NATIVE default, and its own threadpool, GGML_OPENMP off; nothing of ggml is in this
// repository or downloaded). docs/kernel-performance.md has the commands and the table.
//
// Rows: ggml/DTYPE/LAYOUT/threads:N/tokens:L for every kernel dtype, both layouts (ggml NORMAL =
// interleaved, NEOX = half), N = 1 and 2, L = 4096 and 32768, the shape of kernel_bench.cpp
// ([L][32][128], theta 10000, positions 0..L-1, out of place, inputs uniform in (-4, 4) from
// accuracy::fill_uniform). ggml has no bfloat16 rope (its CPU rope takes F32 or F16), so the bf16
// rows time ropecheck's bf16 against ggml's f16 on the same values rounded to float16: the same
// bytes moved, not the same format.
// Each iteration is a timed pair: ggml's graph (one rope node, planned once, its threadpool of N
// threads made once and paused between computes so that its polling threads do not run beside
// ropecheck) and apply_rope(plan, positions, in, out, {default path, N}) with the sin/cos table
// built inside the call (kernel_bench.cpp's `internal` entry), in an order drawn from
// PairOrders(SplitMix64(seed + run)). The iteration time is ropecheck's (manual time). Counters,
// medians over the pairs: ggml_ms, ropecheck_ms, ggml_over_ropecheck (the median of the per-pair
// ratios ggml time / ropecheck time: above 1, ropecheck is faster), ropecheck_GBps. The label
// names the ropecheck path and the CPU. Every figure is a measurement on this machine: repeat with
// --benchmark_repetitions=5 --benchmark_report_aggregates_only=true and read the medians.
#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "ggml-cpu.h"
#include "ggml.h"
#include "kernel_bench_support.h"

namespace ropecheck::kernel::bench {
namespace {

// One ggml rope of [tokens][kHeads][kDim] in `type` (F32 or F16): its context (input, positions,
// the node), graph, threadpool and work buffer, made once per row.
class GgmlRope {
 public:
  GgmlRope(ggml_type type, Layout layout, std::int64_t tokens, int threads) {
    const std::size_t element = ggml_type_size(type);
    const std::size_t bytes = static_cast<std::size_t>(tokens) * kHeads * kDim * element;
    ggml_init_params params{};
    params.mem_size = 2 * bytes + static_cast<std::size_t>(tokens) * 4 + 4 * ggml_tensor_overhead() + ggml_graph_overhead() + (1 << 20);
    params.no_alloc = false;
    ctx_ = ggml_init(params);
    if (ctx_ == nullptr) throw std::runtime_error("ggml_init failed");
    in_ = ggml_new_tensor_3d(ctx_, type, kDim, kHeads, tokens);
    positions_ = ggml_new_tensor_1d(ctx_, GGML_TYPE_I32, tokens);
    auto* pos = static_cast<std::int32_t*>(positions_->data);
    for (std::int64_t t = 0; t < tokens; ++t) pos[t] = static_cast<std::int32_t>(t);
    const int mode = layout == Layout::interleaved ? 0 : GGML_ROPE_TYPE_NEOX;
    // theta 10000, no scaling: freq_scale 1, ext_factor 0, attn_factor 1, beta 0 (ggml.h's defaults).
    out_ = ggml_rope_ext(ctx_, in_, positions_, nullptr, kDim, mode, 0, 10000.0f, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f);
    graph_ = ggml_new_graph(ctx_);
    ggml_build_forward_expand(graph_, out_);
    ggml_threadpool_params tp = ggml_threadpool_params_default(threads);
    pool_ = ggml_threadpool_new(&tp);
    if (pool_ == nullptr) throw std::runtime_error("ggml_threadpool_new failed");
    plan_ = ggml_graph_plan(graph_, threads, pool_);
    work_.resize(plan_.work_size);
    plan_.work_data = work_.empty() ? nullptr : work_.data();
    std::memset(out_->data, 0, ggml_nbytes(out_));  // touched before timing
    ggml_threadpool_pause(pool_);
  }
  ~GgmlRope() {
    ggml_threadpool_free(pool_);
    ggml_free(ctx_);
  }
  GgmlRope(const GgmlRope&) = delete;
  GgmlRope& operator=(const GgmlRope&) = delete;

  void* input() { return in_->data; }
  std::size_t bytes() const { return ggml_nbytes(in_); }
  void run() {
    if (ggml_graph_compute(graph_, &plan_) != GGML_STATUS_SUCCESS) throw std::runtime_error("ggml_graph_compute failed");
    accuracy::clobber_memory(out_->data);
  }
  void pause() { ggml_threadpool_pause(pool_); }

 private:
  ggml_context* ctx_ = nullptr;
  ggml_tensor *in_ = nullptr, *positions_ = nullptr, *out_ = nullptr;
  ggml_cgraph* graph_ = nullptr;
  ggml_threadpool* pool_ = nullptr;
  ggml_cplan plan_{};
  std::vector<std::uint8_t> work_;
};

// ggml's input: the kernel's values as ggml's type (f32: the same floats; f16: the float16 bits, or
// bf16 values rounded to float16 for the bf16 rows).
template <typename E>
void copy_to_ggml(const E* values, std::size_t n, void* ggml_data, ggml_type type) {
  for (std::size_t i = 0; i < n; ++i) {
    const float v = static_cast<float>(widen(values[i]));
    if (type == GGML_TYPE_F32) static_cast<float*>(ggml_data)[i] = v;
    else static_cast<ggml_fp16_t*>(ggml_data)[i] = ggml_fp32_to_fp16(v);
  }
}

template <typename E>
void bm_pair(benchmark::State& state, Layout layout, int threads, std::int64_t tokens) {
  const ggml_type type = std::is_same_v<E, float> ? GGML_TYPE_F32 : GGML_TYPE_F16;
  const std::size_t n = static_cast<std::size_t>(tokens) * kHeads * kDim;
  accuracy::TouchedBuffer in(n * sizeof(E), 0), out(n * sizeof(E), 0);
  accuracy::fill_uniform(reinterpret_cast<E*>(in.data()), n, g_seed);
  GgmlRope ggml(type, layout, tokens, threads);
  copy_to_ggml(reinterpret_cast<const E*>(in.data()), n, ggml.input(), type);
  const RopePlan& plan = plan_for(layout);
  std::vector<std::int64_t> positions(static_cast<std::size_t>(tokens));
  for (std::int64_t t = 0; t < tokens; ++t) positions[static_cast<std::size_t>(t)] = t;
  const KernelOptions options{cpu::default_path(), threads, nullptr};
  auto ropecheck_run = [&] {
    apply_rope(plan, positions, dense_view(reinterpret_cast<const E*>(in.data()), tokens, kHeads, kDim),
               dense_view(reinterpret_cast<E*>(out.data()), tokens, kHeads, kDim), options);
  };
  accuracy::PairOrders orders(accuracy::SplitMix64(g_seed + g_runs++).next());
  std::vector<double> ggml_s, ropecheck_s, ratios;
  for (auto _ : state) {
    // ggml first when the order says "memcpy first"; its threadpool paused, untimed, right after it.
    const auto [g, r] = time_two(orders.next(), [&] { ggml.run(); }, ropecheck_run, [&] { ggml.pause(); });
    ggml_s.push_back(g);
    ropecheck_s.push_back(r);
    ratios.push_back(g / r);
    state.SetIterationTime(r);
  }
  if (ratios.empty()) return;
  state.counters["ggml_ms"] = 1e3 * accuracy::median(ggml_s);
  state.counters["ropecheck_ms"] = 1e3 * accuracy::median(ropecheck_s);
  state.counters["ggml_over_ropecheck"] = accuracy::median(ratios);
  state.counters["ropecheck_GBps"] = accuracy::gb_per_s(2.0 * static_cast<double>(n * sizeof(E)), accuracy::median(ropecheck_s));
  state.counters["ggml_GBps"] = accuracy::gb_per_s(2.0 * static_cast<double>(ggml.bytes()), accuracy::median(ggml_s));
  state.SetLabel(cpu::path_name(cpu::default_path()) + " on " + cpu_model() + (std::is_same_v<E, Bf16Bits> ? " (ggml: f16)" : ""));
}

void register_rows() {
  for_each_kernel_dtype([]<typename E>(Dtype dtype) {
    for (Layout layout : {Layout::interleaved, Layout::half})
      for (std::int64_t tokens : {std::int64_t{4096}, std::int64_t{32768}})
        for (int threads : {1, 2}) {
          const std::string name = "ggml/" + dtype_name(dtype) + "/" + layout_name(layout) + "/threads:" + std::to_string(threads) +
                                   "/tokens:" + std::to_string(tokens);
          benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& s) { bm_pair<E>(s, layout, threads, tokens); })
              ->UseManualTime()
              ->Unit(benchmark::kMillisecond)
              ->MinTime(tokens > 4096 ? 2.0 : 0.5);
        }
  });
}

}  // namespace
}  // namespace ropecheck::kernel::bench

int main(int argc, char** argv) {
  using namespace ropecheck::kernel::bench;
  std::optional<std::vector<char*>> args = take_seed_flag(argc, argv);  // --seed=N, as kernel_bench's
  if (!args) return 2;
  int n = static_cast<int>(args->size());
  benchmark::Initialize(&n, args->data());
  if (benchmark::ReportUnrecognizedArguments(n, args->data())) return 1;
  ggml_cpu_init();
#ifndef ROPECHECK_GGML_COMMIT
#define ROPECHECK_GGML_COMMIT ""
#endif
  benchmark::AddCustomContext("ggml_commit", ROPECHECK_GGML_COMMIT[0] != '\0' ? ROPECHECK_GGML_COMMIT : "unknown (not a git work tree)");
  benchmark::AddCustomContext("cpu_model", cpu_model());
  benchmark::AddCustomContext("pair_order_seed", std::to_string(g_seed));
  benchmark::AddCustomContext("ropecheck_path", ropecheck::cpu::path_name(ropecheck::cpu::default_path()));
  register_rows();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

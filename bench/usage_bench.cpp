// The usage analysis (usage/usage.h) on a Llama-3.1-8B-shaped synthetic capture: 32 layers, 32
// query heads on 8 kv heads, head_dim 128, float16, one sequence (4096 tokens: ~1.3 GB), read
// from a stored .npz. Goals (issue 31): analysed (usage, head kinds, both ablations; no breaking
// certificates) in <= 3 minutes on 2 cores, peak RSS <= 1.5x one layer's arrays plus a fixed
// amount. Counters: seconds, peak_rss_mb (getrusage: run ONE case per process for it to mean that
// case), layer_mb (one layer's q and k as stored). The attention is O(tokens^2) per head, so the
// rows at 1024 and 2048 tokens show the scaling.
//
//   build/bench/ropecheck_usage_bench --benchmark_filter='usage/4096/2/' --benchmark_out=usage.json --benchmark_out_format=json
//
// The capture is made once per token count by bench/make_usage_capture.py (NumPy) under
// $ROPECHECK_BENCH_DIR (default /tmp), and reused.
#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "spectrum/model_zoo.h"
#include "usage/usage.h"

#ifndef ROPECHECK_BENCH_SOURCE_DIR
#define ROPECHECK_BENCH_SOURCE_DIR "."
#endif

namespace {

std::string capture_for(long long tokens) {
  const char* dir = std::getenv("ROPECHECK_BENCH_DIR");
  const std::string path = std::string(dir ? dir : "/tmp") + "/ropecheck-usage-llama-" + std::to_string(tokens) + ".npz";
  if (!std::filesystem::exists(path)) {
    const std::string cmd = "/usr/bin/python3 " + std::string(ROPECHECK_BENCH_SOURCE_DIR) + "/bench/make_usage_capture.py " + path + " " +
                            std::to_string(tokens);
    if (std::system(cmd.c_str()) != 0) return "";
  }
  return path;
}

void usage_analysis(benchmark::State& state) {
  const long long tokens = state.range(0);
  const int threads = static_cast<int>(state.range(1));
  const std::string path = capture_for(tokens);
  if (path.empty()) {
    state.SkipWithError("could not make the capture (needs /usr/bin/python3 with NumPy)");
    return;
  }
  const ropecheck::ModelDescription model = ropecheck::load_model("llama-3.1-8b");
  ropecheck::usage::UsageOptions o;
  o.threads = threads;
  o.certify_breaks = false;
  double seconds = 0;
  for (auto _ : state) {
    auto source = ropecheck::usage::open_capture(path, "capture");
    const ropecheck::usage::UsageResult r = ropecheck::usage::analyse_usage(model, *source, o);
    seconds = r.seconds;
    benchmark::DoNotOptimize(r.layers.size());
  }
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  state.counters["seconds"] = seconds;
  state.counters["peak_rss_mb"] = static_cast<double>(u.ru_maxrss) / 1024;
  state.counters["layer_mb"] = static_cast<double>((32 + 8) * tokens * 128 * 2) / (1024 * 1024);
}

BENCHMARK(usage_analysis)->Name("usage")->ArgsProduct({{1024, 2048, 4096}, {1, 2}})->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();

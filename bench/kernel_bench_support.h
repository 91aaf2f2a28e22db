// File: kernel_bench_support.h
// What bench/kernel_bench.cpp's rows share (its header comment says what they measure): the shape,
// the plans, the entries a row goes through, the one place a kernel dtype gets its element type
// and C ABI functions, the kept buffers, and the timed pairs against memcpy.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "accuracy/memory_speed.h"
#include "cpu/path.h"
#include "numeric/small_floats.h"
#include "kernel/apply_rope.h"
#include "kernel/c_api.h"
#include "numeric/dtype.h"
#include "spectrum/layout.h"

namespace ropecheck::kernel::bench {

inline constexpr int kHeads = 32, kDim = 128;

inline std::uint64_t g_seed = 1;  // --seed
inline std::uint64_t g_runs = 0;  // benchmark runs so far: run i orders its pairs with seed + i

// How a row calls the kernel.
enum class Entry {
  internal,     // apply_rope(plan, positions, in, out, {path, threads}): the table built inside the call
  precomputed,  // apply_rope(table, in, out, {path, threads}) with a SinCosTable built beforehand (untimed)
  c_abi,        // ropecheck_plan_apply_f32/_bf16/_f16 (libropecheck.so) on a plan from a config.json text
  c_abi_v1,     // ropecheck_apply_rope_f32/_bf16/_f16 (libropecheck.so, version-1 spec) on a ropecheck_rope_spec
  floor,        // the bench-only floor (kernel/floor.h) in apply_rope's own loop: NOT correctly rounded
};
inline const char* entry_name(Entry e) {
  switch (e) {
    case Entry::internal: return "internal";
    case Entry::precomputed: return "precomputed";
    case Entry::c_abi: return "c_abi";
    case Entry::c_abi_v1: return "c_abi_v1";
    case Entry::floor: return "floor";
  }
  return "";
}

// ---- the kernel dtypes: the one place a dtype gets its element type and C ABI functions ----------

template <typename E>
struct DtypeCalls;
template <>
struct DtypeCalls<float> {
  static constexpr auto v1 = &ropecheck_apply_rope_f32;
  static constexpr auto plan = &ropecheck_plan_apply_f32;
};
template <>
struct DtypeCalls<Bf16Bits> {
  static constexpr auto v1 = &ropecheck_apply_rope_bf16;
  static constexpr auto plan = &ropecheck_plan_apply_bf16;
};
template <>
struct DtypeCalls<F16Bits> {
  static constexpr auto v1 = &ropecheck_apply_rope_f16;
  static constexpr auto plan = &ropecheck_plan_apply_f16;
};

// Calls f.template operator()<E>(dtype) for every kernel dtype (kKernelDtypes), E its element type.
// A new kernel dtype is a case here (the build's -Werror=switch lists it) and a DtypeCalls entry.
template <typename F>
void for_each_kernel_dtype(F&& f) {
  for (Dtype t : kKernelDtypes) {
    switch (t) {
      case Dtype::f32: f.template operator()<float>(t); break;
      case Dtype::bf16: f.template operator()<Bf16Bits>(t); break;
      case Dtype::f16: f.template operator()<F16Bits>(t); break;
      case Dtype::f64: throw std::logic_error("f64 is not a kernel dtype");
    }
  }
}

// ---- plans ------------------------------------------------------------------------------------

inline const RopePlan& plan_for(Layout layout) {
  static const RopePlan interleaved(Spectrum(kDim, "10000"), Layout::interleaved);
  static const RopePlan half(Spectrum(kDim, "10000"), Layout::half);
  return layout == Layout::interleaved ? interleaved : half;
}

// The C ABI's description of plan_for(layout): version 1's spec, and version 2's plan from a
// config.json text with the same geometry (head 128 = 4096 / 32, theta 10000, factor 1; the half
// layout is Mistral's, the interleaved one Cohere's reference code). Null with *error set when the
// library's plan is not that geometry.
inline ropecheck_rope_spec c_spec(Layout layout) {
  return ropecheck_rope_spec{kDim, "10000", "rope", nullptr, layout == Layout::interleaved ? "interleaved" : "half"};
}
inline const ropecheck_plan* c_plan(Layout layout, std::string* error) {
  struct Held {
    ropecheck_plan* plan = nullptr;
    std::string error;
    ~Held() { ropecheck_plan_free(plan); }
  };
  auto make = [](Layout l) {
    Held h;
    const std::string config = std::string(R"({"model_type": ")") + (l == Layout::interleaved ? "cohere" : "mistral") +
                               R"(", "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 1,
                                   "max_position_embeddings": 32768, "rope_theta": 10000})";
    if (ropecheck_plan_from_model(nullptr, config.c_str(), nullptr, 0, &h.plan) != ROPECHECK_OK) {
      h.error = std::string("ropecheck_plan_from_model: ") + ropecheck_last_error();
    } else if (ropecheck_plan_head_dim(h.plan) != kDim || ropecheck_plan_rotary_dims(h.plan) != kDim ||
               ropecheck_plan_rotary_offset(h.plan) != 0 || ropecheck_plan_attention_factor(h.plan) != 1.0 ||
               std::string(ropecheck_plan_layout(h.plan)) != layout_name(l)) {
      h.error = std::string("the C ABI plan is not the benchmark's: ") + ropecheck_plan_describe(h.plan);
    }
    return h;
  };
  static const Held interleaved = make(Layout::interleaved), half = make(Layout::half);
  const Held& h = layout == Layout::interleaved ? interleaved : half;
  if (!h.error.empty()) {
    *error = h.error;
    return nullptr;
  }
  return h.plan;
}

// Runs `body` with ROPECHECK_KERNEL=path (how the C ABI chooses its path: cpu::default_path(),
// read at every call), then restores the variable. Returns false with *error set when the library
// reports another path.
inline bool with_c_abi_path(cpu::Path path, std::string* error, const std::function<void()>& body) {
  const char* before = std::getenv("ROPECHECK_KERNEL");
  const std::optional<std::string> saved = before ? std::optional<std::string>(before) : std::nullopt;
  setenv("ROPECHECK_KERNEL", cpu::path_name(path).c_str(), 1);
  const std::string runs = ropecheck_kernel_path();
  const bool ok = runs == cpu::path_name(path);
  if (!ok) *error = "libropecheck.so runs path '" + runs + "', not " + cpu::path_name(path);
  else body();
  if (saved) setenv("ROPECHECK_KERNEL", saved->c_str(), 1);
  else unsetenv("ROPECHECK_KERNEL");
  return ok;
}

// ---- buffers ----------------------------------------------------------------------------------

// The kernel's input (accuracy::fill_uniform, seeded by --seed) and output and the baseline's two
// buffers, all touched; kept from one run to the next while the size, type and thread count stay
// (rows are registered grouped so), so that a run does not spend a second on page faults of up to
// 2 GiB. The baseline copies with the row's thread count (memory_speed.h).
struct Buffers {
  Buffers(std::size_t bytes, std::size_t element_size) : in(bytes, 0), out(bytes, 0), element_size(element_size) {}
  accuracy::TouchedBuffer in, out;
  std::unique_ptr<accuracy::MemcpyBaseline> baseline;
  std::size_t element_size;
};
template <typename E>
Buffers& buffers_for(std::size_t bytes, int threads) {
  static std::unique_ptr<Buffers> held;
  if (!held || held->in.size() != bytes || held->element_size != sizeof(E)) {
    held.reset();
    held = std::make_unique<Buffers>(bytes, sizeof(E));
    accuracy::fill_uniform(reinterpret_cast<E*>(held->in.data()), bytes / sizeof(E), g_seed);
  }
  if (!held->baseline || held->baseline->threads() != threads) {
    held->baseline.reset();
    held->baseline = std::make_unique<accuracy::MemcpyBaseline>(bytes, threads);
  }
  return *held;
}

// ---- timing -----------------------------------------------------------------------------------

// The timed pairs of one row (memory_speed.h): `run` against the baseline's memcpy, in seeded
// orders; the iteration time is the kernel's (manual time). Counters: GBps = (read + written
// bytes) / kernel time, memcpy_GBps, ratio_to_memcpy (median of the per-pair ratios), all medians
// over the row's pairs.
inline void time_pairs(benchmark::State& state, accuracy::MemcpyBaseline& baseline, std::size_t bytes,
                       const std::function<void()>& run) {
  accuracy::PairOrders orders(accuracy::SplitMix64(g_seed + g_runs++).next());
  std::vector<accuracy::PairTiming> pairs;
  for (auto _ : state) {
    pairs.push_back(accuracy::time_against_memcpy(baseline, run, orders.next()));
    state.SetIterationTime(pairs.back().seconds);
  }
  if (pairs.empty()) return;
  const accuracy::SpeedSummary summary = accuracy::summarize_speed(pairs);
  const double moved = 2.0 * static_cast<double>(bytes);
  state.counters["GBps"] = accuracy::gb_per_s(moved, summary.median_seconds);
  state.counters["memcpy_GBps"] = accuracy::gb_per_s(moved, summary.median_memcpy_seconds);
  state.counters["ratio_to_memcpy"] = summary.ratio_to_memcpy;
  state.counters["memcpy_threads"] = baseline.threads();
}

// Two runs timed alone (std::chrono::steady_clock) in a seeded order, for rows that pair two
// implementations instead of one against memcpy: a first when `order` is memcpy_first, else b
// first; `after_a` (optional) runs untimed right after a. Returns (a's seconds, b's seconds).
inline std::pair<double, double> time_two(accuracy::PairOrder order, const std::function<void()>& a, const std::function<void()>& b,
                                          const std::function<void()>& after_a = {}) {
  auto seconds = [](const std::function<void()>& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  double ta = 0, tb = 0;
  if (order == accuracy::PairOrder::memcpy_first) {
    ta = seconds(a);
    if (after_a) after_a();
    tb = seconds(b);
  } else {
    tb = seconds(b);
    ta = seconds(a);
    if (after_a) after_a();
  }
  return {ta, tb};
}

// Takes our --seed=N out of argv into g_seed and returns the rest for Google Benchmark; nullopt,
// after one line on stderr, for a value that is not an unsigned integer.
inline std::optional<std::vector<char*>> take_seed_flag(int argc, char** argv) {
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (i > 0 && std::strncmp(argv[i], "--seed=", 7) == 0) {
      char* end = nullptr;
      g_seed = std::strtoull(argv[i] + 7, &end, 0);
      if (end == argv[i] + 7 || *end != '\0') {
        std::fprintf(stderr, "--seed wants an unsigned integer, got '%s'\n", argv[i] + 7);
        return std::nullopt;
      }
    } else {
      rest.push_back(argv[i]);
    }
  }
  return rest;
}

// The CPU's model name (/proc/cpuinfo), for the context and the labels; "" when unknown.
inline const std::string& cpu_model() {
  static const std::string model = [] {
    std::string m;
    if (FILE* f = std::fopen("/proc/cpuinfo", "r")) {
      char line[512];
      while (std::fgets(line, sizeof line, f)) {
        const std::string s = line;
        if (s.rfind("model name", 0) != 0) continue;
        const auto colon = s.find(':');
        if (colon != std::string::npos) m = s.substr(colon + 1);
        while (!m.empty() && (m.front() == ' ' || m.front() == '\t')) m.erase(m.begin());
        while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
        break;
      }
      std::fclose(f);
    }
    return m;
  }();
  return model;
}

}  // namespace ropecheck::kernel::bench

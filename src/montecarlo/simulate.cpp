#include "montecarlo/simulate.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "attention/activation.h"
#include "cpu/thread_count.h"
#include "io/input_error.h"
#include "kernel/apply_rope.h"
#include "numeric/small_floats.h"
#include "kernel/rope_plan.h"
#include "kernel/sincos_table.h"
#include "montecarlo/progress.h"
#include "montecarlo/random_positions.h"
#include "montecarlo/streams.h"
#include "numeric/float32_dot.h"
#include "random/counter_rng.h"
#include "random/normal_sampler.h"
#include "statistics/inference.h"

namespace ropecheck::montecarlo {

namespace {

// The normalised activation (1/d) a(r) of pair products u, w at the distance whose cos/sin row is
// (c, s) (attention/activation.h's lagged_activation, d = 2 pairs).
double activation_f64(const double* u, const double* w, const double* c, const double* s, int pairs) {
  return lagged_activation(u, w, c, s, pairs) / static_cast<double>(2 * pairs);
}

// cos/sin rows of every pair for a list of distances (gaps), from the kernel's exactly
// range-reduced table (|error| <= 2^-50, the same bits on every machine: no libm).
struct RowTable {
  int pairs = 0;
  std::vector<double> c, s;  // [t * pairs + k]
  const double* cos_row(std::int64_t t) const { return c.data() + t * pairs; }
  const double* sin_row(std::int64_t t) const { return s.data() + t * pairs; }
};

RowTable row_table(const Spectrum& spectrum, std::int64_t rows, int threads) {
  const kernel::RopePlan plan(spectrum, kernel::Layout::interleaved);
  std::vector<std::int64_t> positions(static_cast<size_t>(rows));
  for (std::int64_t t = 0; t < rows; ++t) positions[static_cast<size_t>(t)] = t;
  const kernel::SinCosTable table(plan, positions, cpu::default_path(), threads);
  RowTable out;
  out.pairs = spectrum.pairs();
  out.c.assign(static_cast<size_t>(rows * out.pairs), 1.0);  // pairs past the block: identity
  out.s.assign(static_cast<size_t>(rows * out.pairs), 0.0);
  const int block = plan.block_pairs();
  for (std::int64_t t = 0; t < rows; ++t)
    for (int k = 0; k < block; ++k) {
      if (plan.identity(k)) continue;  // frequency 0: cos 1, sin 0 exactly
      out.c[static_cast<size_t>(t * out.pairs + k)] = table.cos_row(t)[k];
      out.s[static_cast<size_t>(t * out.pairs + k)] = table.sin_row(t)[k];
    }
  return out;
}

// An unbiased-enough uniform integer in [lo, hi]: the high 64 bits of bits * (hi - lo + 1), whose
// bias is below (hi - lo + 1) / 2^64 < 2^-40 for any window here.
std::int64_t uniform_in(std::uint64_t bits, std::int64_t lo, std::int64_t hi) {
  const unsigned __int128 m = static_cast<unsigned __int128>(bits) * static_cast<std::uint64_t>(hi - lo + 1);
  return lo + static_cast<std::int64_t>(m >> 64);
}

std::vector<double> ones_curve_of(const RowTable& rows, std::int64_t n) {
  const std::vector<double> u(static_cast<size_t>(rows.pairs), 2.0), w(static_cast<size_t>(rows.pairs), 0.0);
  std::vector<double> f(static_cast<size_t>(n));
  for (std::int64_t t = 0; t < n; ++t) f[static_cast<size_t>(t)] = activation_f64(u.data(), w.data(), rows.cos_row(t), rows.sin_row(t), rows.pairs);
  return f;
}

// Everything a series needs, computed once and shared read-only by the threads.
struct SeriesContext {
  const Params* params;
  const SeriesSpec* spec;
  int d = 0, pairs = 0;
  std::int64_t distances = 0;     // R + 1 (fig8: n)
  RowTable rows;                  // f64: cos/sin of distance (fig8: of gap) t
  std::vector<double> ones_curve; // fig8 ones, f64: the activation of q = k = 1 at gap t
  std::vector<double> weights;    // least-squares slope weights over distances
  std::unique_ptr<kernel::RopePlan> plan;          // f32/bf16
  std::unique_ptr<kernel::SinCosTable> q_table, k_table;  // f32/bf16, fixed positions
};

class Worker {
 public:
  explicit Worker(const SeriesContext& ctx) : ctx_(ctx) {
    acc_.distance.resize(static_cast<size_t>(ctx.distances));
    const size_t n = static_cast<size_t>(ctx.distances);
    a_.resize(n);
    normals_.resize(static_cast<size_t>(2 * ctx.d));
    u_.resize(static_cast<size_t>(ctx.pairs));
    w_.resize(static_cast<size_t>(ctx.pairs));
  }

  void trial(std::int64_t t) {
    const Params& p = *ctx_.params;
    if (p.arith == Dtype::f64) trial_f64(t);
    else trial_kernel(t);
    for (std::int64_t r = 0; r < ctx_.distances; ++r) {
      acc_.distance[static_cast<size_t>(r)].add(a_[static_cast<size_t>(r)]);
    }
    // The trial's least-squares slope (of x^2 for the variance experiment: its mean is the
    // slope of the variance in r).
    double b = 0;
    for (std::int64_t r = 0; r < ctx_.distances; ++r) {
      const double x = a_[static_cast<size_t>(r)];
      b = b + ctx_.weights[static_cast<size_t>(r)] * (p.experiment == Experiment::variance ? x * x : x);
    }
    acc_.slope.add(b);
    if (!p.deterministic()) {
      const CounterRng rng(p.seed, stream_id(ctx_.spec->code, kChoiceDistance, static_cast<std::uint64_t>(t)));
      const std::int64_t r = (t % 2 == 0) ? uniform_in(rng.bits(0), 0, p.near_end())
                                          : uniform_in(rng.bits(0), p.far_begin(), p.max_distance);
      acc_.choice.emplace_back(t, a_[static_cast<size_t>(r)]);
    }
  }

  SeriesAccumulator& accumulator() { return acc_; }

 private:
  void gaussian(std::uint64_t distance, std::int64_t t) {
    normal_fill(ctx_.params->seed, stream_id(ctx_.spec->code, distance, static_cast<std::uint64_t>(t)), 0, normals_);
  }

  double finish(double sum) const {
    // The activation is normalised by 1/d; the variance experiment keeps q^T R k itself.
    return ctx_.params->experiment == Experiment::variance ? sum : sum / static_cast<double>(ctx_.d);
  }

  void trial_f64(std::int64_t t) {
    const Params& p = *ctx_.params;
    const int P = ctx_.pairs, d = ctx_.d;
    const bool ones = ctx_.spec->vectors == Vectors::ones;
    if (p.experiment == Experiment::fig2b || p.experiment == Experiment::variance) {
      for (std::int64_t r = 0; r < ctx_.distances; ++r) {
        gaussian(static_cast<std::uint64_t>(r), t);
        pair_products(normals_.data(), normals_.data() + d, P, u_.data(), w_.data());
        a_[static_cast<size_t>(r)] = finish(lagged_activation(u_.data(), w_.data(), ctx_.rows.cos_row(r), ctx_.rows.sin_row(r), P));
      }
      return;
    }
    if (ones) {
      std::fill(u_.begin(), u_.end(), 2.0);  // u = 1*1 + 1*1 = 2, w = 1*1 - 1*1 = 0
      std::fill(w_.begin(), w_.end(), 0.0);
    } else {
      gaussian(0, t);
      pair_products(normals_.data(), normals_.data() + d, P, u_.data(), w_.data());
    }
    if (p.experiment == Experiment::fig8) {
      positions(t);
      for (std::int64_t r = 0; r < ctx_.distances; ++r) {
        const std::int64_t gap = pos_[static_cast<size_t>(r)] - pos_[0];
        a_[static_cast<size_t>(r)] = ones ? ctx_.ones_curve[static_cast<size_t>(gap)]
                                          : finish(lagged_activation(u_.data(), w_.data(), ctx_.rows.cos_row(gap), ctx_.rows.sin_row(gap), P));
      }
      return;
    }
    for (std::int64_t r = 0; r < ctx_.distances; ++r)
      a_[static_cast<size_t>(r)] = finish(lagged_activation(u_.data(), w_.data(), ctx_.rows.cos_row(r), ctx_.rows.sin_row(r), P));
  }

  void positions(std::int64_t t) {
    const Params& p = *ctx_.params;
    pos_ = random_positions(p.fig8_n, ctx_.spec->L, p.seed,
                            stream_id(ctx_.spec->code, kPositionsDistance, static_cast<std::uint64_t>(t)), 0);
  }

  // f32/bf16: q and k rounded to the format, rotated at their positions by the production kernel,
  // dotted in float (dot_f32_eight_lanes).
  template <typename T>
  static T to_format(double x) {
    return narrow_to<T>(static_cast<float>(x));  // bf16 through float, as the finite verdicts round
  }
  template <typename T>
  static float from_format(T x) {
    return static_cast<float>(widen(x));  // exact
  }

  template <typename T>
  void trial_kernel_typed(std::int64_t t) {
    const Params& p = *ctx_.params;
    const int d = ctx_.d;
    const std::int64_t n = ctx_.distances;
    const bool ones = ctx_.spec->vectors == Vectors::ones;
    const bool fresh = p.experiment == Experiment::fig2b || p.experiment == Experiment::variance;
    std::vector<T>& q = buffer<T>(0, static_cast<size_t>(n * d));
    std::vector<T>& k = buffer<T>(1, static_cast<size_t>((fresh ? n : 1) * d));
    auto fill = [&](T* dst_q, T* dst_k) {
      for (int i = 0; i < d; ++i) {
        dst_q[i] = to_format<T>(ones ? 1.0 : normals_[static_cast<size_t>(i)]);
        dst_k[i] = to_format<T>(ones ? 1.0 : normals_[static_cast<size_t>(d + i)]);
      }
    };
    if (fresh) {
      for (std::int64_t r = 0; r < n; ++r) {
        gaussian(static_cast<std::uint64_t>(r), t);
        fill(q.data() + r * d, k.data() + r * d);
      }
    } else {
      if (!ones) gaussian(0, t);
      fill(q.data(), k.data());
      for (std::int64_t r = 1; r < n; ++r) std::copy(q.data(), q.data() + d, q.data() + r * d);
    }
    std::vector<T>& qr = buffer<T>(2, q.size());
    std::vector<T>& kr = buffer<T>(3, k.size());
    const kernel::KernelOptions one_thread{cpu::default_path(), 1};
    const std::int64_t k_tokens = fresh ? n : 1;
    if (p.experiment == Experiment::fig8) {
      positions(t);
      std::vector<std::int64_t> qpos(static_cast<size_t>(n));
      for (std::int64_t r = 0; r < n; ++r) qpos[static_cast<size_t>(r)] = p.base_position + pos_[static_cast<size_t>(r)];
      const std::int64_t kpos = p.base_position + pos_[0];
      kernel::apply_rope(*ctx_.plan, qpos, kernel::dense_view<const T>(q.data(), n, 1, d), kernel::dense_view<T>(qr.data(), n, 1, d), one_thread);
      kernel::apply_rope(*ctx_.plan, std::span<const std::int64_t>(&kpos, 1), kernel::dense_view<const T>(k.data(), 1, 1, d),
                         kernel::dense_view<T>(kr.data(), 1, 1, d), one_thread);
    } else {
      kernel::apply_rope(*ctx_.q_table, kernel::dense_view<const T>(q.data(), n, 1, d), kernel::dense_view<T>(qr.data(), n, 1, d), one_thread);
      if (fresh) {
        kernel::apply_rope(*ctx_.k_table, kernel::dense_view<const T>(k.data(), k_tokens, 1, d), kernel::dense_view<T>(kr.data(), k_tokens, 1, d), one_thread);
      } else {
        const std::int64_t kpos = p.base_position;
        kernel::apply_rope(*ctx_.plan, std::span<const std::int64_t>(&kpos, 1), kernel::dense_view<const T>(k.data(), 1, 1, d),
                           kernel::dense_view<T>(kr.data(), 1, 1, d), one_thread);
      }
    }
    std::vector<float>& xf = fbuf_[0];
    std::vector<float>& yf = fbuf_[1];
    xf.resize(static_cast<size_t>(d));
    yf.resize(static_cast<size_t>(d));
    for (std::int64_t r = 0; r < n; ++r) {
      const T* x = qr.data() + r * d;
      const T* y = kr.data() + (fresh ? r : 0) * d;
      for (int i = 0; i < d; ++i) {
        xf[static_cast<size_t>(i)] = from_format<T>(x[i]);
        yf[static_cast<size_t>(i)] = from_format<T>(y[i]);
      }
      const float sum = dot_f32_eight_lanes(xf.data(), yf.data(), d);
      a_[static_cast<size_t>(r)] = p.experiment == Experiment::variance ? static_cast<double>(sum)
                                                                      : static_cast<double>(sum / static_cast<float>(d));
    }
  }

  void trial_kernel(std::int64_t t) {
    switch (ctx_.params->arith) {
      case Dtype::f32: return trial_kernel_typed<float>(t);
      case Dtype::bf16: return trial_kernel_typed<Bf16Bits>(t);
      case Dtype::f16:  // not a Monte Carlo arithmetic (parse_arith refuses it)
      case Dtype::f64: break;
    }
    throw std::logic_error("simulate: --arith " + dtype_name(ctx_.params->arith) + " has no kernel trial");
  }

  template <typename T>
  std::vector<T>& buffer(int i, size_t size) {
    std::vector<T>* v;
    if constexpr (std::is_same_v<T, float>) v = &fbuf_[2 + i];
    else v = &hbuf_[i];
    v->resize(size);
    return *v;
  }

  const SeriesContext& ctx_;
  SeriesAccumulator acc_;
  std::vector<double> a_, normals_, u_, w_;
  std::vector<std::int64_t> pos_;
  std::vector<float> fbuf_[6];
  std::vector<Bf16Bits> hbuf_[4];
};

}  // namespace

void validate(const Params& p, const Shard& shard, const RunOptions& o) {
  cpu::check_thread_count(o.threads, "--threads");
  if (shard.count < 1 || shard.index < 0 || shard.index >= shard.count)
    throw InputError("--shard", "K/N with 0 <= K < N", std::to_string(shard.index) + "/" + std::to_string(shard.count));
  if (p.max_distance < 10 || p.max_distance > kMaxDistance)
    throw InputError(p.experiment == Experiment::fig8 ? "--fig8-n" : "--max-distance",
                     p.experiment == Experiment::fig8 ? "an integer in [11, 2^24 - 2]" : "an integer in [10, 2^24 - 3]", std::to_string(p.max_distance));
  if (p.series.empty() || p.series.size() > 16) throw InputError("series", "1 to 16 series", std::to_string(p.series.size()));
  if (p.arith != Dtype::f64 && (p.base_position < 0 || p.base_position > (std::int64_t{1} << 62)))
    throw InputError("--base-position", "an integer in [0, 2^62]", std::to_string(p.base_position));
  for (const SeriesSpec& s : p.series) {
    if (p.deterministic()) {
      if (s.trials != 1) throw InputError("--trials", "1 for the deterministic fig2a", std::to_string(s.trials));
    } else if (s.trials < 2 || s.trials > kMaxTrials) {
      throw InputError("--trials", "an integer in [2, 2^32]", std::to_string(s.trials));
    }
    if (shard.count > s.trials)
      throw InputError("--shard", "K/N with N <= the trials (" + std::to_string(s.trials) + ")", std::to_string(shard.index) + "/" + std::to_string(shard.count));
    if (p.experiment != Experiment::fig8) continue;
    if (s.L < p.fig8_n) throw InputError("--fig8-L", "values >= n = " + std::to_string(p.fig8_n) + " (positions are drawn without replacement from [0, L))", std::to_string(s.L));
    // f64 keeps a cos/sin row per gap: bound the table (2^25 entries of 16 bytes = 512 MiB).
    if (p.arith == Dtype::f64 && s.L > (std::int64_t{1} << 25) / s.spectrum.pairs())
      throw InputError("--fig8-L", "values <= 2^25 / (d/2) = " + std::to_string((std::int64_t{1} << 25) / s.spectrum.pairs()) + " with --arith f64", std::to_string(s.L));
  }
}

namespace {

SeriesContext make_context(const Params& p, const SeriesSpec& s, int threads) {
  SeriesContext ctx;
  ctx.params = &p;
  ctx.spec = &s;
  ctx.d = s.spectrum.dim();
  ctx.pairs = s.spectrum.pairs();
  ctx.distances = p.max_distance + 1;
  ctx.weights = statistics::slope_weights(ctx.distances);
  if (p.arith == Dtype::f64) {
    const std::int64_t rows = p.experiment == Experiment::fig8 ? s.L : ctx.distances;
    ctx.rows = row_table(s.spectrum, rows, threads);
    if (p.experiment == Experiment::fig8 && s.vectors == Vectors::ones) ctx.ones_curve = ones_curve_of(ctx.rows, rows);
  } else {
    ctx.plan = std::make_unique<kernel::RopePlan>(s.spectrum, kernel::Layout::interleaved);
    if (p.experiment != Experiment::fig8) {
      std::vector<std::int64_t> qpos(static_cast<size_t>(ctx.distances));
      for (std::int64_t r = 0; r < ctx.distances; ++r) qpos[static_cast<size_t>(r)] = p.base_position + r;
      ctx.q_table = std::make_unique<kernel::SinCosTable>(*ctx.plan, qpos, cpu::default_path(), threads);
      // fig2b/variance: one key per distance, every one at the base position. (fig2a/fig9 rotate
      // their single key directly.)
      if (p.experiment == Experiment::fig2b || p.experiment == Experiment::variance) {
        const std::vector<std::int64_t> kpos(static_cast<size_t>(ctx.distances), p.base_position);
        ctx.k_table = std::make_unique<kernel::SinCosTable>(*ctx.plan, kpos, cpu::default_path(), threads);
      }
    }
  }
  return ctx;
}

}  // namespace

std::vector<double> all_ones_curve(const Spectrum& spectrum, std::int64_t rows, int threads) {
  return ones_curve_of(row_table(spectrum, rows, threads), rows);
}

Partial simulate(const Params& p, const Shard& shard, const RunOptions& o) {
  validate(p, shard, o);
  Partial out;
  out.params = p;
  out.shards = {shard};
  std::uint64_t total = 0;
  for (const SeriesSpec& s : p.series) total += static_cast<std::uint64_t>(shard.trial_end(s.trials) - shard.trial_begin(s.trials));
  Progress progress(experiment_name(p.experiment), total, "trials", o.progress && isatty(STDERR_FILENO) == 1);
  for (const SeriesSpec& s : p.series) {
    const std::int64_t begin = shard.trial_begin(s.trials), end = shard.trial_end(s.trials);
    const SeriesContext ctx = make_context(p, s, o.threads);
    const int threads = static_cast<int>(std::min<std::int64_t>(o.threads, end - begin));
    std::vector<std::unique_ptr<Worker>> workers;
    for (int i = 0; i < std::max(threads, 1); ++i) workers.push_back(std::make_unique<Worker>(ctx));
    std::atomic<std::int64_t> next{begin};
    std::exception_ptr error;
    std::mutex error_mutex;
    auto work = [&](Worker& w) {
      try {
        for (;;) {
          const std::int64_t t = next.fetch_add(1);
          if (t >= end) break;
          w.trial(t);
          progress.advance(1);
        }
      } catch (...) {
        const std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        next.store(end);
      }
    };
    if (workers.size() == 1) {
      work(*workers[0]);
    } else {
      std::vector<std::thread> pool;
      for (auto& w : workers) pool.emplace_back(work, std::ref(*w));
      for (auto& th : pool) th.join();
    }
    if (error) std::rethrow_exception(error);
    SeriesAccumulator total;
    total.distance.resize(static_cast<size_t>(ctx.distances));
    for (auto& w : workers) total.add(w->accumulator());  // exact: the order cannot matter
    out.series.push_back(std::move(total));
  }
  progress.finish();
  return out;
}

}  // namespace ropecheck::montecarlo

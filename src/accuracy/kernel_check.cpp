#include "accuracy/kernel_check.h"

#include "accuracy/detail/mpfr_workers.h"
#include "accuracy/report_format.h"
#include "accuracy/sample_values.h"

#include <bit>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sstream>

#include "io/input_error.h"
#include "io/version.h"
#include "kernel/apply_rope.h"
#include "accuracy/baselines.h"
#include "numeric/small_floats.h"
#include "cpu/path.h"
#include "accuracy/rope_reference.h"
#include "random/counter_rng.h"

namespace ropecheck::accuracy {
namespace {

constexpr int kH = kKernelCheckHeads;
// Random streams: positions 1, then one per kernel dtype in kKernelDtypes' order (f32 2, bf16 3,
// f16 4), so that adding a format changes no other format's samples.
constexpr std::uint64_t kPositionStream = 1;
std::uint64_t stream_of(Dtype f) { return 2 + kernel_dtype_index(f); }
constexpr std::uint64_t kF32Stream = 2;  // also draws the near-cancellation side of every format
constexpr std::int64_t kSpecialTokens = 4;

// Draws per element: index (element * 8 + j) of the format's stream.
struct Draw {
  const CounterRng& rng;
  std::uint64_t element;
  std::uint64_t operator()(int j) const { return rng.bits(element * 8 + static_cast<std::uint64_t>(j)); }
};

const float kSpecials[] = {INFINITY, -INFINITY, std::numeric_limits<float>::quiet_NaN(), 1.0f, -2.0f, 0.0f, -0.0f, FLT_MAX};

struct Samples {
  std::vector<std::int64_t> positions;
  std::vector<float> f32;
  std::vector<Bf16Bits> bf16;
  std::vector<F16Bits> f16;
  template <typename E>
  std::vector<E>& of() {
    if constexpr (std::is_same_v<E, float>) return f32;
    else if constexpr (std::is_same_v<E, Bf16Bits>) return bf16;
    else {
      static_assert(std::is_same_v<E, F16Bits>, "Samples::of: a kernel dtype without its vector");
      return f16;
    }
  }
};

// One element of kind `kind` (the head index) of element type E from its format's draws d
// (bit-pattern kinds draw the format's own patterns; value kinds round a float to the format).
template <typename E>
E element(int kind, const Draw& d) {
  switch (kind) {
    case 0: return finite_pattern<E>(d(0));
    case 3: return d(1) % 4 != 0 ? edge_value<E>(d(0) % kEdgeValues) : finite_pattern<E>(d(2));
    default: return narrow_to<E>(moderate_f32(d(0)));
  }
}

std::int64_t log_uniform_position(const CounterRng& rng, std::uint64_t i, std::int64_t max_position) {
  const auto P = static_cast<std::uint64_t>(max_position);
  const int bitlen = 64 - std::countl_zero(P);
  const auto L = static_cast<int>(rng.bits(2 * i) % static_cast<std::uint64_t>(bitlen + 1));
  if (L == 0) return 0;
  const std::uint64_t lo = std::uint64_t{1} << (L - 1);
  const std::uint64_t hi = std::min(P, L == 64 ? std::numeric_limits<std::uint64_t>::max() : (std::uint64_t{1} << L) - 1);
  return static_cast<std::int64_t>(lo + rng.bits(2 * i + 1) % (hi - lo + 1));
}

// Fills tokens [t0, t1) of format E's samples (positions already set).
template <typename E>
void generate(const kernel::RopePlan& plan, const KernelCheckOptions& o, std::int64_t special_from, Samples& s, std::int64_t t0,
              std::int64_t t1, RopeReference& ref) {
  const int dim = plan.dim();
  const CounterRng rng(o.seed, stream_of(dtype_of<E>)), r32(o.seed, kF32Stream);
  std::vector<E>& x = s.of<E>();
  for (std::int64_t t = t0; t < t1; ++t) {
    const bool special = t >= special_from;
    if (!special) ref.set_position(s.positions[static_cast<size_t>(t)]);
    for (int h = 0; h < kH; ++h) {
      const std::int64_t row = (t * kH + h) * dim;
      for (int e = 0; e < dim; ++e) {
        const Draw d{rng, static_cast<std::uint64_t>(row + e)};
        x[static_cast<size_t>(row + e)] =
            special ? narrow_to<E>(d(1) % 2 == 0 ? kSpecials[d(0) % 8] : moderate_f32(d(2))) : element<E>(h, d);
      }
      if (special || h != 2) continue;
      // Near cancellation: (s sin t, s cos t) makes y_a = s (sin t cos t - cos t sin t) ~ 0 up to the
      // rounding of the inputs; (s cos t, -s sin t) does the same to y_b (the side drawn from the
      // f32 stream for every format).
      for (int k = 0; k < plan.block_pairs(); ++k) {
        if (plan.identity(k)) continue;
        double c = 1, sn = 0;
        ref.cos_sin_double(k, c, sn);
        const auto ia = static_cast<size_t>(row + plan.first_element(k)), ib = static_cast<size_t>(row + plan.second_element(k));
        const auto first = static_cast<std::uint64_t>(row + plan.first_element(k));
        const double scale = moderate_f32(Draw{rng, first}(3));
        const bool on_b = Draw{r32, first}(4) % 2 == 1;
        x[ia] = narrow_to<E>(static_cast<float>(on_b ? scale * c : scale * sn));
        x[ib] = narrow_to<E>(static_cast<float>(on_b ? -scale * sn : scale * c));
      }
    }
  }
}

std::string position_label(std::int64_t p) {
  if (p == (std::int64_t{1} << 40) - 1) return "2^40-1";
  if (p > 0 && std::has_single_bit(static_cast<std::uint64_t>(p)) && p >= 1024) return "2^" + std::to_string(std::countr_zero(static_cast<std::uint64_t>(p)));
  return std::to_string(p);
}



// Compares every kernel path's output with the first path's, bit for bit.
template <typename T>
std::string agreement(const std::vector<std::string>& names, const std::vector<std::vector<T>>& outs, int dim, bool& agree) {
  std::ostringstream line;
  std::size_t differing = 0;
  std::string first;
  for (std::size_t p = 1; p < outs.size(); ++p)
    for (std::size_t i = 0; i < outs[0].size(); ++i)
      if (std::memcmp(&outs[0][i], &outs[p][i], sizeof(T)) != 0) {
        if (differing++ == 0) {
          char buf[160];
          std::snprintf(buf, sizeof buf, "first at token %zu head %zu element %zu: %s 0x%x, %s 0x%x", i / (static_cast<size_t>(kH) * dim),
                        (i / static_cast<size_t>(dim)) % kH, i % static_cast<size_t>(dim), names[0].c_str(),
                        static_cast<unsigned>(bits_of(outs[0][i])), names[p].c_str(), static_cast<unsigned>(bits_of(outs[p][i])));
          first = buf;
        }
      }
  if (differing == 0) {
    line << "all " << outs.size() << " kernel paths (";
    for (std::size_t p = 0; p < names.size(); ++p) line << (p ? ", " : "") << names[p];
    line << ") agree bit for bit on all " << outs[0].size() << " outputs";
  } else {
    agree = false;
    line << "kernel paths DISAGREE on " << differing << " outputs; " << first;
  }
  return line.str();
}

template <typename T>
void check_format(const kernel::RopePlan& plan, const KernelCheckOptions& o, Dtype f, Samples& s, KernelCheckResult& result) {
  const std::vector<T>& in = s.of<T>();
  const auto tokens = static_cast<std::int64_t>(s.positions.size());
  const int dim = plan.dim();
  const kernel::TensorView<const T> in_view = kernel::dense_view<const T>(in.data(), tokens, kH, dim);
  std::vector<std::string> names;
  std::vector<std::vector<T>> outs;
  std::vector<std::string> path_names;
  std::vector<kernel::KernelStats> stats;
  for (cpu::Path p : cpu::available_paths()) {
    outs.emplace_back(in.size());
    stats.emplace_back();
    kernel::apply_rope(plan, s.positions, in_view, kernel::dense_view<T>(outs.back().data(), tokens, kH, dim),
                       kernel::KernelOptions{p, o.threads, &stats.back()});
    names.push_back("kernel " + path_name(p));
    path_names.push_back(path_name(p));
  }
  const std::size_t kernel_rows = outs.size();
  for (Implementation b : baselines()) {
    outs.emplace_back(in.size());
    apply_rope_baseline(b, plan, s.positions, in_view, kernel::dense_view<T>(outs.back().data(), tokens, kH, dim));
    names.push_back("baseline " + implementation_name(b));
  }
  std::vector<const void*> ptrs;
  for (const std::vector<T>& v : outs) ptrs.push_back(v.data());
  MeasureOptions mo{o.threads, o.precision_bits};
  mo.per_head = true;  // head h holds input kind h
  std::vector<ErrorAccumulator> errors = measure_outputs(plan, f, s.positions, kH, in.data(), ptrs, mo);
  for (std::size_t i = 0; i < outs.size(); ++i) {
    ImplementationCheck row;
    row.name = names[i];
    row.kernel = i < kernel_rows;
    row.format = f;
    row.errors = ErrorAccumulator(f);
    row.typical = ErrorAccumulator(f);
    row.cancellation = ErrorAccumulator(f);
    row.moderate = ErrorAccumulator(f);
    for (int h = 0; h < kH; ++h) {
      const ErrorAccumulator& part = errors[i * kH + static_cast<std::size_t>(h)];
      row.errors.merge(part);
      if (h == static_cast<int>(InputKind::near_cancellation)) row.cancellation.merge(part);
      else row.typical.merge(part);
      if (h == static_cast<int>(InputKind::moderate)) row.moderate.merge(part);
    }
    if (!row.kernel) {
      row.verdict = "baseline (not judged)";
    } else {
      row.stats = stats[i];
      std::string why;
      if (!(row.errors.max_ulps() <= kKernelMaxUlps)) why += "max " + fixed(row.errors.max_ulps(), 4) + " ulp > 0.5; ";
      const std::uint64_t decided = row.errors.elements() - row.errors.undecided();
      if (row.errors.correctly_rounded() != decided)
        why += std::to_string(decided - row.errors.correctly_rounded()) + " outputs not correctly rounded; ";
      if (row.stats.unresolved > 0) why += std::to_string(row.stats.unresolved) + " outputs unresolved by the accurate path; ";
      if (row.errors.special_mismatches() > 0) why += std::to_string(row.errors.special_mismatches()) + " specials differ from IEEE semantics; ";
      row.passed = why.empty();
      row.verdict = why.empty() ? "ok" : "FAIL: " + why.substr(0, why.size() - 2);
    }
    result.passed = result.passed && row.passed;
    result.rows.push_back(std::move(row));
  }
  bool agree = true;
  std::vector<std::vector<T>> kernel_outs(outs.begin(), outs.begin() + static_cast<std::ptrdiff_t>(kernel_rows));
  result.path_agreement.push_back(dtype_name(f) + ": " + agreement<T>(path_names, kernel_outs, dim, agree));
  result.format_paths_agree.push_back(agree);
  result.paths_agree = result.paths_agree && agree;
  result.passed = result.passed && agree;
}

}  // namespace

std::string kind_name(InputKind k) {
  switch (k) {
    case InputKind::bit_patterns: return "bit patterns";
    case InputKind::moderate: return "moderate";
    case InputKind::near_cancellation: return "near cancellation";
    case InputKind::edge_values: return "edge values";
  }
  return "";
}

std::string proved_bound_text(Dtype f) {
  require_kernel_dtype(f, "proved_bound_text");
  return "0.5 (CR)";
}

KernelCheckResult run_kernel_check(const kernel::RopePlan& plan, const KernelCheckOptions& o) {
  if (o.samples < 1) throw InputError("--samples", "an integer >= 1", std::to_string(o.samples));
  if (o.max_position < 0) throw InputError("--max-position", "an integer in [0, 2^63 - 1]", std::to_string(o.max_position));
  if (o.threads < 1) throw InputError("--threads", "an integer >= 1", std::to_string(o.threads));
  if (o.formats.empty()) throw InputError("--dtype", kKernelCheckDtypeChoices, "no format");
  for (Dtype f : o.formats)
    if (f == Dtype::f64) throw InputError("--dtype", kKernelCheckDtypeChoices, dtype_name(f));
  const auto start = std::chrono::steady_clock::now();
  KernelCheckResult result;
  result.spectrum = plan.describe();
  result.layout = plan.layout();
  result.options = o;
  for (std::int64_t p : {std::int64_t{0}, std::int64_t{1}, std::int64_t{1} << 24, std::int64_t{1} << 31, (std::int64_t{1} << 40) - 1, o.max_position})
    if (p <= o.max_position && std::find(result.edge_positions.begin(), result.edge_positions.end(), p) == result.edge_positions.end())
      result.edge_positions.push_back(p);

  Samples s;
  s.positions = result.edge_positions;
  const CounterRng rp(o.seed, kPositionStream);
  for (std::int64_t i = 0; i < o.samples; ++i) s.positions.push_back(log_uniform_position(rp, static_cast<std::uint64_t>(i), o.max_position));
  const auto special_from = static_cast<std::int64_t>(s.positions.size());
  for (std::int64_t p : {std::int64_t{0}, std::int64_t{1}, std::int64_t{1000}, std::int64_t{1} << 31})
    s.positions.push_back(std::min(p, o.max_position));
  result.special_tokens = kSpecialTokens;
  result.tokens = static_cast<std::int64_t>(s.positions.size());
  const auto elements = static_cast<size_t>(result.tokens * kH * plan.dim());
  for (Dtype f : o.formats) with_storage(f, [&](auto e) { s.of<decltype(e)>().assign(elements, decltype(e){}); });
  // The generator needs cos and sin only to ~2^-30 (to aim near cancellation): 64 bits suffice.
  const RopeReference gen(plan, 64, 128);
  std::vector<RopeReference> refs;
  const int chunks = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(o.threads, result.tokens)));
  for (int c = 0; c < chunks; ++c) refs.emplace_back(gen);
  detail::split_tokens_mpfr(result.tokens, o.threads, [&](int c, std::int64_t t0, std::int64_t t1) {
    for (Dtype f : o.formats)
      with_storage(f, [&](auto e) { generate<decltype(e)>(plan, o, special_from, s, t0, t1, refs[static_cast<size_t>(c)]); });
  });

  for (Dtype f : o.formats) with_storage(f, [&](auto e) { check_format<decltype(e)>(plan, o, f, s, result); });
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

std::string format_kernel_check(const KernelCheckResult& r) {
  std::ostringstream out;
  const KernelCheckOptions& o = r.options;
  out << "kernel-check: " << r.spectrum << "\n";
  out << "seed " << o.seed << " (the same seed gives the same samples, for any --threads); reference: MPFR, " << o.precision_bits
      << " bits, rounding decided by a rigorous error bound\n";
  out << "samples: " << o.samples << " random positions log-uniform in [0, " << o.max_position << "] + edge positions";
  for (std::size_t i = 0; i < r.edge_positions.size(); ++i) out << (i ? ", " : " ") << position_label(r.edge_positions[i]);
  out << "; " << kKernelCheckHeads << " head vectors each (random bit patterns, moderate values, near-cancellation pairs, edge values);\n"
      << "         + " << r.special_tokens << " tokens with infinities and NaN (specials: IEEE semantics, outside the ulp figures)\n";
  out << "max (sampled): the sample's maximum ulp error, a LOWER BOUND (sampled) on the implementation's error; proved: the kernel's UPPER BOUND (proved, apply_rope.h)\n"
      << "max err/norm: the max absolute error at unit pair norm |got - y| / ||(x_a, x_b)|| (pairs of norm >= 2^-126; raw absolute errors are in --json)\n"
      << "corr. rounded: share over bit-pattern, moderate and edge inputs; (cancel.): the near-cancellation pairs (outputs far below\n"
      << "  the pair's norm); the kernel's goal is 100% of both, every output (apply_rope.h); slow path: share of the kernel's outputs\n"
      << "  whose rounding test failed and took the accurate path (exact_rotation.h)\n";
  for (Dtype f : o.formats) {
    out << "\n" << dtype_name(f) << " outputs, " << metric_definition(f) << ":\n";
    out << pad("implementation", 22) << pad("outputs", 10) << pad("max (sampled)", 14) << pad("proved", 11) << pad("median ulp", 12)
        << pad("corr. rounded", 15) << pad("(cancel.)", 11) << pad("slow path", 11) << pad("max err/norm", 13) << pad("specials ok", 13) << "verdict\n";
    for (const ImplementationCheck& row : r.rows) {
      if (row.format != f) continue;
      const ErrorAccumulator& e = row.errors;
      out << pad(row.name, 22) << pad(std::to_string(e.elements()), 10) << pad(fixed(e.max_ulps(), 6), 14)
          << pad(row.kernel ? proved_bound_text(f) : "-", 11) << pad(fixed(e.median_ulps(), 4), 12)
          << pad(fixed(100 * row.typical.share_correctly_rounded(), 4) + "%", 15)
          << pad(fixed(100 * row.cancellation.share_correctly_rounded(), 2) + "%", 11)
          << pad(row.kernel ? fixed(100 * row.stats.slow_share(), 4) + "%" : "-", 11) << pad(sci(e.max_rel()), 13)
          << pad(std::to_string(e.specials() - e.special_mismatches()) + "/" + std::to_string(e.specials()), 13) << row.verdict << "\n";
      if (e.undecided() > 0) out << "    " << e.undecided() << " outputs undecided by the reference (excluded from the share)\n";
    }
    out << "\nmax absolute error at unit pair norm, |got - y| / ||(x_a, x_b)||, per position decade, moderate inputs (" << dtype_name(f)
        << "; sampled: lower bounds):\n" << pad("positions", 16);
    std::vector<const ImplementationCheck*> cols;
    for (const ImplementationCheck& row : r.rows)
      if (row.format == f) cols.push_back(&row);
    out << pad("outputs", 10);
    for (const ImplementationCheck* c : cols) out << pad(c->name, 20);
    out << "\n";
    for (int d = 0; d < kDecades; ++d) {
      if (cols.empty() || cols[0]->moderate.decade(d).elements == 0) continue;
      out << pad(decade_label(d), 16) << pad(std::to_string(cols[0]->moderate.decade(d).elements), 10);
      for (const ImplementationCheck* c : cols) out << pad(sci(c->moderate.decade(d).max_rel), 20);
      out << "\n";
    }
    for (const ImplementationCheck& row : r.rows)
      if (row.format == f && row.kernel && row.errors.elements() > 0 && !row.passed)
        out << "worst element of " << row.name << ": " << describe(row.errors.worst(), f) << "\n";
  }
  out << "\n";
  for (const std::string& line : r.path_agreement) out << line << "\n";
  out << (r.passed ? "PASS" : "FAIL") << ": every kernel path correctly rounded on every output (100%, no floor), specials as IEEE, paths bit-identical"
      << (r.passed ? "" : " -- NOT MET") << "\n";
  char t[64];
  std::snprintf(t, sizeof t, "%.1f", r.seconds);
  out << "time " << t << " s (" << o.threads << " thread" << (o.threads == 1 ? "" : "s") << ")\n";
  return out.str();
}

nlohmann::json kernel_check_json(const KernelCheckResult& r) {
  nlohmann::json rows = nlohmann::json::array();
  for (const ImplementationCheck& row : r.rows) {
    nlohmann::json j = {{"implementation", row.name}, {"kernel", row.kernel}, {"dtype", dtype_name(row.format)},
                        {"max_ulps_bound_kind", "lower bound (sampled)"}, {"passed", row.passed}, {"verdict", row.verdict},
                        {"errors", row.errors.to_json()},
                        {"moderate_decades", row.moderate.to_json()["decades"]},
                        {"share_correctly_rounded_typical", row.typical.share_correctly_rounded()},
                        {"share_correctly_rounded_near_cancellation", row.cancellation.share_correctly_rounded()}};
    if (row.kernel) {
      j["proved_upper_bound_ulps"] = proved_bound_text(row.format);
      j["slow_path"] = {{"outputs", row.stats.outputs}, {"slow", row.stats.slow}, {"unresolved", row.stats.unresolved}, {"share", row.stats.slow_share()}};
    }
    rows.push_back(j);
  }
  nlohmann::json formats = nlohmann::json::array();
  for (Dtype f : r.options.formats) formats.push_back(dtype_name(f));
  return {{"tool", kToolName},
          {"command", "kernel-check"},
          {"spectrum", r.spectrum},
          {"layout", kernel::layout_name(r.layout)},
          {"dtypes", formats},
          {"seed", r.options.seed},
          {"samples", r.options.samples},
          {"max_position", r.options.max_position},
          {"edge_positions", r.edge_positions},
          {"heads_per_position", kKernelCheckHeads},
          {"tokens", r.tokens},
          {"special_tokens", r.special_tokens},
          {"threads", r.options.threads},
          {"reference_precision_bits", r.options.precision_bits},
          {"rows", rows},
          {"path_agreement", r.path_agreement},
          {"paths_agree", r.paths_agree},
          {"passed", r.passed},
          {"seconds", r.seconds}};
}

}  // namespace ropecheck::accuracy

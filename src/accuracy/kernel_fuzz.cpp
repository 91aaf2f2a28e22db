#include "accuracy/kernel_fuzz.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <ostream>
#include <vector>

#include "accuracy/detail/kernel_fuzz_seam.h"
#include "accuracy/kernel_candidates.h"
#include "accuracy/kernel_counterexample.h"
#include "accuracy/kernel_output_check.h"
#include "accuracy/rope_reference.h"
#include "accuracy/ulp_error.h"
#include "io/input_error.h"
#include "io/printf_string.h"
#include "kernel/apply_rope.h"
#include "numeric/small_floats.h"
#include "spectrum/request.h"
#include "spectrum/spectrum_json.h"

namespace ropecheck::accuracy {
namespace {

using accuracy::ExactPair;
using kernel::Layout;
using cpu::Path;
using kernel::RopePlan;
using accuracy::RopeReference;

// A broken kernel could break the bound on every output; the run keeps the first documents (in
// candidate order, so the same ones for the same seed) and counts the rest in the log.
constexpr std::size_t kMaxDocuments = 64;

using Claim = KernelClaim;
using detail::run_rows;

// One spectrum the fuzz runs: its plans (both layouts) and its reference. Pair k has the same
// frequency in both layouts (rope_plan.h: spectrum_pair(k) = k, and the block is the same), so one
// reference serves both.
struct Subject {
  nlohmann::json spectrum_json;
  std::string label;
  std::vector<kernel::RopePlan> plans;  // [interleaved, half]
  std::unique_ptr<RopeReference> reference;
};

Subject make_subject(nlohmann::json spectrum_json, const std::string& label, const Spectrum& spectrum) {
  Subject s;
  s.spectrum_json = std::move(spectrum_json);
  s.label = label;
  s.plans.emplace_back(spectrum, kernel::Layout::interleaved);
  s.plans.emplace_back(spectrum, kernel::Layout::half);
  s.reference = std::make_unique<RopeReference>(s.plans[0]);
  return s;
}

// A model's layer type: its one plan in both slots (the candidates take its layout).
Subject model_subject(nlohmann::json spectrum_json, const std::string& label, const ResolvedSpectrum& rs) {
  Subject s;
  s.spectrum_json = std::move(spectrum_json);
  s.label = label;
  s.plans.push_back(kernel::plan_for(rs, std::nullopt));
  s.plans.push_back(s.plans[0]);
  s.reference = std::make_unique<RopeReference>(s.plans[0]);
  return s;
}

// Everything the fuzz accumulates.
struct Run {
  Run(const KernelFuzzOptions& o, const detail::KernelUnderTest& k, const std::vector<Path>& p, KernelFuzzResult& r)
      : options(o), kernel(k), paths(p), result(r) {}
  const KernelFuzzOptions& options;
  const detail::KernelUnderTest& kernel;
  const std::vector<Path>& paths;
  KernelFuzzResult& result;
  std::vector<accuracy::ErrorAccumulator> accs = [] {
    std::vector<accuracy::ErrorAccumulator> a;
    for (Dtype f : kKernelDtypes) a.emplace_back(f);
    return a;
  }();
  std::array<std::string, kKernelDtypes.size()> worst_where;
  long long violations = 0;
  // The three sources of `undecided`, for the log.
  long long undecided_special = 0, undecided_figure = 0, undecided_reference = 0;

  accuracy::ErrorAccumulator& acc(Dtype f) { return accs[kernel_dtype_index(f)]; }

  void report(nlohmann::json doc) {
    ++violations;
    if (result.counterexamples.size() < kMaxDocuments) result.counterexamples.push_back(std::move(doc));
  }
};

nlohmann::json found_info(const Run& run, const KernelCandidate& c, const KernelBlock& b) {
  return {{"seed", run.options.seed}, {"candidate", c.index}, {"kind", input_kind_name(c.kind)}, {"position_origin", b.origin}};
}

// Checks candidate c (its outputs on every path: outs[path][element]).
void check_candidate(Run& run, const Subject& sub, const KernelCandidate& c, const KernelBlock& blk,
                     const std::vector<std::vector<std::uint32_t>>& outs) {
  const Dtype f = c.format;
  const kernel::RopePlan& plan = sub.plans[c.layout == kernel::Layout::interleaved ? 0 : 1];
  const int k = c.pair;
  const int ia = plan.first_element(k), ib = plan.second_element(k);
  const double xa = value_of(c.input[0], f), xb = value_of(c.input[1], f);
  const bool finite = std::isfinite(xa) && std::isfinite(xb);
  const SpecialExpectation special = special_expectation(plan, sub.reference.get(), k, c.position, c.input, f);
  if (special.applies && !special.decided) ++run.undecided_special;
  std::optional<ExactPair> exact;
  if (finite) {
    exact = plan.identity(k) ? identity_pair(xa, xb) : sub.reference->rotate(k, static_cast<float>(xa), static_cast<float>(xb));
    const bool decided = exact->a.decided_in(f) && exact->b.decided_in(f);
    if (!decided) ++run.undecided_reference;  // the reference's rounding test (rope_reference.h): never expected
  }
  const double bound = proved_bound(f);
  for (std::size_t pi = 0; pi < run.paths.size(); ++pi) {
    const std::uint32_t got[2] = {outs[pi][static_cast<std::size_t>(ia)], outs[pi][static_cast<std::size_t>(ib)]};
    run.result.outputs_checked += 2;
    // A path that agrees with the scalar twin bit for bit has the scalar twin's verdict.
    if (pi > 0 && got[0] == outs[0][static_cast<std::size_t>(ia)] && got[1] == outs[0][static_cast<std::size_t>(ib)]) continue;
    const Path path = run.paths[pi];
    if (pi > 0) {
      nlohmann::json found = found_info(run, c, blk);
      found["got"] = hex_pair(got, f);
      const std::uint32_t twin[2] = {outs[0][static_cast<std::size_t>(ia)], outs[0][static_cast<std::size_t>(ib)]};
      found["reference"] = hex_pair(twin, f);
      found["ulp"] = nullptr;
      found["bound"] = "bit-identical to the scalar twin";
      run.report(kernel_counterexample_json(sub.spectrum_json, c.layout, f, path, c.position, k, c.input, Claim::paths, std::move(found)));
    }
    if (special.applies && special.decided) {
      const bool matches = got[0] == special.bits[0] && got[1] == special.bits[1];
      if (!finite) {
        run.acc(f).add_special(got[0] == special.bits[0]);
        run.acc(f).add_special(got[1] == special.bits[1]);
      }
      if (!matches) {
        nlohmann::json found = found_info(run, c, blk);
        found["got"] = hex_pair(got, f);
        found["reference"] = hex_pair(special.bits, f);
        found["ulp"] = nullptr;
        found["bound"] = plan.identity(k) ? "a bit-for-bit copy (identity pair)" : "the IEEE result of the formula";
        run.report(kernel_counterexample_json(sub.spectrum_json, c.layout, f, path, c.position, k, c.input, Claim::special, std::move(found)));
      }
    }
    if (!exact) continue;
    const BoundCheck check = check_bound(*exact, got, f);
    run.undecided_figure += check.undecided;
    accuracy::ElementRecord rec;
    rec.position = c.position;
    rec.token = c.index;
    rec.pair = k;
    rec.in_bits[0] = c.input[0];
    rec.in_bits[1] = c.input[1];
    rec.in[0] = xa;
    rec.in[1] = xb;
    rec.norm = exact->norm;
    for (int comp = 0; comp < 2; ++comp) {
      const accuracy::ExactComponent& e = comp == 0 ? exact->a : exact->b;
      rec.component = comp;
      rec.got_bits = got[comp];
      rec.got = value_of(got[comp], f);
      rec.exact = e.value;
      rec.correctly_rounded = correctly_rounded(e, f);
      const double before = run.acc(f).max_ulps();
      const bool had = run.acc(f).elements() > 0;
      run.acc(f).add(rec, e.decided_in(f));
      if (!had || run.acc(f).max_ulps() > before) {
        const std::string where = kernel::layout_name(c.layout) + ", " + sub.label + ", path " + cpu::path_name(path) + ": ";
        run.worst_where[kernel_dtype_index(f)] = where;
      }
    }
    if (check.breaks > 0) {
      nlohmann::json found = found_info(run, c, blk);
      found["got"] = hex_pair(got, f);
      found["reference"] = {hex_double(exact->a.value), hex_double(exact->b.value)};
      found["ulp"] = json_number(check.worst);
      found["bound"] = bound;
      run.report(kernel_counterexample_json(sub.spectrum_json, c.layout, f, path, c.position, k, c.input, Claim::bound, std::move(found)));
    }
  }
}

// Reports elements where a path differs from the scalar twin outside every candidate's pair (the
// zero-filled pairs of a row): their documents carry the row's own (zero) inputs.
void check_unowned(Run& run, const Subject& sub, Dtype f, kernel::Layout layout, std::int64_t p, const std::vector<std::uint32_t>& row,
                   const std::vector<int>& owner, const std::vector<std::vector<std::uint32_t>>& outs) {
  const kernel::RopePlan& plan = sub.plans[layout == kernel::Layout::interleaved ? 0 : 1];
  for (std::size_t pi = 1; pi < outs.size(); ++pi)
    for (int k = 0; k < plan.block_pairs(); ++k) {
      const auto ia = static_cast<std::size_t>(plan.first_element(k)), ib = static_cast<std::size_t>(plan.second_element(k));
      if (owner[ia] >= 0) continue;
      if (outs[pi][ia] == outs[0][ia] && outs[pi][ib] == outs[0][ib]) continue;
      const std::uint32_t in[2] = {row[ia], row[ib]}, got[2] = {outs[pi][ia], outs[pi][ib]}, twin[2] = {outs[0][ia], outs[0][ib]};
      nlohmann::json found = {{"seed", run.options.seed}, {"kind", "zero-filled pair"}, {"got", hex_pair(got, f)},
                              {"reference", hex_pair(twin, f)}, {"ulp", nullptr}, {"bound", "bit-identical to the scalar twin"}};
      run.report(kernel_counterexample_json(sub.spectrum_json, layout, f, run.paths[pi], p, k, in, Claim::paths, std::move(found)));
    }
}

}  // namespace

namespace detail {

// Runs the kernel under test on rows of bit patterns (dim elements per position).
std::vector<std::uint32_t> run_rows(const detail::KernelUnderTest& kut, const kernel::RopePlan& plan, std::span<const std::int64_t> positions,
                                    const std::vector<std::uint32_t>& in, Dtype f, Path path) {
  std::vector<std::uint32_t> out(in.size());
  const auto width = static_cast<std::size_t>(dtype_info(f).bytes);
  std::vector<unsigned char> x(in.size() * width), y(in.size() * width);
  for (std::size_t i = 0; i < in.size(); ++i) std::memcpy(x.data() + i * width, &in[i], width);  // little-endian low bytes
  kut.rows(plan, positions, f, x.data(), y.data(), path);
  for (std::size_t i = 0; i < in.size(); ++i) std::memcpy(&out[i], y.data() + i * width, width);
  return out;
}

KernelUnderTest production_kernel() {
  KernelUnderTest k;
  k.rows = [](const kernel::RopePlan& plan, std::span<const std::int64_t> positions, Dtype f, const void* in, void* out, Path path) {
    const auto tokens = static_cast<std::int64_t>(positions.size());
    with_storage(f, [&](auto e) {
      using E = decltype(e);
      kernel::apply_rope(plan, positions, kernel::dense_view<const E>(static_cast<const E*>(in), tokens, 1, plan.dim()),
                         kernel::dense_view<E>(static_cast<E*>(out), tokens, 1, plan.dim()), kernel::KernelOptions{path, 1});
    });
  };
  return k;
}

KernelFuzzResult fuzz_kernel_with(const KernelFuzzOptions& options, std::ostream& log, const KernelUnderTest& kut) {
  if (!(options.budget_seconds > 0) || !std::isfinite(options.budget_seconds))
    throw InputError("--budget", "a finite number of seconds > 0", printf_string("%g", options.budget_seconds));
  if (options.max_candidates < 0) throw InputError("--max-candidates", "an integer >= 0 (0: until the budget ends)", std::to_string(options.max_candidates));
  const auto start = std::chrono::steady_clock::now();
  std::vector<Subject> subjects;
  SpectrumRequest named;
  std::optional<kernel::Layout> model_layout;
  std::string name = options.config;
  if (options.model) {
    named.model = options.model;
    named.layer_type = options.layer_type;
    const ResolvedSpectrum rs = resolve(named);  // InputError for an unknown model or layer type
    name = rs.name;
    subjects.push_back(model_subject(spectrum_request_to_json(named), name, rs));
    model_layout = subjects[0].plans[0].layout();
  } else {
    named.config = options.config;
    subjects.push_back(make_subject(spectrum_request_to_json(named), options.config, config_spectrum(options.config)));
  }
  const Spectrum& base = subjects[0].plans[0].spectrum();
  // The configuration as p-RoPE 0.75 (one block in eight): identity pairs, whose inputs must be
  // copied bit for bit (-0, NaN payloads), exist only in such variants.
  if (!options.model && base.variant() == Variant::rope) {
    SpectrumRequest p_rope = named;
    p_rope.variant = Variant::p_rope;
    p_rope.fraction = "0.75";
    subjects.push_back(make_subject(spectrum_request_to_json(p_rope), options.config + " p-rope 0.75", resolve(p_rope).spectrum));
  }
  const kernel::RopePlan& plan0 = subjects[0].plans[0];
  KernelFuzzResult result;
  const int block = plan0.block_pairs();
  if (block < 1) {
    log << "kernel fuzz: " << name << " rotates no pair: nothing to fuzz\n";
    return result;
  }
  for (const Subject& s : subjects)
    if (s.plans[0].block_pairs() != block) throw InputError("--config", "a spectrum whose variants share one block", options.config);
  std::vector<std::vector<std::int64_t>> returns;
  for (int k = 0; k < block; ++k) returns.push_back(plan0.identity(k) ? std::vector<std::int64_t>{} : near_returns(plan_turns(plan0, k)));
  const KernelCandidates gen(options.seed, block, returns, static_cast<int>(subjects.size()));
  const std::vector<Path> paths = cpu::available_paths();

  log << "kernel fuzz: " << name << " (" << plan0.describe() << "; and " << (subjects.size() > 1 ? subjects[1].label + " in one block of eight" : "no variant")
      << "), paths";
  for (Path p : paths) log << " " << cpu::path_name(p);
  log << ", seed " << options.seed << ", budget " << options.budget_seconds << " s"
      << (options.max_candidates > 0 ? ", at most " + std::to_string(options.max_candidates) + " candidates" : std::string()) << "\n";

  Run run(options, kut, paths, result);
  const int dim = plan0.dim();
  for (long long b = 0;; ++b) {
    const long long first = b * block;
    if (options.max_candidates > 0 && first >= options.max_candidates) break;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >= options.budget_seconds) break;
    const long long n = options.max_candidates > 0 ? std::min<long long>(block, options.max_candidates - first) : block;
    const KernelBlock blk = gen.block(b);
    Subject& sub = subjects[static_cast<std::size_t>(blk.subject)];
    sub.reference->set_position(blk.position);
    const CosSin cos_sin = [&](int k, double& c, double& s) { sub.reference->cos_sin_double(k, c, s); };
    std::vector<KernelCandidate> cands;
    // Rows by (dtype, layout): each candidate at its pair, zeros elsewhere (pairs are distinct in a block).
    constexpr int kGroups = 2 * static_cast<int>(kKernelDtypes.size());
    const auto group_of = [](Dtype f, kernel::Layout l) { return 2 * static_cast<int>(kernel_dtype_index(f)) + static_cast<int>(l); };
    std::vector<std::uint32_t> rows[kGroups];
    std::vector<int> owner[kGroups];
    for (auto& r : rows) r.assign(static_cast<std::size_t>(dim), 0);
    for (auto& o : owner) o.assign(static_cast<std::size_t>(dim), -1);
    for (long long j = 0; j < n; ++j) {
      cands.push_back(gen.candidate(first + j, cos_sin));
      if (model_layout) cands.back().layout = *model_layout;  // a model has one layout
      const KernelCandidate& c = cands.back();
      const int g = group_of(c.format, c.layout);
      const kernel::RopePlan& plan = sub.plans[static_cast<std::size_t>(c.layout)];
      const auto ia = static_cast<std::size_t>(plan.first_element(c.pair)), ib = static_cast<std::size_t>(plan.second_element(c.pair));
      rows[g][ia] = c.input[0];
      rows[g][ib] = c.input[1];
      owner[g][ia] = owner[g][ib] = static_cast<int>(j);
    }
    const std::int64_t positions[1] = {blk.position};
    std::vector<std::vector<std::uint32_t>> outs[kGroups];
    for (int g = 0; g < kGroups; ++g) {
      const Dtype f = kKernelDtypes[static_cast<std::size_t>(g / 2)];
      const kernel::Layout layout = g % 2 == 0 ? kernel::Layout::interleaved : kernel::Layout::half;
      if (std::all_of(owner[g].begin(), owner[g].end(), [](int o) { return o < 0; })) continue;
      for (Path p : paths) outs[g].push_back(run_rows(kut, sub.plans[static_cast<std::size_t>(layout)], positions, rows[g], f, p));
      check_unowned(run, sub, f, layout, blk.position, rows[g], owner[g], outs[g]);
    }
    for (const KernelCandidate& c : cands) check_candidate(run, sub, c, blk, outs[group_of(c.format, c.layout)]);
    result.tried += n;
  }
  result.undecided = run.undecided_special + run.undecided_figure + run.undecided_reference;
  long long specials = 0, special_mismatches = 0;
  std::string maxima;
  for (std::size_t i = 0; i < kKernelDtypes.size(); ++i) {
    const accuracy::ErrorAccumulator& a = run.accs[i];
    result.max_ulps[i] = a.max_ulps();
    if (a.elements() > 0) result.worst_elements[i] = run.worst_where[i] + accuracy::describe(a.worst(), kKernelDtypes[i]);
    specials += static_cast<long long>(a.specials());
    special_mismatches += static_cast<long long>(a.special_mismatches());
    maxima += (i ? ", " : "") + dtype_name(kKernelDtypes[i]) + " " + printf_string("%.9g", result.max_ulps[i]);
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  log << "kernel fuzz: tried " << result.tried << " candidates, " << result.outputs_checked << " outputs checked (every path), "
      << result.undecided << " undecided (" << run.undecided_special << " specials whose cos or sin is within 2^-49 of 0, "
      << run.undecided_figure << " outputs whose correct rounding the reference left undecided, " << run.undecided_reference << " reference roundings); max ulp (sampled: LOWER bounds) "
      << maxima << " (proved UPPER bound 0.5 for each: correctly rounded); specials " << specials << " checked, " << special_mismatches
      << " wrong; " << run.violations << " violations, " << result.counterexamples.size() << " documents kept; "
      << printf_string("%.1f", result.seconds) << " s\n";
  return result;
}

}  // namespace detail

KernelFuzzResult fuzz_kernel(const KernelFuzzOptions& options, std::ostream& log) {
  return detail::fuzz_kernel_with(options, log, detail::production_kernel());
}

}  // namespace ropecheck::accuracy

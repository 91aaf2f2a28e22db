#include "adversarial/kernel_fuzz.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <ostream>
#include <optional>
#include <set>

#include "adversarial/counterexample.h"
#include "adversarial/detail/kernel_fuzz_seam.h"
#include "adversarial/kernel_candidates.h"
#include "io/input_error.h"
#include "io/json_fields.h"
#include "io/printf_string.h"
#include "kernel/apply_rope.h"
#include "kernel/bf16.h"
#include "kernel/detail/ieee_rotation.h"
#include "kernel/rope_reference.h"
#include "kernel/ulp_error.h"
#include "spectrum/request.h"
#include "spectrum/spectrum_json.h"

namespace ropecheck::adversarial {
namespace {

using kernel::ExactPair;
using kernel::Format;
using kernel::Layout;
using kernel::Path;
using kernel::RopePlan;
using kernel::RopeReference;

constexpr const char* kKernelFormat = "ropecheck-kernel-counterexample/1";

// A broken kernel could break the bound on every output; the run keeps the first documents (in
// candidate order, so the same ones for the same seed) and counts the rest in the log.
constexpr std::size_t kMaxDocuments = 64;

// The ulp figure's own error: ulp_error.h computes it from the exact value rounded to double
// (|y~ - y| <= 2^-53 |y| + 2^-135 ||x||, i.e. < 2^-29 f32-ulp since ulp(y) > 2^-24 |y|) with two
// more roundings of 2^-53 relative: < 2^-28.9 ulp in all. A component certainly breaks the bound
// when its figure exceeds bound + 2^-27, certainly keeps it below bound - 2^-27; between, it is
// undecided (counted, never reported).
constexpr double kFigureSlack = 0x1p-27;

// The sign of the kernel's cos and sin: sincos_table.h puts them within 2^-50 of the exact values,
// the reference's doubles are within 2^-53 |.| + 2^-136: above 2^-49 in magnitude both have the
// exact value's sign, so the IEEE result of a special (detail/ieee_rotation.h) is decided.
constexpr double kSignMargin = 0x1p-49;

enum class Claim { bound, paths, special };

std::string claim_name(Claim c) {
  switch (c) {
    case Claim::bound: return "bound";
    case Claim::paths: return "paths";
    case Claim::special: return "special";
  }
  return "";
}

double proved_bound(Format f) { return f == Format::f32 ? kernel::kProvedUlpBoundF32 : kernel::kProvedUlpBoundBf16; }

std::string bits_hex(std::uint32_t bits, Format f) { return f == Format::f32 ? printf_string("0x%08x", bits) : printf_string("0x%04x", bits); }

double value_of(std::uint32_t bits, Format f) {
  return f == Format::f32 ? static_cast<double>(std::bit_cast<float>(bits)) : static_cast<double>(kernel::bf16_to_f32(static_cast<std::uint16_t>(bits)));
}

// The bits of a finite, infinite or NaN double rounded to the format (NaN: the canonical one).
std::uint32_t format_bits(double v, Format f) {
  if (std::isnan(v)) return f == Format::f32 ? kernel::kCanonicalNaNF32 : kernel::kCanonicalNaNBf16;
  const auto x = static_cast<float>(v);
  return f == Format::f32 ? std::bit_cast<std::uint32_t>(x) : kernel::f32_to_bf16_rne(x);
}

// A JSON number, or "inf"/"nan" (JSON has neither).
nlohmann::json json_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

// Runs the kernel under test on rows of bit patterns (dim elements per position).
std::vector<std::uint32_t> run_rows(const detail::KernelUnderTest& kut, const RopePlan& plan, std::span<const std::int64_t> positions,
                                    const std::vector<std::uint32_t>& in, Format f, Path path) {
  std::vector<std::uint32_t> out(in.size());
  if (f == Format::f32) {
    std::vector<float> x(in.size()), y(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) x[i] = std::bit_cast<float>(in[i]);
    kut.f32(plan, positions, x, y, path);
    for (std::size_t i = 0; i < in.size(); ++i) out[i] = std::bit_cast<std::uint32_t>(y[i]);
  } else {
    std::vector<std::uint16_t> x(in.size()), y(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) x[i] = static_cast<std::uint16_t>(in[i]);
    kut.bf16(plan, positions, x, y, path);
    for (std::size_t i = 0; i < in.size(); ++i) out[i] = y[i];
  }
  return out;
}

// What a special pair must produce (apply_rope.h): identity pairs copy their inputs bit for bit;
// a pair with an infinity or NaN, or two signed zeros (whose exact rotation is 0 and whose sign
// only IEEE arithmetic fixes), gets the formula's IEEE result, NaN as the canonical NaN.
struct SpecialExpectation {
  bool applies = false;
  bool decided = true;
  std::uint32_t bits[2] = {0, 0};
};

SpecialExpectation special_expectation(const RopePlan& plan, const RopeReference* ref, int k, std::int64_t p, const std::uint32_t in[2],
                                       Format f) {
  SpecialExpectation e;
  if (plan.identity(k)) {
    e.applies = true;
    e.bits[0] = in[0];
    e.bits[1] = in[1];
    return e;
  }
  const double xa = value_of(in[0], f), xb = value_of(in[1], f);
  if (std::isfinite(xa) && std::isfinite(xb) && !(xa == 0 && xb == 0)) return e;
  e.applies = true;
  double c = 1, s = 0;
  ref->cos_sin_double(k, c, s);
  e.decided = p == 0 || (std::fabs(c) > kSignMargin && std::fabs(s) > kSignMargin);
  double ya = 0, yb = 0;
  kernel::detail::ieee_rotation(xa, xb, c, s, f, ya, yb);
  e.bits[0] = format_bits(ya, f);
  e.bits[1] = format_bits(yb, f);
  return e;
}

// The bound check of one output pair against the exact rotation.
struct BoundCheck {
  kernel::ComponentError error[2];
  double worst = 0;        // the larger figure
  int breaks = 0;          // components certainly beyond the bound
  int undecided = 0;       // components within kFigureSlack of it
};

double correctly_rounded(const kernel::ExactComponent& e, Format f) {
  return f == Format::f32 ? static_cast<double>(e.f32) : static_cast<double>(kernel::bf16_to_f32(e.bf16));
}

BoundCheck check_bound(const ExactPair& exact, const std::uint32_t got[2], Format f) {
  BoundCheck b;
  const double bound = proved_bound(f);
  for (int c = 0; c < 2; ++c) {
    const kernel::ExactComponent& e = c == 0 ? exact.a : exact.b;
    b.error[c] = kernel::component_error(value_of(got[c], f), e.value, correctly_rounded(e, f), exact.norm, f);
    const double u = b.error[c].ulps;
    if (!(u <= b.worst)) b.worst = u;  // NaN-safe: component_error returns inf, never NaN
    if (u > bound + kFigureSlack) ++b.breaks;
    else if (u > bound - kFigureSlack) ++b.undecided;
  }
  return b;
}

ExactPair identity_pair(double xa, double xb) {
  ExactPair e;
  e.a = RopeReference::exact_identity(static_cast<float>(xa));
  e.b = RopeReference::exact_identity(static_cast<float>(xb));
  e.norm = std::sqrt(xa * xa + xb * xb);
  return e;
}

// The frame of a counterexample document (kernel_fuzz.h).
nlohmann::json document(const nlohmann::json& spectrum, Layout layout, Format f, Path path, std::int64_t p, int k, const std::uint32_t in[2],
                        Claim claim, nlohmann::json found) {
  return {{"format", kKernelFormat},
          {"target", "kernel"},
          {"spectrum", spectrum},
          {"layout", kernel::layout_name(layout)},
          {"dtype", kernel::format_name(f)},
          {"path", kernel::path_name(path)},
          {"position", std::to_string(p)},
          {"pair", k},
          {"input", {bits_hex(in[0], f), bits_hex(in[1], f)}},
          {"claim", claim_name(claim)},
          {"found", std::move(found)}};
}

nlohmann::json hex_pair(const std::uint32_t bits[2], Format f) { return {bits_hex(bits[0], f), bits_hex(bits[1], f)}; }

// One spectrum the fuzz runs: its plans (both layouts) and its reference. Pair k has the same
// frequency in both layouts (rope_plan.h: spectrum_pair(k) = k, and the block is the same), so one
// reference serves both.
struct Subject {
  nlohmann::json spectrum_json;
  std::string label;
  std::vector<RopePlan> plans;  // [interleaved, half]
  std::unique_ptr<RopeReference> reference;
};

Subject make_subject(nlohmann::json spectrum_json, const std::string& label, const Spectrum& spectrum) {
  Subject s;
  s.spectrum_json = std::move(spectrum_json);
  s.label = label;
  s.plans.emplace_back(spectrum, Layout::interleaved);
  s.plans.emplace_back(spectrum, Layout::half);
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
  kernel::ErrorAccumulator f32{Format::f32}, bf16{Format::bf16};
  std::string worst_where_f32, worst_where_bf16;
  long long violations = 0;
  // The three sources of `undecided`, for the log.
  long long undecided_special = 0, undecided_figure = 0, undecided_reference = 0;

  kernel::ErrorAccumulator& acc(Format f) { return f == Format::f32 ? f32 : bf16; }

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
  const Format f = c.format;
  const RopePlan& plan = sub.plans[c.layout == Layout::interleaved ? 0 : 1];
  const int k = c.pair;
  const int ia = plan.first_element(k), ib = plan.second_element(k);
  const double xa = value_of(c.input[0], f), xb = value_of(c.input[1], f);
  const bool finite = std::isfinite(xa) && std::isfinite(xb);
  const SpecialExpectation special = special_expectation(plan, sub.reference.get(), k, c.position, c.input, f);
  if (special.applies && !special.decided) ++run.undecided_special;
  std::optional<ExactPair> exact;
  if (finite) {
    exact = plan.identity(k) ? identity_pair(xa, xb) : sub.reference->rotate(k, static_cast<float>(xa), static_cast<float>(xb));
    const bool decided = f == Format::f32 ? exact->a.f32_decided && exact->b.f32_decided : exact->a.bf16_decided && exact->b.bf16_decided;
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
      run.report(document(sub.spectrum_json, c.layout, f, path, c.position, k, c.input, Claim::paths, std::move(found)));
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
        run.report(document(sub.spectrum_json, c.layout, f, path, c.position, k, c.input, Claim::special, std::move(found)));
      }
    }
    if (!exact) continue;
    const BoundCheck check = check_bound(*exact, got, f);
    run.undecided_figure += check.undecided;
    kernel::ElementRecord rec;
    rec.position = c.position;
    rec.token = c.index;
    rec.pair = k;
    rec.in_bits[0] = c.input[0];
    rec.in_bits[1] = c.input[1];
    rec.in[0] = xa;
    rec.in[1] = xb;
    rec.norm = exact->norm;
    for (int comp = 0; comp < 2; ++comp) {
      const kernel::ExactComponent& e = comp == 0 ? exact->a : exact->b;
      rec.component = comp;
      rec.got_bits = got[comp];
      rec.got = value_of(got[comp], f);
      rec.exact = e.value;
      rec.correctly_rounded = correctly_rounded(e, f);
      const double before = run.acc(f).max_ulps();
      const bool had = run.acc(f).elements() > 0;
      run.acc(f).add(rec, f == Format::f32 ? e.f32_decided : e.bf16_decided);
      if (!had || run.acc(f).max_ulps() > before) {
        const std::string where = kernel::layout_name(c.layout) + ", " + sub.label + ", path " + kernel::path_name(path) + ": ";
        (f == Format::f32 ? run.worst_where_f32 : run.worst_where_bf16) = where;
      }
    }
    if (check.breaks > 0) {
      nlohmann::json found = found_info(run, c, blk);
      found["got"] = hex_pair(got, f);
      found["reference"] = {hex_double(exact->a.value), hex_double(exact->b.value)};
      found["ulp"] = json_number(check.worst);
      found["bound"] = bound;
      run.report(document(sub.spectrum_json, c.layout, f, path, c.position, k, c.input, Claim::bound, std::move(found)));
    }
  }
}

// Reports elements where a path differs from the scalar twin outside every candidate's pair (the
// zero-filled pairs of a row): their documents carry the row's own (zero) inputs.
void check_unowned(Run& run, const Subject& sub, Format f, Layout layout, std::int64_t p, const std::vector<std::uint32_t>& row,
                   const std::vector<int>& owner, const std::vector<std::vector<std::uint32_t>>& outs) {
  const RopePlan& plan = sub.plans[layout == Layout::interleaved ? 0 : 1];
  for (std::size_t pi = 1; pi < outs.size(); ++pi)
    for (int k = 0; k < plan.block_pairs(); ++k) {
      const auto ia = static_cast<std::size_t>(plan.first_element(k)), ib = static_cast<std::size_t>(plan.second_element(k));
      if (owner[ia] >= 0) continue;
      if (outs[pi][ia] == outs[0][ia] && outs[pi][ib] == outs[0][ib]) continue;
      const std::uint32_t in[2] = {row[ia], row[ib]}, got[2] = {outs[pi][ia], outs[pi][ib]}, twin[2] = {outs[0][ia], outs[0][ib]};
      nlohmann::json found = {{"seed", run.options.seed}, {"kind", "zero-filled pair"}, {"got", hex_pair(got, f)},
                              {"reference", hex_pair(twin, f)}, {"ulp", nullptr}, {"bound", "bit-identical to the scalar twin"}};
      run.report(document(sub.spectrum_json, layout, f, run.paths[pi], p, k, in, Claim::paths, std::move(found)));
    }
}

}  // namespace

namespace detail {

KernelUnderTest production_kernel() {
  KernelUnderTest k;
  k.f32 = [](const RopePlan& plan, std::span<const std::int64_t> positions, std::span<const float> in, std::span<float> out, Path path) {
    const auto tokens = static_cast<std::int64_t>(positions.size());
    kernel::apply_rope(plan, positions, kernel::dense_view<const float>(in.data(), tokens, 1, plan.dim()),
                       kernel::dense_view<float>(out.data(), tokens, 1, plan.dim()), kernel::KernelOptions{path, 1});
  };
  k.bf16 = [](const RopePlan& plan, std::span<const std::int64_t> positions, std::span<const std::uint16_t> in, std::span<std::uint16_t> out,
              Path path) {
    const auto tokens = static_cast<std::int64_t>(positions.size());
    kernel::apply_rope(plan, positions, kernel::dense_view<const std::uint16_t>(in.data(), tokens, 1, plan.dim()),
                       kernel::dense_view<std::uint16_t>(out.data(), tokens, 1, plan.dim()), kernel::KernelOptions{path, 1});
  };
  return k;
}

KernelFuzzResult fuzz_kernel_with(const KernelFuzzOptions& options, std::ostream& log, const KernelUnderTest& kut) {
  if (!(options.budget_seconds > 0) || !std::isfinite(options.budget_seconds))
    throw InputError("--budget", "a finite number of seconds > 0", printf_string("%g", options.budget_seconds));
  if (options.max_candidates < 0) throw InputError("--max-candidates", "an integer >= 0 (0: until the budget ends)", std::to_string(options.max_candidates));
  const auto start = std::chrono::steady_clock::now();
  const Spectrum base = config_spectrum(options.config);  // InputError("--config", ...) for an unknown name

  std::vector<Subject> subjects;
  SpectrumRequest named;
  named.config = options.config;
  subjects.push_back(make_subject(spectrum_request_to_json(named), options.config, base));
  // The configuration as p-RoPE 0.75 (one block in eight): identity pairs, whose inputs must be
  // copied bit for bit (-0, NaN payloads), exist only in such variants.
  if (base.variant() == Variant::rope) {
    SpectrumRequest p_rope = named;
    p_rope.variant = Variant::p_rope;
    p_rope.fraction = "0.75";
    subjects.push_back(make_subject(spectrum_request_to_json(p_rope), options.config + " p-rope 0.75", resolve(p_rope).spectrum));
  }
  const RopePlan& plan0 = subjects[0].plans[0];
  KernelFuzzResult result;
  const int block = plan0.block_pairs();
  if (block < 1) {
    log << "kernel fuzz: " << options.config << " rotates no pair: nothing to fuzz\n";
    return result;
  }
  for (const Subject& s : subjects)
    if (s.plans[0].block_pairs() != block) throw InputError("--config", "a spectrum whose variants share one block", options.config);
  std::vector<std::vector<std::int64_t>> returns;
  for (int k = 0; k < block; ++k) returns.push_back(plan0.identity(k) ? std::vector<std::int64_t>{} : near_returns(plan_turns(plan0, k)));
  const KernelCandidates gen(options.seed, block, returns, static_cast<int>(subjects.size()));
  const std::vector<Path> paths = kernel::available_paths();

  log << "kernel fuzz: " << options.config << " (and " << (subjects.size() > 1 ? subjects[1].label + " in one block of eight" : "no variant")
      << "), paths";
  for (Path p : paths) log << " " << kernel::path_name(p);
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
    std::vector<std::uint32_t> rows[4];
    std::vector<int> owner[4];
    for (auto& r : rows) r.assign(static_cast<std::size_t>(dim), 0);
    for (auto& o : owner) o.assign(static_cast<std::size_t>(dim), -1);
    for (long long j = 0; j < n; ++j) {
      cands.push_back(gen.candidate(first + j, cos_sin));
      const KernelCandidate& c = cands.back();
      const int g = static_cast<int>(c.format) * 2 + static_cast<int>(c.layout);
      const RopePlan& plan = sub.plans[static_cast<std::size_t>(c.layout)];
      const auto ia = static_cast<std::size_t>(plan.first_element(c.pair)), ib = static_cast<std::size_t>(plan.second_element(c.pair));
      rows[g][ia] = c.input[0];
      rows[g][ib] = c.input[1];
      owner[g][ia] = owner[g][ib] = static_cast<int>(j);
    }
    const std::int64_t positions[1] = {blk.position};
    std::vector<std::vector<std::uint32_t>> outs[4];
    for (int g = 0; g < 4; ++g) {
      const Format f = g / 2 == 0 ? Format::f32 : Format::bf16;
      const Layout layout = g % 2 == 0 ? Layout::interleaved : Layout::half;
      if (std::all_of(owner[g].begin(), owner[g].end(), [](int o) { return o < 0; })) continue;
      for (Path p : paths) outs[g].push_back(run_rows(kut, sub.plans[static_cast<std::size_t>(layout)], positions, rows[g], f, p));
      check_unowned(run, sub, f, layout, blk.position, rows[g], owner[g], outs[g]);
    }
    for (const KernelCandidate& c : cands) check_candidate(run, sub, c, blk, outs[static_cast<int>(c.format) * 2 + static_cast<int>(c.layout)]);
    result.tried += n;
  }
  result.undecided = run.undecided_special + run.undecided_figure + run.undecided_reference;
  result.max_ulp_f32 = run.f32.max_ulps();
  result.max_ulp_bf16 = run.bf16.max_ulps();
  if (run.f32.elements() > 0) result.worst_f32 = run.worst_where_f32 + kernel::describe(run.f32.worst(), Format::f32);
  if (run.bf16.elements() > 0) result.worst_bf16 = run.worst_where_bf16 + kernel::describe(run.bf16.worst(), Format::bf16);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  log << "kernel fuzz: tried " << result.tried << " candidates, " << result.outputs_checked << " outputs checked (every path), "
      << result.undecided << " undecided (" << run.undecided_special << " specials whose cos or sin is within 2^-49 of 0, "
      << run.undecided_figure << " figures within 2^-27 of the bound, " << run.undecided_reference << " reference roundings); max ulp (sampled: LOWER bounds) f32 " << printf_string("%.9g", result.max_ulp_f32) << " (proved "
      << "UPPER bound 0.5+2^-25), bf16 " << printf_string("%.9g", result.max_ulp_bf16) << " (proved UPPER bound 0.5+2^-14); specials "
      << run.f32.specials() + run.bf16.specials() << " checked, " << run.f32.special_mismatches() + run.bf16.special_mismatches()
      << " wrong; " << run.violations << " violations, " << result.counterexamples.size() << " documents kept; "
      << printf_string("%.1f", result.seconds) << " s\n";
  return result;
}

namespace {

struct ParsedDocument {
  Spectrum spectrum{2, "10000"};
  Layout layout = Layout::interleaved;
  Format format = Format::f32;
  Path path = Path::scalar;
  std::int64_t position = 0;
  int pair = 0;
  std::uint32_t input[2] = {0, 0};
  Claim claim = Claim::bound;
};

const std::set<std::string> kDocumentKeys = {"format", "target", "spectrum", "layout", "dtype", "path", "position", "pair", "input", "claim", "found"};

// A required string field of the document.
std::string text_field(const nlohmann::json& doc, const JsonPlace& root, const std::string& name, const std::string& accepted) {
  return string_value(required(doc, root, name, accepted), root.member(name), accepted);
}

std::int64_t parse_position(const nlohmann::json& j, const JsonPlace& place) {
  const std::string accepted = "an int64 as a decimal string (e.g. \"-9223372036854775808\")";
  const std::string s = string_value(j, place, accepted);
  std::int64_t p = 0;
  const char* begin = s.data();
  const char* end = s.data() + s.size();
  // from_chars takes a leading '-' but no '+', spaces or radix prefix; a full match is required.
  const auto [ptr, ec] = std::from_chars(begin, end, p);
  if (s.empty() || ec != std::errc() || ptr != end || (s.size() > 1 && (s[0] == '0' || (s[0] == '-' && s[1] == '0'))))
    throw InputError(place.name(), accepted, shown(j));
  return p;
}

std::uint32_t parse_bits(const nlohmann::json& j, Format f, const JsonPlace& place) {
  const std::size_t digits = f == Format::f32 ? 8 : 4;
  const std::string accepted = "a hex bit pattern \"0x\" + " + std::to_string(digits) + " hex digits (" + kernel::format_name(f) + ")";
  const std::string s = string_value(j, place, accepted);
  if (s.size() != 2 + digits || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) throw InputError(place.name(), accepted, shown(j));
  std::uint32_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), v, 16);
  if (ec != std::errc() || ptr != s.data() + s.size()) throw InputError(place.name(), accepted, shown(j));
  return v;
}

ParsedDocument parse_document(const nlohmann::json& doc, const std::string& where) {
  const JsonPlace root = JsonPlace::document(where);
  if (!doc.is_object()) throw InputError(where, "a JSON object (a kernel counterexample document)", shown(doc));
  // The format first: a channel or band counterexample gets that answer, not "unknown key".
  const std::string format_accepted = std::string("\"") + kKernelFormat + "\"";
  const std::string format = text_field(doc, root, "format", format_accepted);
  if (format != kKernelFormat) throw InputError(root.member("format").name(), format_accepted, format);
  refuse_unknown_keys(doc, root, kDocumentKeys, "a kernel counterexample");
  const std::string target = text_field(doc, root, "target", "\"kernel\"");
  if (target != "kernel") throw InputError(root.member("target").name(), "\"kernel\"", target);
  ParsedDocument d;
  d.spectrum = spectrum_from_json(required(doc, root, "spectrum", "a spectrum object"), root.member("spectrum").name());
  d.layout = kernel::parse_layout(text_field(doc, root, "layout", "\"interleaved\" or \"half\""), root.member("layout").name());
  d.format = kernel::parse_format(text_field(doc, root, "dtype", "\"f32\" or \"bf16\""), root.member("dtype").name());
  const std::string path_accepted = "scalar, avx2, avx512 or avx512-bf16";
  const std::string path = text_field(doc, root, "path", path_accepted);
  bool known = false;
  for (Path p : {Path::scalar, Path::avx2, Path::avx512, Path::avx512_bf16})
    if (kernel::path_name(p) == path) {
      d.path = p;
      known = true;
    }
  if (!known) throw InputError(root.member("path").name(), path_accepted, path);
  d.position = parse_position(required(doc, root, "position", "an int64 as a decimal string"), root.member("position"));
  const std::string claim_accepted = "\"bound\", \"paths\" or \"special\"";
  const std::string claim = text_field(doc, root, "claim", claim_accepted);
  if (claim == "bound") d.claim = Claim::bound;
  else if (claim == "paths") d.claim = Claim::paths;
  else if (claim == "special") d.claim = Claim::special;
  else throw InputError(root.member("claim").name(), claim_accepted, claim);
  const RopePlan plan(d.spectrum, d.layout);
  const std::string pair_accepted = "an integer in [0, " + std::to_string(plan.block_pairs()) + ") (the rotating block pairs of " + plan.describe() + ")";
  const long long k = integer_value(required(doc, root, "pair", "an integer pair index"), root.member("pair"), pair_accepted);
  if (k < 0 || k >= plan.block_pairs()) throw InputError(root.member("pair").name(), pair_accepted, std::to_string(k));
  d.pair = static_cast<int>(k);
  const std::string input_accepted = "an array of two hex bit patterns (x_a, x_b)";
  const nlohmann::json& input = required(doc, root, "input", input_accepted);
  if (!input.is_array() || input.size() != 2) throw InputError(root.member("input").name(), input_accepted, shown(input));
  for (std::size_t i = 0; i < 2; ++i) d.input[i] = parse_bits(input[i], d.format, root.member("input").item(i));
  if (doc.contains("found") && !doc["found"].is_object()) throw InputError(root.member("found").name(), "an object (informational)", shown(doc["found"]));
  return d;
}

}  // namespace

KernelReplay replay_kernel_with(const nlohmann::json& doc, const std::string& where, const KernelUnderTest& kut) {
  const ParsedDocument d = parse_document(doc, where);
  const Format f = d.format;
  const RopePlan plan(d.spectrum, d.layout);
  const int k = d.pair;
  const std::vector<Path> available = kernel::available_paths();
  const bool have = std::find(available.begin(), available.end(), d.path) != available.end();
  const Path run_path = have ? d.path : Path::scalar;
  std::string head = claim_name(d.claim) + " on " + kernel::path_name(d.path) +
                     (have ? "" : " (this CPU lacks " + kernel::path_name(d.path) + ": ran its scalar twin)") + ", position " +
                     std::to_string(d.position) + ", pair " + std::to_string(k) + ", input (" + bits_hex(d.input[0], f) + ", " +
                     bits_hex(d.input[1], f) + ") " + kernel::format_name(f) + ": ";
  const auto ia = static_cast<std::size_t>(plan.first_element(k)), ib = static_cast<std::size_t>(plan.second_element(k));
  std::vector<std::uint32_t> row(static_cast<std::size_t>(plan.dim()), 0);
  row[ia] = d.input[0];
  row[ib] = d.input[1];
  const std::int64_t positions[1] = {d.position};
  KernelReplay out;
  if (d.claim == Claim::paths) {
    if (d.path == Path::scalar)
      throw InputError(where + ": path", "a SIMD path (avx2, avx512, avx512-bf16) for claim \"paths\" (the scalar twin is the reference)", "scalar");
    if (!have) {
      out.detail = head + "inconclusive: this CPU cannot run the path";
      return out;
    }
    const std::vector<std::uint32_t> got = run_rows(kut, plan, positions, row, f, d.path);
    const std::vector<std::uint32_t> twin = run_rows(kut, plan, positions, row, f, Path::scalar);
    const bool same = got[ia] == twin[ia] && got[ib] == twin[ib];
    out.verdict = same ? ReplayVerdict::no_longer_breaks : ReplayVerdict::still_breaks;
    out.detail = head + "got (" + bits_hex(got[ia], f) + ", " + bits_hex(got[ib], f) + "), scalar twin (" + bits_hex(twin[ia], f) + ", " +
                 bits_hex(twin[ib], f) + "): " + (same ? "identical" : "DIFFERENT") + " -> " + verdict_name(out.verdict);
    return out;
  }
  const std::vector<std::uint32_t> outv = run_rows(kut, plan, positions, row, f, run_path);
  const std::uint32_t got[2] = {outv[ia], outv[ib]};
  const double xa = value_of(d.input[0], f), xb = value_of(d.input[1], f);
  const bool finite = std::isfinite(xa) && std::isfinite(xb);
  std::unique_ptr<RopeReference> ref;
  if (!plan.identity(k)) {
    ref = std::make_unique<RopeReference>(plan);
    ref->set_position(d.position);
  }
  if (d.claim == Claim::special) {
    const SpecialExpectation e = special_expectation(plan, ref.get(), k, d.position, d.input, f);
    if (!e.applies)
      throw InputError(where + ": claim",
                       "\"special\" only for an identity pair, a non-finite input or two signed zeros (a finite pair has claim \"bound\")",
                       "special");
    const std::string text = head + "got (" + bits_hex(got[0], f) + ", " + bits_hex(got[1], f) + "), expected (" + bits_hex(e.bits[0], f) + ", " +
                             bits_hex(e.bits[1], f) + ") (" + (plan.identity(k) ? "bit-for-bit copy" : "IEEE result of the formula") + ")";
    if (!e.decided) {
      out.detail = text + ": inconclusive (cos or sin within 2^-49 of 0: the kernel's sign is not certain)";
      return out;
    }
    const bool matches = got[0] == e.bits[0] && got[1] == e.bits[1];
    out.verdict = matches ? ReplayVerdict::no_longer_breaks : ReplayVerdict::still_breaks;
    out.detail = text + " -> " + verdict_name(out.verdict);
    return out;
  }
  if (!finite)
    throw InputError(where + ": input", "finite values for claim \"bound\" (a non-finite input has claim \"special\")",
                     bits_hex(d.input[0], f) + ", " + bits_hex(d.input[1], f));
  const ExactPair exact = plan.identity(k) ? identity_pair(xa, xb) : ref->rotate(k, static_cast<float>(xa), static_cast<float>(xb));
  const BoundCheck check = check_bound(exact, got, f);
  const double bound = proved_bound(f);
  out.verdict = check.breaks > 0 ? ReplayVerdict::still_breaks : check.undecided > 0 ? ReplayVerdict::inconclusive : ReplayVerdict::no_longer_breaks;
  out.detail = head + printf_string("y_a got %a exact %a: %.9g ulp; y_b got %a exact %a: %.9g ulp; proved bound %.9g ulp (+- %a for the figure's own error)",
                                    value_of(got[0], f), exact.a.value, check.error[0].ulps, value_of(got[1], f), exact.b.value,
                                    check.error[1].ulps, bound, kFigureSlack) +
               " -> " + verdict_name(out.verdict);
  return out;
}

}  // namespace detail

KernelFuzzResult fuzz_kernel(const KernelFuzzOptions& options, std::ostream& log) {
  return detail::fuzz_kernel_with(options, log, detail::production_kernel());
}

KernelReplay replay_kernel_counterexample(const nlohmann::json& doc, const std::string& where) {
  return detail::replay_kernel_with(doc, where, detail::production_kernel());
}

}  // namespace ropecheck::adversarial

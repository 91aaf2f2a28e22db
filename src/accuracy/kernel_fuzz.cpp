#include "accuracy/kernel_fuzz.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <ostream>
#include <optional>

#include "adversarial/counterexample.h"  // spectrum_from_json: until the spectrum JSON moves to spectrum/
#include "accuracy/detail/kernel_fuzz_seam.h"
#include "accuracy/kernel_candidates.h"
#include "io/input_error.h"
#include "io/printf_string.h"
#include "kernel/apply_rope.h"
#include "kernel/bf16.h"
#include "accuracy/detail/ieee_rotation.h"
#include "accuracy/rope_reference.h"
#include "accuracy/ulp_error.h"
#include "spectrum/request.h"

namespace ropecheck::accuracy {
namespace {

using accuracy::ExactPair;
using Format = Dtype;  // numeric/dtype.h: the kernel dtypes f32 and bf16
using kernel::Layout;
using cpu::Path;
using kernel::RopePlan;
using accuracy::RopeReference;

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
std::vector<std::uint32_t> run_rows(const detail::KernelUnderTest& kut, const kernel::RopePlan& plan, std::span<const std::int64_t> positions,
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

SpecialExpectation special_expectation(const kernel::RopePlan& plan, const RopeReference* ref, int k, std::int64_t p, const std::uint32_t in[2],
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
  accuracy::detail::ieee_rotation(xa, xb, c, s, f, ya, yb);
  e.bits[0] = format_bits(ya, f);
  e.bits[1] = format_bits(yb, f);
  return e;
}

// The bound check of one output pair against the exact rotation.
struct BoundCheck {
  accuracy::ComponentError error[2];
  double worst = 0;        // the larger figure
  int breaks = 0;          // components certainly beyond the bound
  int undecided = 0;       // components within kFigureSlack of it
};

double correctly_rounded(const accuracy::ExactComponent& e, Format f) {
  return f == Format::f32 ? static_cast<double>(e.f32) : static_cast<double>(kernel::bf16_to_f32(e.bf16));
}

BoundCheck check_bound(const ExactPair& exact, const std::uint32_t got[2], Format f) {
  BoundCheck b;
  const double bound = proved_bound(f);
  for (int c = 0; c < 2; ++c) {
    const accuracy::ExactComponent& e = c == 0 ? exact.a : exact.b;
    b.error[c] = accuracy::component_error(value_of(got[c], f), e.value, correctly_rounded(e, f), exact.norm, f);
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
nlohmann::json document(const nlohmann::json& spectrum, kernel::Layout layout, Format f, Path path, std::int64_t p, int k, const std::uint32_t in[2],
                        Claim claim, nlohmann::json found) {
  return {{"format", kKernelFormat},
          {"target", "kernel"},
          {"spectrum", spectrum},
          {"layout", kernel::layout_name(layout)},
          {"dtype", dtype_name(f)},
          {"path", cpu::path_name(path)},
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

// Everything the fuzz accumulates.
struct Run {
  Run(const KernelFuzzOptions& o, const detail::KernelUnderTest& k, const std::vector<Path>& p, KernelFuzzResult& r)
      : options(o), kernel(k), paths(p), result(r) {}
  const KernelFuzzOptions& options;
  const detail::KernelUnderTest& kernel;
  const std::vector<Path>& paths;
  KernelFuzzResult& result;
  accuracy::ErrorAccumulator f32{Format::f32}, bf16{Format::bf16};
  std::string worst_where_f32, worst_where_bf16;
  long long violations = 0;
  // The three sources of `undecided`, for the log.
  long long undecided_special = 0, undecided_figure = 0, undecided_reference = 0;

  accuracy::ErrorAccumulator& acc(Format f) { return f == Format::f32 ? f32 : bf16; }

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
      run.acc(f).add(rec, f == Format::f32 ? e.f32_decided : e.bf16_decided);
      if (!had || run.acc(f).max_ulps() > before) {
        const std::string where = kernel::layout_name(c.layout) + ", " + sub.label + ", path " + cpu::path_name(path) + ": ";
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
void check_unowned(Run& run, const Subject& sub, Format f, kernel::Layout layout, std::int64_t p, const std::vector<std::uint32_t>& row,
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
      run.report(document(sub.spectrum_json, layout, f, run.paths[pi], p, k, in, Claim::paths, std::move(found)));
    }
}

}  // namespace

namespace detail {

KernelUnderTest production_kernel() {
  KernelUnderTest k;
  k.f32 = [](const kernel::RopePlan& plan, std::span<const std::int64_t> positions, std::span<const float> in, std::span<float> out, Path path) {
    const auto tokens = static_cast<std::int64_t>(positions.size());
    kernel::apply_rope(plan, positions, kernel::dense_view<const float>(in.data(), tokens, 1, plan.dim()),
                       kernel::dense_view<float>(out.data(), tokens, 1, plan.dim()), kernel::KernelOptions{path, 1});
  };
  k.bf16 = [](const kernel::RopePlan& plan, std::span<const std::int64_t> positions, std::span<const std::uint16_t> in, std::span<std::uint16_t> out,
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
  subjects.push_back(make_subject({{"config", options.config}}, options.config, base));
  // The configuration as p-RoPE 0.75 (one block in eight): identity pairs, whose inputs must be
  // copied bit for bit (-0, NaN payloads), exist only in such variants.
  if (base.variant() == Variant::rope)
    subjects.push_back(make_subject({{"config", options.config}, {"variant", "p-rope"}, {"fraction", "0.75"}}, options.config + " p-rope 0.75",
                                    Spectrum(base.dim(), base.theta(), Variant::p_rope, "0.75", base.scaling())));
  const kernel::RopePlan& plan0 = subjects[0].plans[0];
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
  const std::vector<Path> paths = cpu::available_paths();

  log << "kernel fuzz: " << options.config << " (and " << (subjects.size() > 1 ? subjects[1].label + " in one block of eight" : "no variant")
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
    std::vector<std::uint32_t> rows[4];
    std::vector<int> owner[4];
    for (auto& r : rows) r.assign(static_cast<std::size_t>(dim), 0);
    for (auto& o : owner) o.assign(static_cast<std::size_t>(dim), -1);
    for (long long j = 0; j < n; ++j) {
      cands.push_back(gen.candidate(first + j, cos_sin));
      const KernelCandidate& c = cands.back();
      const int g = (c.format == Format::f32 ? 0 : 2) + static_cast<int>(c.layout);
      const kernel::RopePlan& plan = sub.plans[static_cast<std::size_t>(c.layout)];
      const auto ia = static_cast<std::size_t>(plan.first_element(c.pair)), ib = static_cast<std::size_t>(plan.second_element(c.pair));
      rows[g][ia] = c.input[0];
      rows[g][ib] = c.input[1];
      owner[g][ia] = owner[g][ib] = static_cast<int>(j);
    }
    const std::int64_t positions[1] = {blk.position};
    std::vector<std::vector<std::uint32_t>> outs[4];
    for (int g = 0; g < 4; ++g) {
      const Format f = g / 2 == 0 ? Format::f32 : Format::bf16;
      const kernel::Layout layout = g % 2 == 0 ? kernel::Layout::interleaved : kernel::Layout::half;
      if (std::all_of(owner[g].begin(), owner[g].end(), [](int o) { return o < 0; })) continue;
      for (Path p : paths) outs[g].push_back(run_rows(kut, sub.plans[static_cast<std::size_t>(layout)], positions, rows[g], f, p));
      check_unowned(run, sub, f, layout, blk.position, rows[g], owner[g], outs[g]);
    }
    for (const KernelCandidate& c : cands) check_candidate(run, sub, c, blk, outs[(c.format == Format::f32 ? 0 : 2) + static_cast<int>(c.layout)]);
    result.tried += n;
  }
  result.undecided = run.undecided_special + run.undecided_figure + run.undecided_reference;
  result.max_ulp_f32 = run.f32.max_ulps();
  result.max_ulp_bf16 = run.bf16.max_ulps();
  if (run.f32.elements() > 0) result.worst_f32 = run.worst_where_f32 + accuracy::describe(run.f32.worst(), Format::f32);
  if (run.bf16.elements() > 0) result.worst_bf16 = run.worst_where_bf16 + accuracy::describe(run.bf16.worst(), Format::bf16);
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
  kernel::Layout layout = kernel::Layout::interleaved;
  Format format = Format::f32;
  Path path = Path::scalar;
  std::int64_t position = 0;
  int pair = 0;
  std::uint32_t input[2] = {0, 0};
  Claim claim = Claim::bound;
};

std::string got_text(const nlohmann::json& j) { return j.dump(); }

const nlohmann::json& field(const nlohmann::json& doc, const std::string& name, const std::string& where, const std::string& accepted) {
  const auto it = doc.find(name);
  if (it == doc.end()) throw InputError(where + ": " + name, accepted, "");
  return *it;
}

std::string string_field(const nlohmann::json& doc, const std::string& name, const std::string& where, const std::string& accepted) {
  const nlohmann::json& j = field(doc, name, where, accepted);
  if (!j.is_string()) throw InputError(where + ": " + name, accepted, got_text(j));
  return j.get<std::string>();
}


std::int64_t parse_position(const nlohmann::json& j, const std::string& where) {
  const std::string accepted = "an int64 as a decimal string (e.g. \"-9223372036854775808\")";
  if (!j.is_string()) throw InputError(where, accepted, got_text(j));
  const std::string s = j.get<std::string>();
  std::int64_t p = 0;
  const char* begin = s.data();
  const char* end = s.data() + s.size();
  // from_chars takes a leading '-' but no '+', spaces or radix prefix; a full match is required.
  const auto [ptr, ec] = std::from_chars(begin, end, p);
  if (s.empty() || ec != std::errc() || ptr != end || (s.size() > 1 && (s[0] == '0' || (s[0] == '-' && s[1] == '0'))))
    throw InputError(where, accepted, got_text(j));
  return p;
}

std::uint32_t parse_bits(const nlohmann::json& j, Format f, const std::string& where) {
  const std::size_t digits = f == Format::f32 ? 8 : 4;
  const std::string accepted = "a hex bit pattern \"0x\" + " + std::to_string(digits) + " hex digits (" + dtype_name(f) + ")";
  if (!j.is_string()) throw InputError(where, accepted, got_text(j));
  const std::string s = j.get<std::string>();
  if (s.size() != 2 + digits || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) throw InputError(where, accepted, got_text(j));
  std::uint32_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), v, 16);
  if (ec != std::errc() || ptr != s.data() + s.size()) throw InputError(where, accepted, got_text(j));
  return v;
}

ParsedDocument parse_document(const nlohmann::json& doc, const std::string& where) {
  if (!doc.is_object()) throw InputError(where, "a JSON object (a kernel counterexample document)", got_text(doc).substr(0, 80));
  static const char* const kKeys[] = {"format", "target", "spectrum", "layout", "dtype", "path", "position", "pair", "input", "claim", "found"};
  for (auto it = doc.begin(); it != doc.end(); ++it)
    if (std::find_if(std::begin(kKeys), std::end(kKeys), [&](const char* k) { return it.key() == k; }) == std::end(kKeys))
      throw InputError(where + ": " + it.key(), "one of the keys format, target, spectrum, layout, dtype, path, position, pair, input, claim, found",
                       it.key());
  const std::string format = string_field(doc, "format", where, std::string("\"") + kKernelFormat + "\"");
  if (format != kKernelFormat) throw InputError(where + ": format", std::string("\"") + kKernelFormat + "\"", format);
  const std::string target = string_field(doc, "target", where, "\"kernel\"");
  if (target != "kernel") throw InputError(where + ": target", "\"kernel\"", target);
  ParsedDocument d;
  d.spectrum = adversarial::spectrum_from_json(field(doc, "spectrum", where, "a spectrum object"), where + ": spectrum");
  d.layout = kernel::parse_layout(string_field(doc, "layout", where, "\"interleaved\" or \"half\""), where + ": layout");
  d.format = parse_dtype(string_field(doc, "dtype", where, "\"f32\" or \"bf16\""), where + ": dtype", kKernelDtypes);
  const std::string path_accepted = "scalar, avx2, avx512 or avx512-bf16";
  const std::string path = string_field(doc, "path", where, path_accepted);
  bool known = false;
  for (Path p : {Path::scalar, Path::avx2, Path::avx512, Path::avx512_bf16})
    if (cpu::path_name(p) == path) {
      d.path = p;
      known = true;
    }
  if (!known) throw InputError(where + ": path", path_accepted, path);
  d.position = parse_position(field(doc, "position", where, "an int64 as a decimal string"), where + ": position");
  const nlohmann::json& claim_j = field(doc, "claim", where, "\"bound\", \"paths\" or \"special\"");
  const std::string claim = claim_j.is_string() ? claim_j.get<std::string>() : got_text(claim_j);
  if (claim == "bound") d.claim = Claim::bound;
  else if (claim == "paths") d.claim = Claim::paths;
  else if (claim == "special") d.claim = Claim::special;
  else throw InputError(where + ": claim", "\"bound\", \"paths\" or \"special\"", claim);
  const kernel::RopePlan plan(d.spectrum, d.layout);
  const nlohmann::json& pair = field(doc, "pair", where, "an integer pair index");
  const std::string pair_accepted = "an integer in [0, " + std::to_string(plan.block_pairs()) + ") (the rotating block pairs of " + plan.describe() + ")";
  if (!pair.is_number_integer()) throw InputError(where + ": pair", pair_accepted, got_text(pair));
  const long long k = pair.get<long long>();
  if (k < 0 || k >= plan.block_pairs()) throw InputError(where + ": pair", pair_accepted, got_text(pair));
  d.pair = static_cast<int>(k);
  const nlohmann::json& input = field(doc, "input", where, "an array of two hex bit patterns");
  if (!input.is_array() || input.size() != 2) throw InputError(where + ": input", "an array of two hex bit patterns (x_a, x_b)", got_text(input));
  for (int i = 0; i < 2; ++i) d.input[i] = parse_bits(input[static_cast<std::size_t>(i)], d.format, where + ": input[" + std::to_string(i) + "]");
  if (doc.contains("found") && !doc["found"].is_object()) throw InputError(where + ": found", "an object (informational)", got_text(doc["found"]));
  return d;
}

}  // namespace

KernelReplay replay_kernel_with(const nlohmann::json& doc, const std::string& where, const KernelUnderTest& kut) {
  const ParsedDocument d = parse_document(doc, where);
  const Format f = d.format;
  const kernel::RopePlan plan(d.spectrum, d.layout);
  const int k = d.pair;
  const std::vector<Path> available = cpu::available_paths();
  const bool have = std::find(available.begin(), available.end(), d.path) != available.end();
  const Path run_path = have ? d.path : Path::scalar;
  std::string head = claim_name(d.claim) + " on " + cpu::path_name(d.path) +
                     (have ? "" : " (this CPU lacks " + cpu::path_name(d.path) + ": ran its scalar twin)") + ", position " +
                     std::to_string(d.position) + ", pair " + std::to_string(k) + ", input (" + bits_hex(d.input[0], f) + ", " +
                     bits_hex(d.input[1], f) + ") " + dtype_name(f) + ": ";
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

}  // namespace ropecheck::accuracy

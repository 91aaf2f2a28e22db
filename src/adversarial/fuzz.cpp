#include "adversarial/fuzz.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <ostream>
#include <sstream>

#include "adversarial/counterexample.h"
#include "adversarial/head_sampler.h"
#include "accuracy/kernel_fuzz.h"
#include "adversarial/presets.h"
#include "adversarial/shrink.h"
#include "io/input_error.h"
#include "io/printf_string.h"
#include "numeric/decimal.h"
#include "spectrum/config.h"

namespace ropecheck::adversarial {
namespace {

using Clock = std::chrono::steady_clock;

void prepare_out_dir(const std::string& out_dir, const std::string& target) {
  if (out_dir.empty()) throw InputError("--out", "a directory", "");
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(out_dir) / target, ec);
  if (ec) throw InputError("--out", "a writable directory", out_dir + ": " + ec.message());
}

// --config: a preset or head file (search around that head), or a spectrum configuration (fresh
// heads on it). Returns the base head, if any, and the spectrum request for fresh heads.
std::optional<Head> base_head(const std::optional<std::string>& config, SpectrumRequest& request) {
  request = SpectrumRequest{};
  request.config = "gemma-7b";
  if (!config) return std::nullopt;
  for (const std::string& name : preset_names())
    if (name == *config) return preset_head(name);
  if (std::filesystem::is_regular_file(*config)) return load_head(*config);
  for (const ModelConfig& c : named_configs())
    if (c.name == *config) {
      request.config = c.name;
      return std::nullopt;
    }
  std::string accepted = "a preset head (";
  for (const std::string& name : preset_names()) accepted += name + " ";
  accepted += "), a head JSON file, or a spectrum configuration";
  throw InputError("--config", accepted, *config);
}

std::string alpha_text(const Interval& x) { return decimal_interval_text(x, 10); }

}  // namespace

std::string target_name(FuzzTarget t) { return t == FuzzTarget::channel ? "channel" : t == FuzzTarget::band ? "band" : "kernel"; }

FuzzTarget parse_target(const std::string& name) {
  if (name == "channel") return FuzzTarget::channel;
  if (name == "band") return FuzzTarget::band;
  if (name == "kernel") return FuzzTarget::kernel;
  throw InputError("--target", "channel, band or kernel", name);
}

FuzzSummary run_fuzz(const FuzzOptions& o, std::ostream& log) {
  if (!(o.budget_seconds > 0) || !std::isfinite(o.budget_seconds))
    throw InputError("--budget", "a number of seconds > 0", printf_string("%g", o.budget_seconds));
  if (o.max_context < 2 || o.max_context > (1LL << 31)) throw InputError("--max-context", "an integer in [2, 2^31]", std::to_string(o.max_context));
  if (o.max_candidates < 0) throw InputError("--max-candidates", "an integer >= 0", std::to_string(o.max_candidates));
  const std::string target = target_name(o.target);
  FuzzSummary sum;
  const auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };

  if (o.target == FuzzTarget::kernel) {
    if (o.model && o.config) throw InputError("--model", "not given together with --config", *o.model);
    accuracy::KernelFuzzOptions ko;
    if (o.config) ko.config = *o.config;
    if (o.model) ko.model = o.model;
    if (o.layer_type) ko.layer_type = o.layer_type;
    ko.budget_seconds = o.budget_seconds;
    ko.seed = o.seed;
    ko.max_candidates = o.max_candidates;
    prepare_out_dir(o.out_dir, target);
    log << "ropecheck fuzz: seed " << o.seed << "\n";
    const accuracy::KernelFuzzResult kr = accuracy::fuzz_kernel(ko, log);
    sum.tried = kr.tried;
    sum.found = static_cast<long long>(kr.counterexamples.size());
    for (const nlohmann::json& doc : kr.counterexamples) {
      const StoredFile f = store_counterexample(o.out_dir, target, doc);
      (f.created ? sum.written : sum.already_present)++;
      sum.findings.push_back({f.path, f.created, 0, 0, "n/a", doc.value("claim", std::string("?"))});
    }
    sum.notes.push_back(printf_string("%lld outputs checked against the MPFR reference (%lld undecided rounding tests)", kr.outputs_checked, kr.undecided));
    std::string maxima;
    for (Dtype f : kKernelDtypes) maxima += (maxima.empty() ? "" : ", ") + dtype_name(f) + printf_string(" %.6g ulp", kr.max_ulp(f));
    sum.notes.push_back("max error " + maxima + " (sampled: lower bounds of the true maxima)");
    for (Dtype f : kKernelDtypes)
      if (!kr.worst(f).empty()) sum.notes.push_back("worst " + dtype_name(f) + ": " + kr.worst(f));
    sum.seconds = elapsed();
    return sum;
  }

  SpectrumRequest request;
  if (o.model && o.config) throw InputError("--model", "not given together with --config", *o.model);
  const std::optional<Head> base = base_head(o.config, request);
  if (o.model) {
    // Fresh heads on the model's spectrum: band heads over its lowest rotating pairs.
    request = SpectrumRequest{};
    request.model = o.model;
    request.layer_type = o.layer_type;
    resolve(request);  // a bad model or layer type is refused before anything is written
  }
  prepare_out_dir(o.out_dir, target);
  log << "ropecheck fuzz: seed " << o.seed << "\n";
  const HeadFamily family = o.target == FuzzTarget::channel ? HeadFamily::channel : HeadFamily::band;
  bool reason_noted = false;
  for (long long i = 0; (o.max_candidates == 0 || i < o.max_candidates) && elapsed() < o.budget_seconds; ++i) {
    const Head head = sample_head(family, request, base, o.seed, static_cast<std::uint64_t>(i));
    ++sum.tried;
    if (position_free(head)) {
      const PositionFreeCertificate cert = certify_position_free(head, o.max_context);
      if (cert.holds == Decision::yes) {
        ++sum.position_free;
        if (!reason_noted) sum.notes.push_back("candidate " + std::to_string(i) + ": " + cert.reason), reason_noted = true;
        continue;
      }
    }
    ScanResult r = scan_and_certify(head, o.max_context, false);
    sum.dropped += r.dropped;
    if (!r.found) continue;
    Head final_head = head;
    int shrink_steps = 0;
    if (!(base && i == 0)) {
      ShrinkResult s = shrink(head, std::move(r), o.max_context, 12);
      final_head = s.head;
      r = std::move(s.scan);
      shrink_steps = s.steps;
    }
    // r is the scan of final_head (shrink keeps the scan of the head it returns): its own
    // minimality certificate when the binary64 pass gave one with the break, else one more pass.
    const MinimalityCheck minimal = !o.certify_minimal           ? MinimalityCheck{}
                                    : !r.minimal.method.empty() ? r.minimal
                                                                : certify_no_shorter_break(final_head, r.candidate.context);
    ++sum.found;
    Counterexample cx;
    cx.target = target;
    cx.head = final_head;
    cx.before = r.before;
    cx.swaps = r.swaps;
    const std::string minimal_text = !o.certify_minimal                        ? "not checked"
                                     : minimal.none_shorter == Decision::yes ? "certified"
                                     : minimal.none_shorter == Decision::no  ? "no: a break at " + std::to_string(minimal.first_break)
                                                                             : "undecided at " + std::to_string(minimal.undecided_at);
    cx.found = {{"context", r.candidate.context},
                {"target_distance_before", r.candidate.distance_before},
                {"target_distance_after", r.candidate.distance_after},
                {"alpha_before", alpha_text(r.check.before.alpha)},
                {"alpha_after", alpha_text(r.check.after.alpha)},
                {"certified_bits", r.check.bits},
                {"shortest_context", minimal_text},
                {"seed", o.seed},
                {"candidate", i},
                {"config", o.config.value_or("")},
                {"shrink_steps", shrink_steps},
                {"certified_by", r.check.method},
                {"search", r.search}};
    if (o.model) cx.found["model"] = *o.model;  // only when set: files without a model keep their bytes
    const StoredFile f = store_counterexample(o.out_dir, target, to_json(cx));
    (f.created ? sum.written : sum.already_present)++;
    FuzzFinding finding{f.path, f.created, i, r.candidate.context, minimal_text,
                        printf_string("candidate %lld: context %lld, alpha %s -> %s, shortest %s, %s", i, r.candidate.context,
                                      alpha_text(r.check.before.alpha).c_str(), alpha_text(r.check.after.alpha).c_str(), minimal_text.c_str(),
                                      f.created ? "written" : "already present")};
    log << finding.line << "\n";
    sum.findings.push_back(finding);
    if (!sum.shortest_context || r.candidate.context < *sum.shortest_context) {
      sum.shortest_context = r.candidate.context;
      sum.shortest_file = f.path;
    }
  }
  sum.seconds = elapsed();
  return sum;
}

std::string format_summary(const FuzzOptions& o, const FuzzSummary& s) {
  std::ostringstream out;
  out << "fuzz --target " << target_name(o.target) << " --seed " << o.seed << " --budget " << printf_string("%g", o.budget_seconds)
      << (o.config ? " --config " + *o.config : "") << (o.model ? " --model " + *o.model : "")
      << (o.layer_type ? " --layer-type " + *o.layer_type : "") << "\n";
  out << printf_string("tried %lld, found %lld (certified), dropped %lld (float candidates that did not certify), written %lld, already present %lld",
                       s.tried, s.found, s.dropped, s.written, s.already_present);
  if (o.target != FuzzTarget::kernel) out << printf_string(", position-free %lld", s.position_free);
  out << printf_string(", %.2f s\n", s.seconds);
  if (o.target != FuzzTarget::kernel) {
    if (s.shortest_context) out << "shortest context broken: " << *s.shortest_context << " (" << s.shortest_file << ")\n";
    else out << "shortest context broken: none found within the budget (contexts up to " << o.max_context << ")\n";
  }
  for (const auto& f : s.findings) out << "  " << f.line << "  " << f.file << "\n";
  for (const auto& n : s.notes) out << n << "\n";
  return out.str();
}

}  // namespace ropecheck::adversarial

#include "accuracy/kernel_counterexample.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <memory>
#include <set>
#include <vector>

#include "accuracy/detail/kernel_fuzz_seam.h"
#include "accuracy/kernel_output_check.h"
#include "accuracy/rope_reference.h"
#include "io/input_error.h"
#include "io/named_values.h"
#include "io/json_fields.h"
#include "io/printf_string.h"
#include "spectrum/spectrum_json.h"

namespace ropecheck::accuracy {
namespace {

using cpu::Path;
using Claim = KernelClaim;
constexpr const char* kKernelFormat = kKernelCounterexampleFormat;

std::string claim_name(Claim c) { return kernel_claim_name(c); }

struct ParsedDocument {
  Spectrum spectrum{2, "10000"};
  std::optional<LayerType> layer;  // a model's layer type: its geometry and layout
  kernel::Layout layout = kernel::Layout::interleaved;
  Dtype format = Dtype::f32;
  Path path = Path::scalar;
  std::int64_t position = 0;
  int pair = 0;
  std::uint32_t input[2] = {0, 0};
  Claim claim = Claim::bound;
};

// The document's plan: the model's layer type (whose layout the document must name) or the spectrum.
kernel::RopePlan plan_of(const ParsedDocument& d, const std::string& layout_field) {
  return kernel::plan_for(ResolvedSpectrum{"", d.spectrum, 0, d.layer}, d.layout, layout_field);
}

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

std::uint32_t parse_bits(const nlohmann::json& j, Dtype f, const JsonPlace& place) {
  const auto digits = static_cast<std::size_t>(2 * dtype_info(f).bytes);  // the stored bits in hex
  const std::string accepted = "a hex bit pattern \"0x\" + " + std::to_string(digits) + " hex digits (" + dtype_name(f) + ")";
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
  {
    const ResolvedSpectrum rs = resolved_from_json(required(doc, root, "spectrum", "a spectrum object"), root.member("spectrum").name());
    d.spectrum = rs.spectrum;
    d.layer = rs.layer;
  }
  d.layout = kernel::parse_layout(text_field(doc, root, "layout", "\"interleaved\" or \"half\""), root.member("layout").name());
  d.format = parse_dtype(text_field(doc, root, "dtype", "\"f32\" or \"bf16\""), root.member("dtype").name(), kKernelDtypes);
  const std::string path_accepted = or_list(names_in(cpu::kPaths));
  d.path = cpu::parse_any_path(text_field(doc, root, "path", path_accepted), root.member("path").name());
  d.position = parse_position(required(doc, root, "position", "an int64 as a decimal string"), root.member("position"));
  const std::string claim_accepted = "\"bound\", \"paths\" or \"special\"";
  const std::string claim = text_field(doc, root, "claim", claim_accepted);
  if (claim == "bound") d.claim = Claim::bound;
  else if (claim == "paths") d.claim = Claim::paths;
  else if (claim == "special") d.claim = Claim::special;
  else throw InputError(root.member("claim").name(), claim_accepted, claim);
  const kernel::RopePlan plan = plan_of(d, root.member("layout").name());
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

std::string kernel_claim_name(KernelClaim c) {
  switch (c) {
    case Claim::bound: return "bound";
    case Claim::paths: return "paths";
    case Claim::special: return "special";
  }
  return "";
}

nlohmann::json json_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

nlohmann::json kernel_counterexample_json(const nlohmann::json& spectrum, kernel::Layout layout, Dtype f, Path path, std::int64_t p, int k,
                                          const std::uint32_t in[2], Claim claim, nlohmann::json found) {
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

nlohmann::json hex_pair(const std::uint32_t bits[2], Dtype f) { return {bits_hex(bits[0], f), bits_hex(bits[1], f)}; }

namespace detail {

KernelReplay replay_kernel_with(const nlohmann::json& doc, const std::string& where, const KernelUnderTest& kut) {
  const ParsedDocument d = parse_document(doc, where);
  const Dtype f = d.format;
  const kernel::RopePlan plan = plan_of(d, "layout");
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
  out.detail = head + printf_string("y_a got %a correctly rounded %a (exact %a): %.9g ulp; y_b got %a correctly rounded %a (exact %a): "
                                    "%.9g ulp; the contract: correctly rounded (proved bound %.9g ulp)",
                                    value_of(got[0], f), correctly_rounded(exact.a, f), exact.a.value, check.error[0].ulps, value_of(got[1], f),
                                    correctly_rounded(exact.b, f), exact.b.value, check.error[1].ulps, bound) +
               " -> " + verdict_name(out.verdict);
  return out;
}

}  // namespace detail

KernelReplay replay_kernel_counterexample(const nlohmann::json& doc, const std::string& where) {
  return detail::replay_kernel_with(doc, where, detail::production_kernel());
}

}  // namespace ropecheck::accuracy

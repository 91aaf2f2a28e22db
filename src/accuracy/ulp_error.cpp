#include "accuracy/ulp_error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>


namespace ropecheck::accuracy {
namespace {

constexpr std::size_t kLinearBins = std::size_t{1} << 14;  // [0, 2) in steps of 2^-13
constexpr double kLinearScale = 0x1p13;
constexpr std::size_t kPerOctave = 16;
constexpr int kMaxOctave = 1023;  // double's largest binade
constexpr std::size_t kInfBin = kLinearBins + static_cast<std::size_t>(kMaxOctave) * kPerOctave;

std::string hex_float(double v, std::uint32_t bits, Dtype f) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%a (0x%0*x)", v, 2 * dtype_info(f).bytes, bits);
  return buf;
}

}  // namespace

double format_floor(Dtype f) {
  require_kernel_dtype(f, "format_floor");
  return std::ldexp(1.0, -dtype_info(f).precision);
}

double format_ulp(double y, Dtype f) {
  require_kernel_dtype(f, "format_ulp");
  const DtypeInfo& info = dtype_info(f);
  const int mantissa = info.precision - 1;  // stored significand bits
  const double a = std::fabs(y);
  if (!(a >= std::ldexp(1.0, info.emin_normal))) return std::ldexp(1.0, info.emin_normal - mantissa);  // subnormal range (and 0)
  int ex = 0;
  std::frexp(a, &ex);  // a = m 2^ex, m in [1/2, 1): a in [2^(ex-1), 2^ex)
  const int e = std::min(ex - 1, info.emax);
  return std::ldexp(1.0, e - mantissa);
}

double metric_ulp(double y, double norm, Dtype f) { return std::max(format_ulp(y, f), format_floor(f) * norm); }

std::string metric_definition(Dtype f) {
  require_kernel_dtype(f, "metric_definition");
  const std::string p = "2^-" + std::to_string(dtype_info(f).precision);
  return "ulp floored at " + p + " x pair norm (" + dtype_name(f) + " ulp of the exact value, at least " + p + " ||(x_a, x_b)||)";
}

ComponentError component_error(double got, double exact, double correctly_rounded, double norm, Dtype f) {
  ComponentError e;
  if (std::isnan(got)) {
    e.ulps = e.abs = std::numeric_limits<double>::infinity();
    e.rel = norm >= 0x1p-126 ? e.abs : std::numeric_limits<double>::quiet_NaN();  // as below: NaN only for tiny pairs
    return e;
  }
  e.correctly_rounded = got == correctly_rounded;
  if (e.correctly_rounded && std::isinf(got)) {
    e.ulps = 0.5;  // a correctly rounded overflow (ulp_error.h)
    e.abs = 0;
    return e;
  }
  e.abs = std::fabs(got - exact);
  e.ulps = e.abs / metric_ulp(exact, norm, f);
  e.rel = norm >= 0x1p-126 ? e.abs / norm : std::numeric_limits<double>::quiet_NaN();
  return e;
}

double phase_error(double got_a, double got_b, double exact_a, double exact_b) {
  if (!std::isfinite(got_a) || !std::isfinite(got_b) || !std::isfinite(exact_a) || !std::isfinite(exact_b))
    return std::numeric_limits<double>::quiet_NaN();
  if ((got_a == 0 && got_b == 0) || (exact_a == 0 && exact_b == 0)) return std::numeric_limits<double>::quiet_NaN();
  // One rounding per product (FMA for the second): the angle is resolved to ~2^-52 rad, far below
  // a float32 phase error (~2^-24).
  const double cross = std::fma(got_a, exact_b, -(got_b * exact_a));
  const double dot = std::fma(got_a, exact_a, got_b * exact_b);
  return std::fabs(std::atan2(cross, dot));
}

int position_decade(std::int64_t p) {
  const std::uint64_t a = p < 0 ? static_cast<std::uint64_t>(-(p + 1)) + 1 : static_cast<std::uint64_t>(p);
  int d = 0;
  std::uint64_t bound = 10;
  while (d < kDecades - 1 && a >= bound) {
    ++d;
    if (d < kDecades - 1) bound *= 10;
  }
  return d;
}

std::string decade_label(int decade) {
  auto power = [](int i) -> std::string {
    if (i == 0) return "1";
    if (i <= 2) return i == 1 ? "10" : "100";
    return "1e" + std::to_string(i);
  };
  if (decade == 0) return "[0, 10)";
  if (decade == kDecades - 1) return "[1e18, 2^63]";
  return "[" + power(decade) + ", " + power(decade + 1) + ")";
}

std::string describe(const ElementRecord& r, Dtype f) {
  require_kernel_dtype(f, "describe");
  char buf[128];
  std::string s = "position " + std::to_string(r.position) + ", token " + std::to_string(r.token) + ", head " +
                  std::to_string(r.head) + ", ";
  if (r.pair >= 0) {
    s += "pair " + std::to_string(r.pair) + ", " + (r.component == 0 ? "y_a = x_a cos - x_b sin" : "y_b = x_a sin + x_b cos") +
         ": x_a = " + hex_float(r.in[0], r.in_bits[0], f) + ", x_b = " + hex_float(r.in[1], r.in_bits[1], f);
  } else {
    s += "pass-through element: x = " + hex_float(r.in[0], r.in_bits[0], f);
  }
  std::snprintf(buf, sizeof buf, "; exact %a (%.9g), correctly rounded %a", r.exact, r.exact, r.correctly_rounded);
  s += buf;
  s += ", got " + hex_float(r.got, r.got_bits, f);
  std::snprintf(buf, sizeof buf, "; error %.6g ulp, %.3g absolute, pair norm %.6g", r.error.ulps, r.error.abs, r.norm);
  return s + buf;
}

ErrorAccumulator::ErrorAccumulator(Dtype f)
    : format_(f), histogram_(kInfBin + 1, 0), decades_(static_cast<size_t>(kDecades)) {
  require_kernel_dtype(f, "ErrorAccumulator");
}

std::size_t ErrorAccumulator::bin_of(double u) {
  if (!(u < std::numeric_limits<double>::infinity())) return kInfBin;
  if (u < 2) return static_cast<std::size_t>(u * kLinearScale);
  const int o = std::min(std::ilogb(u), kMaxOctave);
  const auto sub = std::min<std::size_t>(static_cast<std::size_t>((std::ldexp(u, -o) - 1) * kPerOctave), kPerOctave - 1);
  return kLinearBins + static_cast<std::size_t>(o - 1) * kPerOctave + sub;
}

double ErrorAccumulator::bin_low(std::size_t b) {
  if (b >= kInfBin) return std::numeric_limits<double>::infinity();
  if (b < kLinearBins) return static_cast<double>(b) / kLinearScale;
  const std::size_t i = b - kLinearBins;
  const int o = static_cast<int>(i / kPerOctave) + 1;
  return std::ldexp(1.0 + static_cast<double>(i % kPerOctave) / kPerOctave, o);
}

double ErrorAccumulator::bin_high(std::size_t b) {
  if (b >= kInfBin) return std::numeric_limits<double>::infinity();
  if (b < kLinearBins) return static_cast<double>(b + 1) / kLinearScale;
  const std::size_t i = b - kLinearBins;
  const int o = static_cast<int>(i / kPerOctave) + 1;
  return std::ldexp(1.0 + static_cast<double>(i % kPerOctave + 1) / kPerOctave, o);
}

void ErrorAccumulator::add(ElementRecord r, bool decided) {
  r.error = component_error(r.got, r.exact, r.correctly_rounded, r.norm, format_);
  if (r.pair < 0 && r.got_bits != r.in_bits[0]) r.error.correctly_rounded = false;  // add_pass_through
  ++elements_;
  if (!decided) ++undecided_;
  else if (r.error.correctly_rounded) ++correctly_rounded_;
  ++histogram_[bin_of(r.error.ulps)];
  max_abs_ = std::max(max_abs_, r.error.abs);
  if (!std::isnan(r.error.rel)) max_rel_ = std::max(max_rel_, r.error.rel);
  DecadeStats& d = decades_[static_cast<size_t>(position_decade(r.position))];
  ++d.elements;
  if (decided && r.error.correctly_rounded) ++d.correctly_rounded;
  d.max_ulps = std::max(d.max_ulps, r.error.ulps);
  d.max_abs = std::max(d.max_abs, r.error.abs);
  if (!std::isnan(r.error.rel)) d.max_rel = std::max(d.max_rel, r.error.rel);
  if (!have_worst_ || r.error.ulps > worst_.error.ulps) {
    worst_ = r;
    have_worst_ = true;
  }
}

void ErrorAccumulator::add_phase(std::int64_t p, double phase) {
  if (std::isnan(phase)) return;
  max_phase_ = std::max(max_phase_, phase);
  DecadeStats& d = decades_[static_cast<size_t>(position_decade(p))];
  d.max_phase = std::max(d.max_phase, phase);
}

void ErrorAccumulator::add_special(bool matches) {
  ++specials_;
  if (!matches) ++special_mismatches_;
}

void ErrorAccumulator::add_pass_through(ElementRecord r) {
  r.pair = -1;
  ++pass_through_;
  if (r.got_bits != r.in_bits[0]) ++pass_through_mismatches_;
  add(std::move(r), true);
}

void ErrorAccumulator::add_pass_through_special(bool identical) {
  ++pass_through_;
  if (!identical) ++pass_through_mismatches_;
  add_special(identical);
}

void ErrorAccumulator::merge(const ErrorAccumulator& later) {
  pass_through_ += later.pass_through_;
  pass_through_mismatches_ += later.pass_through_mismatches_;
  elements_ += later.elements_;
  correctly_rounded_ += later.correctly_rounded_;
  undecided_ += later.undecided_;
  specials_ += later.specials_;
  special_mismatches_ += later.special_mismatches_;
  max_abs_ = std::max(max_abs_, later.max_abs_);
  max_rel_ = std::max(max_rel_, later.max_rel_);
  max_phase_ = std::max(max_phase_, later.max_phase_);
  if (later.have_worst_ && (!have_worst_ || later.worst_.error.ulps > worst_.error.ulps)) {
    worst_ = later.worst_;
    have_worst_ = true;
  }
  for (std::size_t i = 0; i < histogram_.size(); ++i) histogram_[i] += later.histogram_[i];
  for (std::size_t i = 0; i < decades_.size(); ++i) {
    DecadeStats& d = decades_[i];
    const DecadeStats& o = later.decades_[i];
    d.elements += o.elements;
    d.correctly_rounded += o.correctly_rounded;
    d.max_ulps = std::max(d.max_ulps, o.max_ulps);
    d.max_abs = std::max(d.max_abs, o.max_abs);
    d.max_rel = std::max(d.max_rel, o.max_rel);
    d.max_phase = std::max(d.max_phase, o.max_phase);
  }
}

double ErrorAccumulator::share_correctly_rounded() const {
  const std::uint64_t decided = elements_ - undecided_;
  return decided == 0 ? 1.0 : static_cast<double>(correctly_rounded_) / static_cast<double>(decided);
}

namespace {
std::size_t median_bin(const std::vector<std::uint64_t>& h, std::uint64_t n) {
  const std::uint64_t rank = (n - 1) / 2;  // the lower median, 0-based
  std::uint64_t seen = 0;
  for (std::size_t b = 0; b < h.size(); ++b) {
    seen += h[b];
    if (seen > rank) return b;
  }
  return h.size() - 1;
}
}  // namespace

double ErrorAccumulator::median_ulps() const {
  if (elements_ == 0) return 0;
  const std::size_t b = median_bin(histogram_, elements_);
  if (b >= kInfBin) return std::numeric_limits<double>::infinity();
  return (bin_low(b) + bin_high(b)) / 2;
}

double ErrorAccumulator::median_resolution() const {
  if (elements_ == 0) return 0;
  const std::size_t b = median_bin(histogram_, elements_);
  if (b >= kInfBin) return 0;
  return (bin_high(b) - bin_low(b)) / 2;
}

nlohmann::json ErrorAccumulator::to_json() const {
  auto num = [](double v) -> nlohmann::json {
    if (std::isfinite(v)) return v;
    return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
  };
  nlohmann::json j = {{"format", dtype_name(format_)},
                      {"metric", metric_definition(format_)},
                      {"elements", elements_},
                      {"correctly_rounded", correctly_rounded_},
                      {"undecided", undecided_},
                      {"share_correctly_rounded", share_correctly_rounded()},
                      {"max_ulps", num(max_ulps())},
                      {"median_ulps", num(median_ulps())},
                      {"median_resolution_ulps", median_resolution()},
                      {"max_abs", num(max_abs_)},
                      {"max_abs_over_pair_norm", num(max_rel_)},
                      {"max_phase_rad", num(max_phase_)},
                      {"specials", specials_},
                      {"special_mismatches", special_mismatches_},
                      {"pass_through", pass_through_},
                      {"pass_through_mismatches", pass_through_mismatches_}};
  if (have_worst_) {
    char hex[64];
    nlohmann::json w = {{"position", worst_.position}, {"token", worst_.token}, {"head", worst_.head},
                        {"pair", worst_.pair}, {"component", worst_.component == 0 ? "y_a" : "y_b"},
                        {"ulps", num(worst_.error.ulps)}, {"abs", num(worst_.error.abs)}, {"norm", worst_.norm},
                        {"text", describe(worst_, format_)}};
    for (int i = 0; i < 2; ++i) {
      std::snprintf(hex, sizeof hex, "%a", worst_.in[i]);
      w["inputs_hex"].push_back(hex);
      w["input_bits"].push_back(worst_.in_bits[i]);
    }
    std::snprintf(hex, sizeof hex, "%a", worst_.got);
    w["got_hex"] = hex;
    w["got_bits"] = worst_.got_bits;
    std::snprintf(hex, sizeof hex, "%a", worst_.exact);
    w["exact_hex"] = hex;
    std::snprintf(hex, sizeof hex, "%a", worst_.correctly_rounded);
    w["correctly_rounded_hex"] = hex;
    j["worst"] = w;
  }
  nlohmann::json decades = nlohmann::json::array();
  for (int i = 0; i < kDecades; ++i) {
    const DecadeStats& d = decades_[static_cast<size_t>(i)];
    if (d.elements == 0) continue;
    decades.push_back({{"positions", decade_label(i)}, {"elements", d.elements}, {"correctly_rounded", d.correctly_rounded},
                       {"max_ulps", num(d.max_ulps)}, {"max_abs", num(d.max_abs)}, {"max_abs_over_pair_norm", num(d.max_rel)},
                       {"max_phase_rad", num(d.max_phase)}});
  }
  j["decades"] = decades;
  return j;
}

}  // namespace ropecheck::accuracy

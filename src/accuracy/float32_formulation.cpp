#include "accuracy/float32_formulation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include "accuracy/detail/ieee_rotation.h"
#include "numeric/small_floats.h"
#include "spectrum/frequencies.h"
#include "spectrum/scaling_rules.h"

namespace ropecheck::accuracy {

namespace {

constexpr double kUnit32 = 0x1p-24;           // float32's unit roundoff
constexpr double kLibmError = 4 * kUnit32;         // 2 ulp of a float32 cos or sin: ulp(v) <= 2u |v| for normal v
constexpr double kFactorError = 5 * kUnit32;       // fl32(a) (u), a computed in float32 from its formula (3u), fl32(a c) (u)
constexpr double kBinary64Slack = 0x1p-47;  // this file's binary64 arithmetic, relative to the pair's norm
constexpr double kUnderflowSlack = 0x1p-146;  // the absolute error of up to 8 float32 roundings below 2^-126
constexpr double kReachSignMargin = 0x1p-48;  // |range endpoint| below which its sign is not trusted

// The range [lo, hi] of A(tau) = ya cos tau - yb sin tau over tau in [-delta, delta]: the endpoints,
// and +-r = +-||(ya, yb)|| where A(tau) = r cos(tau + psi) peaks (tau = -psi) or dips (tau = pi - psi)
// inside the interval. The caller widens it by the binary64 slack kBinary64Slack.
void rotation_range(double ya, double yb, double delta, double& lo, double& hi) {
  const double r = std::hypot(ya, yb);
  if (!(delta < std::numbers::pi)) {
    lo = -r, hi = r;
    return;
  }
  const double cd = std::cos(delta), sd = std::sin(delta);
  const double left = ya * cd + yb * sd, right = ya * cd - yb * sd;  // A(-delta), A(+delta)
  lo = std::min(left, right), hi = std::max(left, right);
  const double psi = std::atan2(yb, ya);                 // in [-pi, pi]
  const double peak = -psi;                              // A = +r
  const double dip = psi > 0 ? std::numbers::pi - psi : -std::numbers::pi - psi;  // A = -r, in [-pi, pi]
  const double margin = 1e-15 + 4e-16 * delta;           // atan2's and the reductions' errors
  if (std::fabs(peak) <= delta + margin) hi = r;
  if (std::fabs(dip) <= delta + margin) lo = -r;
}

// RN_d(RN32(v)): the formulation's float32 result rounded once more to the output dtype.
double to_format(double v, Dtype f) {
  const double v32 = detail::ieee_round(v, Dtype::f32);
  return f == Dtype::f32 ? v32 : detail::ieee_round(v32, f);
}

double decimal_value(const std::string& text) { return from_decimal<double>(text); }

// eps_f for one pair: the larger of the two float32 evaluations of theta'^(-e), plus the scaling
// rule's own float32 error. Each term is a first-order bound in units of u with its constant
// rounded up; second-order terms are below 2^-40 relative and absorbed by rounding the constants up.
double frequency_error_of(const Spectrum& s, int k, double theta_prime) {
  long long e = 0, den = 1;
  s.exponent(k, e, den);
  const double ex = static_cast<double>(e) / static_cast<double>(den);  // 2i/D in [0, 1)
  const double ln = std::fabs(std::log(theta_prime));
  const int i = static_cast<int>(e / 2);
  const double d = static_cast<double>(s.rotary_width());
  // powf path: the exponent rounded to float32 (|d(theta^x)/dx| = ln theta theta^x: ln * ex * u),
  // theta' rounded to float32 (ex u), powf within 1 ulp (2u), the reciprocal or negation (u).
  const double pow_path = (ln * ex + ex + 3) * kUnit32;
  // recurrence path (ggml): r = powf(theta', -2/D) has (2 ln / D + 2/D + 2) u; g_i = r^i by i
  // products accumulates i roundings and i times r's error.
  const double recurrence = (i * (3 + 2 * ln / d + 2 / d) + 1) * kUnit32;
  double eps = std::max(pow_path, recurrence);
  const Scaling& sc = s.scaling();
  switch (sc.kind) {
    case Scaling::Kind::none: break;
    case Scaling::Kind::linear: eps += kUnit32; break;  // g / F: one division
    case Scaling::Kind::dynamic:
      // theta' = theta (F S / M - (F - 1))^(D/(D-2)) in float32: 3 roundings of the base (<= 3u
      // relative each after the subtraction's <= F-fold amplification is bounded by the base >= 1),
      // powf (2u), the product (u), magnified by D/(D-2) <= 2 for the base: <= 9u on theta'; g =
      // theta'^(-ex) carries ex times theta's relative error.
      eps += 9 * ex * kUnit32 + 3 * kUnit32;
      break;
    case Scaling::Kind::llama3: {
      // g' = ((1 - s)/F + s) g, s = (C/w - low)/(high - low), w = 2 pi / g: s's error is
      // (C/w)/(high - low) (eps + 3u) + 2u (2 pi, the division, C/w; the subtraction and the
      // division by high - low) with C/w <= high in the band; g' >= g/F, so its relative error
      // is s's error times (F - 1), plus the blend's 3 roundings. low = high has no band.
      const double f = decimal_value(sc.factor), lo = decimal_value(sc.low_freq_factor), hi = decimal_value(sc.high_freq_factor);
      const double ds = hi > lo ? hi / (hi - lo) * (eps + 3 * kUnit32) + 2 * kUnit32 : 0;
      eps += std::max(0.0, f - 1) * ds + 3 * kUnit32;
      break;
    }
    case Scaling::Kind::yarn: {
      // g' = g (1 - m) + (g / F) m with the ramp m = clamp((i - low)/(high - low)) from integers
      // and binary64 corrections (<= 2u in float32): g' >= g/F, so (F - 1) 2u, plus 3 roundings.
      const double f = decimal_value(sc.factor);
      eps += std::max(0.0, f - 1) * 2 * kUnit32 + 3 * kUnit32;
      break;
    }
    case Scaling::Kind::longrope: eps += 3 * kUnit32; break;  // the factor's float32 value (u), the division (u), margin
  }
  return eps;
}

}  // namespace

const char* tables_name(Tables t) {
  switch (t) {
    case Tables::float32: return "float32";
    case Tables::dtype: return "dtype";
  }
  return "?";
}

std::optional<Tables> parse_tables(std::string_view name) {
  for (Tables t : kTables)
    if (name == tables_name(t)) return t;
  return std::nullopt;
}

bool ComponentReach::accepts(double v) const {
  if (std::isnan(v)) return nan;
  if (std::isinf(v) && infinities) return true;
  return lo <= v && v <= hi;
}

bool SpecialReach::accepts(double v) const {
  for (int i = 0; i < count; ++i) {
    const double w = values[i];
    if (std::isnan(w) ? std::isnan(v) : (w == v && std::signbit(w) == std::signbit(v))) return true;
  }
  return false;
}

Float32Formulation::Float32Formulation(const kernel::RopePlan& plan, Tables tables) : factor_(plan.attention_factor()), tables_(tables) {
  const Spectrum& s = plan.spectrum();
  const std::vector<double> g = frequencies<double>(s);
  const ScalingRule<double> rule(s.scaling(), decimal_value(s.theta()), s.rotary_width());
  frequency_.assign(static_cast<std::size_t>(plan.block_pairs()), 0);
  error_.assign(static_cast<std::size_t>(plan.block_pairs()), 0);
  for (int k = 0; k < plan.block_pairs(); ++k) {
    const int j = plan.spectrum_pair(k);
    frequency_[static_cast<std::size_t>(k)] = g[static_cast<std::size_t>(j)];
    if (s.rotated(j)) error_[static_cast<std::size_t>(k)] = frequency_error_of(s, j, rule.theta());
  }
}

double Float32Formulation::frequency_error(int k) const { return error_[static_cast<std::size_t>(k)]; }

double Float32Formulation::angle_error(int k, std::int64_t p) const {
  if (p == 0) return 0;  // fl32(0) g = 0 exactly
  const double eps = error_[static_cast<std::size_t>(k)];
  const double growth = (1 + eps) * (1 + kUnit32) * (1 + kUnit32) - 1 + 0x1p-50;  // + the binary64 frequency's error
  return std::fabs(static_cast<double>(p)) * frequency_[static_cast<std::size_t>(k)] * growth * (1 + 0x1p-50);
}

double Float32Formulation::reach(int k, std::int64_t p, double xa, double xb, const ExactPair& exact, double c, double s, Dtype f,
                                 ComponentReach out[2]) const {
  const double delta = angle_error(k, p);
  c /= factor_, s /= factor_;  // the reference's a cos, a sin as cos, sin (2^-53 relative: in kBinary64Slack)
  double clo, chi, slo, shi;
  cos_sin_ranges(c, s, delta, clo, chi, slo, shi);
  ComponentReach rounded[2];
  const bool tables = tables_ == Tables::dtype && f != Dtype::f32;
  if (tables) dtype_tables_reach(p, xa, xb, clo, chi, slo, shi, f, rounded);
  const double cmax = std::min(1.0, std::max(std::fabs(clo), std::fabs(chi)) + kBinary64Slack);
  const double smax = std::min(1.0, std::max(std::fabs(slo), std::fabs(shi)) + (p == 0 ? 0 : kBinary64Slack));
  const bool exact_case = p == 0 && factor_ == 1;  // c^ = 1, s^ = 0, every product exact
  const double libm = p == 0 ? 0 : kLibmError, fac = factor_ == 1 ? 0 : kFactorError;
  const double gamma = exact_case ? 0 : (1 + libm) * (1 + fac) * (1 + kUnit32) * (1 + kUnit32) * (1 + kUnit32) - 1;
  // y_a = x_a c - x_b s and y_b = x_a s + x_b c: each component's products and their magnitudes.
  const double mags[2][2] = {{std::fabs(xa) * cmax, std::fabs(xb) * smax}, {std::fabs(xa) * smax, std::fabs(xb) * cmax}};
  // The float32 overflow threshold (2 - 2^-24) 2^127: a product at or above it may round to inf.
  const double overflow = (0x1.fffffep127 + 0x1p103) * (1 - 0x1p-40);
  const double ys[2] = {exact.a.value, exact.b.value};
  for (int comp = 0; comp < 2; ++comp) {
    const double mag = factor_ * (mags[comp][0] + mags[comp][1]);
    const double e = exact_case ? 0 : mag * gamma * (1 + 0x1p-40) + kUnderflowSlack * std::max(1.0, factor_);
    const bool inf_a = factor_ * mags[comp][0] * (1 + gamma) >= overflow, inf_b = factor_ * mags[comp][1] * (1 + gamma) >= overflow;
    double lo = ys[comp], hi = ys[comp];
    // y_b(tau) = y_b cos tau + y_a sin tau = A(tau) for (y_b, -y_a).
    if (delta > 0) rotation_range(comp == 0 ? ys[0] : ys[1], comp == 0 ? ys[1] : -ys[0], delta, lo, hi);
    const double own = exact_case && delta == 0 ? 0 : kBinary64Slack * exact.norm * std::max(1.0, factor_);
    lo -= e + own;
    hi += e + own;
    if (exact_case) {  // the formulation returns RN_d(a x) exactly: the reference's correct rounding
      lo = hi = (comp == 0 ? exact.a : exact.b).in(f);
    } else {
      lo = to_format(lo, f);
      hi = to_format(hi, f);
    }
    out[comp] = ComponentReach{lo, hi, inf_a || inf_b, inf_a && inf_b};
    if (tables) {  // dtype tables widen the float32 ones: float32 tables stay accepted (their hull)
      const ComponentReach& r = rounded[comp];
      out[comp] = ComponentReach{std::min(lo, r.lo), std::max(hi, r.hi), out[comp].infinities || r.infinities, out[comp].nan || r.nan};
    }
  }
  return delta;
}

void Float32Formulation::cos_sin_ranges(double c, double s, double delta, double& clo, double& chi, double& slo, double& shi) {
  clo = chi = c, slo = shi = s;
  if (delta > 0) {
    rotation_range(c, s, delta, clo, chi);   // cos(t + tau) = c cos tau - s sin tau
    rotation_range(s, -c, delta, slo, shi);  // sin(t + tau) = s cos tau + c sin tau
  }
}

void Float32Formulation::table_ranges(std::int64_t p, double& clo, double& chi, double& slo, double& shi) const {
  // c' = fl32(fl32(a) c^): the libm's 2 ulp, the factor's float32 value and product, this file's
  // binary64 (relative, outward); at p = 0, cos 0 = 1 and sin 0 = +0 exactly.
  const double rel = (p == 0 ? 0 : kLibmError) + (factor_ == 1 ? 0 : kFactorError) + (p == 0 && factor_ == 1 ? 0 : kBinary64Slack);
  const double tiny = p == 0 ? 0 : 0x1p-149;
  for (double* v : {&clo, &chi, &slo, &shi}) *v *= factor_;
  clo -= std::fabs(clo) * rel + tiny, slo -= std::fabs(slo) * rel + tiny;
  chi += std::fabs(chi) * rel + tiny, shi += std::fabs(shi) * rel + tiny;
}

void Float32Formulation::dtype_tables_reach(std::int64_t p, double xa, double xb, double clo, double chi, double slo, double shi,
                                            Dtype f, ComponentReach out[2]) const {
  table_ranges(p, clo, chi, slo, shi);
  // The tables: the float32 values rounded to the dtype (monotone, so the ranges' endpoints' roundings).
  clo = to_format(clo, f), chi = to_format(chi, f), slo = to_format(slo, f), shi = to_format(shi, f);
  const auto in_f = [f](double v) { return detail::ieee_round(v, f); };
  // x t over t in [lo, hi], exact in binary64 (a 16-bit x times a 16-bit table value), hulled with
  // its rounding to the dtype (transformers' bf16 product); `overflow` when that rounding is infinite.
  bool overflow = false;
  const auto product = [&](double x, double lo, double hi, double& plo, double& phi) {
    const double a = x * lo, b = x * hi;
    plo = std::min(a, b), phi = std::max(a, b);
    const double rlo = in_f(plo), rhi = in_f(phi);
    if (std::isinf(rlo) || std::isinf(rhi)) overflow = true;
    plo = std::min(plo, rlo), phi = std::max(phi, rhi);
  };
  for (int comp = 0; comp < 2; ++comp) {
    double p1lo, p1hi, p2lo, p2hi;
    if (comp == 0) {  // y_a = x_a c - x_b s
      product(xa, clo, chi, p1lo, p1hi);
      product(xb, slo, shi, p2lo, p2hi);
      std::swap(p2lo, p2hi), p2lo = -p2lo, p2hi = -p2hi;
    } else {          // y_b = x_a s + x_b c
      product(xa, slo, shi, p1lo, p1hi);
      product(xb, clo, chi, p2lo, p2hi);
    }
    double lo = p1lo + p2lo, hi = p1hi + p2hi;
    // The sum in float32 (or in the dtype, which rounds as RN_d of it): one float32 rounding of
    // slack where neither product is exactly zero (with one, the sum is the other, exactly).
    const double m1 = std::max(std::fabs(p1lo), std::fabs(p1hi)), m2 = std::max(std::fabs(p2lo), std::fabs(p2hi));
    const double slack = m1 > 0 && m2 > 0 ? (m1 + m2) * (kUnit32 + kBinary64Slack) + kUnderflowSlack : 0;
    lo -= slack, hi += slack;
    out[comp] = ComponentReach{to_format(lo, f), to_format(hi, f), overflow, overflow};
  }
}

void Float32Formulation::special_reach(int k, std::int64_t p, double xa, double xb, double c, double s, Dtype f,
                                       SpecialReach out[2]) const {
  const double delta = angle_error(k, p);
  c /= factor_, s /= factor_;
  double clo, chi, slo, shi;
  cos_sin_ranges(c, s, delta, clo, chi, slo, shi);
  table_ranges(p, clo, chi, slo, shi);
  const bool rounded = tables_ == Tables::dtype && f != Dtype::f32;
  // dtype tables: their rounded ranges contain the float32 ranges' signs, and add a zero where a
  // range meets 0 (float16's underflow), so the union of the two formulations' signs is this.
  if (rounded) clo = to_format(clo, f), chi = to_format(chi, f), slo = to_format(slo, f), shi = to_format(shi, f);
  // The signs cos and sin can take: a float32 cos is never 0 and a float32 sin only at p = 0; a
  // table rounded to the dtype can hold a zero wherever its range meets 0 (float16's underflow).
  double cs[3], ss[3];
  int nc = 0, ns = 0;
  const double margin = rounded ? 0 : kReachSignMargin;
  if (chi > -margin) cs[nc++] = 0.5;
  if (clo < margin) cs[nc++] = -0.5;
  if (rounded && clo <= 0 && chi >= 0) cs[nc++] = 0;
  if (p == 0) {
    ss[ns++] = 0;  // sin 0 = +0 exactly, in every libm
  } else {
    if (shi > -margin) ss[ns++] = 0.5;
    if (slo < margin) ss[ns++] = -0.5;
    if (rounded && slo <= 0 && shi >= 0) ss[ns++] = 0;
  }
  out[0] = out[1] = SpecialReach{};
  for (int i = 0; i < nc; ++i) {
    for (int j = 0; j < ns; ++j) {
      double y[2];
      detail::ieee_rotation(xa, xb, cs[i], ss[j], f, y[0], y[1]);
      for (int comp = 0; comp < 2; ++comp) {
        SpecialReach& r = out[comp];
        if (!r.accepts(y[comp]) && r.count < 6) r.values[r.count++] = y[comp];
      }
    }
  }
}

}  // namespace ropecheck::accuracy

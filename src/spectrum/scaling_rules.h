// File: scaling_rules.h
// The frequency rules of scaling.h, generic over the scalar types. A rule is built once per
// spectrum (it precomputes theta', yarn's correction range) and then maps each unscaled frequency.
// float/double evaluate the formulas in that type; Real at its precision; Interval encloses the
// exact real rule. Where the rule branches on a real comparison (llama3's bands, yarn's
// floor/ceil and max/min, its "low == high" guard), an Interval decides the branch from its
// endpoints or, when it cannot, encloses every branch it meets (the hull) and decided() says so.
#pragma once

#include <cmath>

#include "numeric/scalar.h"
#include "spectrum/scaling.h"

namespace ropecheck {

namespace scaling_detail {

// f(x) for a nondecreasing f applied to both endpoints of an interval (exact for floor, ceil,
// max and min against exact constants): an enclosure of {f(t) : t in x}.
template <Scalar T, class F>
T monotone(const T& x, F f) {
  if constexpr (is_interval_v<T>) {
    Interval out(f(lower_of(x)), f(upper_of(x)));
    return out;
  } else if constexpr (is_real_v<T>) {
    return f(x);
  } else {
    return static_cast<T>(f(Real(x)));
  }
}

}  // namespace scaling_detail

template <Scalar T>
class ScalingRule {
 public:
  // theta: the spectrum's base; d: its rotary width (the exponent's denominator); Preconditions:
  // check_scaling(s, d/2) passed, and d > 2 for dynamic.
  ScalingRule(const Scaling& s, const T& theta, int d) : s_(s), theta_(theta), d_(d) {
    if (s.kind == Scaling::Kind::dynamic) {
      const T f = from_decimal<T>(s.factor);
      const T m = T(s.max_position);
      // transformers: S = max(sequence_length, M); vLLM: S = M * factor, so the base is f*f - (f - 1).
      const T ratio = s.vllm_static ? T(f * f - (f - 1)) : T(f * T(std::max(s.sequence_length, s.max_position)) / m - (f - 1));
      theta_ = T(theta * pow(ratio, T(T(d) / T(d - 2))));
    }
    if (s.kind == Scaling::Kind::yarn) yarn_range();
  }

  // Returns: the base the unscaled frequencies are powers of (theta' for dynamic, else theta).
  const T& theta() const { return theta_; }

  // Returns: the scaled frequency of rotating pair i (0-based) whose unscaled frequency is
  // g = theta()^(-2i/d); 0 stays 0.
  T operator()(const T& g, int i) const {
    using Kind = Scaling::Kind;
    switch (s_.kind) {
      case Kind::none:
      case Kind::dynamic: return g;
      case Kind::linear: return T(g / from_decimal<T>(s_.factor));
      case Kind::llama3: return llama3(g);
      case Kind::yarn: return yarn(g, i);
      case Kind::longrope: {
        const auto& ext = s_.longrope_long() ? s_.long_factor : s_.short_factor;
        return T(g / from_decimal<T>(ext.at(static_cast<size_t>(i))));
      }
    }
    return g;
  }

  // Returns: false when an Interval could not decide one of the rule's branches (the result is
  // then the hull of the branches met, still an enclosure of the exact rule).
  bool decided() const { return decided_; }

 private:
  T llama3(const T& g) const {
    if (!certainly_positive(g)) return g;  // an unrotated pair has no wavelength to scale
    const T factor = from_decimal<T>(s_.factor);
    const T low = from_decimal<T>(s_.low_freq_factor);
    const T high = from_decimal<T>(s_.high_freq_factor);
    const T context = T(s_.original_context);
    const T wavelength = T(T(2 * pi_value<T>()) / g);
    const T low_wavelength = T(context / low);
    const T high_wavelength = T(context / high);
    const T kept = g;
    const T interpolated = T(g / factor);
    // low = high (exact decimals) leaves no middle band; the smoothed branch is then never taken.
    const bool band = s_.low_freq_factor != s_.high_freq_factor &&
                      certainly_less(from_decimal<Interval>(s_.low_freq_factor), from_decimal<Interval>(s_.high_freq_factor));
    auto smoothed = [&] {
      const T smooth = T((context / wavelength - low) / (high - low));
      return T((1 - smooth) * g / factor + smooth * g);
    };
    if constexpr (is_interval_v<T>) {
      if (certainly_less(wavelength, high_wavelength)) return kept;
      if (certainly_less(low_wavelength, wavelength)) return interpolated;
      // Undecided: the hull of the branches whose wavelength region the interval meets. Each
      // branch encloses its formula over all of g and the rule is continuous at the thresholds,
      // so the hull stays as narrow as the inputs.
      decided_ = false;
      const bool meets_kept = lower_of(wavelength) < upper_of(high_wavelength);
      const bool meets_interpolated = upper_of(wavelength) > lower_of(low_wavelength);
      const bool meets_smoothed = band && upper_of(wavelength) >= lower_of(high_wavelength) &&
                                  lower_of(wavelength) <= upper_of(low_wavelength);
      T out = meets_smoothed ? smoothed() : meets_kept ? kept : interpolated;
      if (meets_kept) out = hull_of(out, kept);
      if (meets_interpolated) out = hull_of(out, interpolated);
      return out;
    } else {
      if (wavelength < high_wavelength) return kept;
      if (wavelength > low_wavelength || !band) return interpolated;
      return smoothed();
    }
  }

  // corr(r) = d ln(C / (2 pi r)) / (2 ln theta), then floor/ceil, max(low, 0), min(high, d-1).
  void yarn_range() {
    using scaling_detail::monotone;
    const T two_pi = T(2 * pi_value<T>());
    const T log_theta = T(log(theta_));
    auto corr = [&](const std::string& beta) {
      return T(T(d_) * log(T(T(s_.original_context) / (two_pi * from_decimal<T>(beta)))) / (2 * log_theta));
    };
    low_ = corr(s_.beta_fast);
    high_ = corr(s_.beta_slow);
    if (s_.truncate) {
      low_ = monotone(low_, [](const Real& x) { return Real(floor(x)); });
      high_ = monotone(high_, [](const Real& x) { return Real(ceil(x)); });
      if (!is_point(low_) || !is_point(high_)) decided_ = false;
    }
    low_ = monotone(low_, [](const Real& x) { return x < 0 ? Real(0) : x; });
    const Real last(d_ - 1);
    high_ = monotone(high_, [&](const Real& x) { return x > last ? last : x; });
    // transformers adds 0.001 to high when low == high (both integers after truncation).
    const bool equal = is_point(low_) && is_point(high_) && lower_of(low_) == lower_of(high_);
    const bool may_equal = !equal && !certainly_less(low_, high_) && !certainly_less(high_, low_);
    if (may_equal) decided_ = false;
    bumped_high_ = T(high_ + from_decimal<T>("0.001"));
    if (equal) high_ = bumped_high_;
    may_equal_ = may_equal;
  }

  T yarn_ramp(int i, const T& high) const {
    const T raw = T((T(i) - low_) / (high - low_));
    return scaling_detail::monotone(raw, [](const Real& x) { return x < 0 ? Real(0) : x > 1 ? Real(1) : x; });
  }

  T yarn(const T& g, int i) const {
    const T factor = from_decimal<T>(s_.factor);
    auto blend = [&](const T& ramp) { return T(g * (1 - ramp) + T(g / factor) * ramp); };
    if constexpr (is_interval_v<T>) {
      if (may_equal_) return hull_of(blend(yarn_ramp(i, high_)), blend(yarn_ramp(i, bumped_high_)));
    }
    return blend(yarn_ramp(i, high_));
  }

  Scaling s_;
  T theta_;
  int d_;
  T low_ = T(0), high_ = T(0), bumped_high_ = T(0);
  bool may_equal_ = false;
  mutable bool decided_ = true;
};

}  // namespace ropecheck

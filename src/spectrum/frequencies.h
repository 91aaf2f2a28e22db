// File: frequencies.h
// The frequencies g_k of a spectrum in any working precision, computed from the decimal theta and
// the integer exponent -e/D; never from a float literal, so MPFR and MPFI values are as exact as
// their precision allows (g_1 = theta^0 = 1 exactly in every type).
#pragma once

#include <vector>

#include "numeric/scalar.h"
#include "spectrum/spectrum.h"

namespace ropecheck {

// Returns: the scaled frequency (scaling.h states the rules) of an unscaled frequency g >= 0 (0 stays 0).
template <Scalar T>
T apply_scaling(const Scaling& s, const T& g) {
  if (s.kind == Scaling::Kind::none) return g;
  if (!certainly_positive(g)) return g;  // unrotated pair (g = 0): no wavelength to scale
  const T factor = from_decimal<T>(s.factor);
  if (s.kind == Scaling::Kind::linear) return T(g / factor);
  const T low = from_decimal<T>(s.low_freq_factor);
  const T high = from_decimal<T>(s.high_freq_factor);
  const T context = T(s.original_context);
  const T two_pi = T(2 * pi_value<T>());
  const T wavelength = T(two_pi / g);
  const T low_wavelength = T(context / low);
  const T high_wavelength = T(context / high);
  const T kept = g;
  const T interpolated = T(g / factor);
  const T smooth = T((context / wavelength - low) / (high - low));
  const T smoothed = T((1 - smooth) * g / factor + smooth * g);
  if constexpr (is_interval_v<T>) {
    if (certainly_less(wavelength, high_wavelength)) return kept;
    if (certainly_less(low_wavelength, wavelength)) return interpolated;
    // Undecided branch: the hull of the branches whose wavelength region the interval meets. Each
    // branch interval encloses its formula over all of g, so the hull encloses the rule, and since
    // the rule is continuous at the thresholds the hull stays as narrow as the inputs.
    const bool meets_kept = lower_of(wavelength) < upper_of(high_wavelength);
    const bool meets_interpolated = upper_of(wavelength) > lower_of(low_wavelength);
    const bool meets_smoothed = upper_of(wavelength) >= lower_of(high_wavelength) && lower_of(wavelength) <= upper_of(low_wavelength);
    T out = meets_smoothed ? smoothed : meets_kept ? kept : interpolated;
    if (meets_kept) out = hull_of(out, kept);
    if (meets_interpolated) out = hull_of(out, interpolated);
    return out;
  } else {
    if (wavelength < high_wavelength) return kept;
    if (wavelength > low_wavelength) return interpolated;
    return smoothed;
  }
}


// Returns: g_k for k = 0..pairs-1 (0 for unrotated pairs), scaling applied.
// float/double: pow in that type (what a model computes); Real: correctly rounded exponent then
// pow, relative error a few ulps; Interval: an enclosure of the exact real frequency.
template <Scalar T>
std::vector<T> frequencies(const Spectrum& s) {
  std::vector<T> g(static_cast<size_t>(s.pairs()), T(0));
  const T theta = from_decimal<T>(s.theta());
  for (int k = 0; k < s.pairs(); ++k) {
    if (!s.rotated(k)) continue;
    long long e = 0, den = 1;
    s.exponent(k, e, den);
    if (e == 0) {
      g[k] = T(1);  // theta^0, exact: the fastest pair turns exactly one radian per token
    } else {
      const T exponent = T(-T(e) / T(den));
      if constexpr (std::is_floating_point_v<T>) g[k] = std::pow(theta, exponent);
      else g[k] = T(pow(theta, exponent));
    }
    g[k] = apply_scaling(s.scaling(), g[k]);
  }
  return g;
}

}  // namespace ropecheck

// File: scaling.h
// Frequency scalings that released models apply on top of the RoPE spectrum.
//
//   none    g_k unchanged.
//   linear  position interpolation (Chen et al. 2023; HF rope_type "linear"): g_k / F.
//   llama3  Llama 3.1's band-wise rule, as transformers' _compute_llama3_parameters ships it, read as
//           real-number formulas: with wavelength w = 2*pi/g, low_w = C/low_freq_factor,
//           high_w = C/high_freq_factor:
//             w <  high_w           -> g                      (fast pairs kept)
//             w >  low_w            -> g / factor             (slow pairs interpolated)
//             otherwise             -> (1-s) g/factor + s g,  s = (C/w - low)/(high - low)
//           Llama 3.1 ships factor 8, low 1, high 4, C = 8192 (original context). The rule is
//           continuous at both thresholds (s = 1 at w = high_w, s = 0 at w = low_w); an interval
//           whose branch cannot be decided is enclosed by the hull of the branches it meets.
#pragma once

#include <string>

#include "numeric/scalar.h"

namespace ropecheck {

struct Scaling {
  enum class Kind { none, linear, llama3 };
  Kind kind = Kind::none;
  std::string factor = "1";           // linear F, or llama3 factor (decimal strings: exact input)
  std::string low_freq_factor = "1";  // llama3 only
  std::string high_freq_factor = "4"; // llama3 only
  long long original_context = 8192;  // llama3 only

  static Scaling llama3_1() { return {Kind::llama3, "8", "1", "4", 8192}; }
  static Scaling linear(const std::string& f) { return {Kind::linear, f, "1", "4", 8192}; }

  // Returns: "none", "linear 2", "llama3 (factor 8, low 1, high 4, original context 8192)".
  std::string describe() const;
};

// Parses the --scaling flag: "none", "linear:F" (F > 0) or "llama3". Throws InputError.
Scaling parse_scaling(const std::string& text);

// Returns: the scaled frequency of an unscaled frequency g >= 0 (0 stays 0).
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

}  // namespace ropecheck

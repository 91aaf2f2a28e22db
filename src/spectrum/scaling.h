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
// The rule itself, generic over the scalar types, is apply_scaling in spectrum/frequencies.h (this
// header stays free of Boost so that the kernel, which only carries a Scaling, does not parse it).
#pragma once

#include <string>

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

}  // namespace ropecheck

// File: scaling.h
// Frequency scalings that released models apply on top of the RoPE spectrum: every rope_type of
// Hugging Face transformers' rope utilities (v4.45 modeling_rope_utils.py and the v5 rules quoted in
// ../shared/notes/rope-variants-in-real-models.md), read as real-number formulas. Notation: g_i =
// theta^(-2i/d) is the unscaled frequency of rotating pair i (0-based) and d the rotary width (the
// exponent's denominator, Spectrum::rotary_width()); C = original_context, M = max_position.
//
//   none      g_i.
//   linear    position interpolation (Chen et al. 2023; rope_type "linear"): g_i / factor.
//   llama3    Llama 3.1's band rule, with wavelength w = 2pi/g, low_w = C/low, high_w = C/high:
//               w < high_w -> g;  w > low_w -> g/factor;  otherwise (1-s) g/factor + s g,
//               s = (C/w - low)/(high - low). Continuous at both thresholds. low = high (Llama 4
//               Scout) empties the middle band: a hard cut at w = C (w = C exactly is impossible:
//               2pi/C is transcendental, g algebraic).
//   dynamic   NTK-aware base change at the sequence length S (rope_type "dynamic"): theta' =
//               theta * (factor * S/M - (factor - 1))^(d/(d-2)), S = max(sequence_length, M)
//               (transformers' run-time rule); vllm_static: S = M * factor (vLLM computes it once).
//   yarn      (Peng et al. 2023; rope_type "yarn") corr(r) = d ln(C/(2 pi r)) / (2 ln theta),
//               low = corr(beta_fast), high = corr(beta_slow), floor/ceil'ed when truncate,
//               then low = max(low, 0), high = min(high, d-1), high += 0.001 when equal;
//               ramp_i = clamp((i - low)/(high - low), 0, 1); g_i (1 - ramp_i) + (g_i/factor) ramp_i.
//   longrope  (Ding et al. 2024; rope_type "longrope") g_i / ext_i, ext = long_factor when the
//               sequence length S > C, else short_factor (lists of d/2 decimals).
// Attention factor (cos and sin both multiplied by it; attention_factor.h): yarn and longrope only.
// Each kind's rules, generic over the scalar types, are in its own file, spectrum/scaling/<kind>.cpp,
// reached through spectrum/scaling_registry.h and scaling_rules.h (this header stays free of Boost
// so that the kernel, which only carries a Scaling, does not parse it).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ropecheck {

struct Scaling {
  enum class Kind { none, linear, llama3, dynamic, yarn, longrope };
  Kind kind = Kind::none;
  // Decimal strings: the config's exact text, so every precision parses the same number.
  std::string factor = "1";            // linear, llama3, dynamic, yarn; longrope's f for its attention
                                       // factor, "" meaning M/C (Phi-3's rule; attention_factor.h)
  std::string low_freq_factor = "1";   // llama3
  std::string high_freq_factor = "4";  // llama3
  long long original_context = 8192;   // C: llama3, yarn, longrope
  long long max_position = 0;          // M, max_position_embeddings: dynamic; longrope's default factor M/C
  long long sequence_length = 0;       // S: dynamic, longrope (0: not stated; dynamic then uses M, longrope short)
  bool vllm_static = false;            // dynamic: vLLM's static rule S = M * factor
  std::string beta_fast = "32", beta_slow = "1";  // yarn
  bool truncate = true;                            // yarn: floor/ceil the correction range
  std::optional<std::string> attention_factor;     // yarn, longrope: explicit factor (config field)
  std::optional<std::string> mscale, mscale_all_dim;  // yarn: the DeepSeek ratio form
  std::vector<std::string> short_factor, long_factor;  // longrope: one decimal per rotating pair

  static Scaling llama3_1() { return llama3("8", "1", "4", 8192); }
  static Scaling linear(const std::string& f) {
    Scaling s;
    s.kind = Kind::linear;
    s.factor = f;
    return s;
  }
  static Scaling llama3(const std::string& f, const std::string& low, const std::string& high, long long context) {
    Scaling s;
    s.kind = Kind::llama3;
    s.factor = f;
    s.low_freq_factor = low;
    s.high_freq_factor = high;
    s.original_context = context;
    return s;
  }

  // Returns: true when longrope uses long_factor (S > C).
  bool longrope_long() const { return sequence_length > original_context; }

  // Returns: "none", "linear 2", "llama3 (factor 8, low 1, high 4, original context 8192)",
  // "yarn (factor 4, original context 32768, beta 32/1, truncate)", ...
  std::string describe() const;
};

// Returns: the name of a kind as configs and spectrum files spell it ("none", "linear", "llama3",
// "dynamic", "yarn", "longrope").
std::string scaling_kind_name(Scaling::Kind kind);

// Parses the --scaling flag: "none", "linear:F" (F > 0), "llama3" (Llama 3.1's parameters) or
// "llama3:F:LOW:HIGH:C" (decimals F > 0, 0 < LOW <= HIGH, integer C >= 1). Throws InputError.
Scaling parse_scaling(const std::string& text);

// Checks the parameters a scaling's rule needs (positive decimals, beta_fast > beta_slow > 0,
// contexts >= 1, longrope lists of `pairs` decimals > 0); `pairs` is the rotating pair count.
// Throws InputError naming the parameter ("scaling.factor", "scaling.long_factor", ...).
void check_scaling(const Scaling& s, int pairs);

}  // namespace ropecheck

// File: variant.h
// The RoPE variants, each whole in its one entry of kVariants: its name, whether it reads a
// fraction, its CLI help, and what it does to the spectrum (spectrum.h states the meanings). Spectra,
// spectrum files, the CLI's flags (--<name>), the C ABI's spec->variant and Python's keywords (the
// name with '-' written '_': p_rope) all go through this list.
#pragma once

#include <cstddef>
#include <iterator>
#include <string>
#include <string_view>

namespace ropecheck {

enum class Variant { rope, nope, p_rope, reversed, partial };

struct VariantInfo {
  Variant value;
  std::string_view name;  // as spectrum files and the C ABI spell it; the CLI flag is --<name>
  bool takes_fraction;    // P or F in [0, 1] (spectrum.h); rope and nope take none
  std::string_view help;  // the CLI flag's help ("" for rope: the default, no flag)
  // The number m of rotated pairs of `pairs` = d/2, given m_f = floor(fl(P*d)/2) from the fraction
  // (spectrum.h; 0 when the variant takes none).
  int (*rotated_pairs)(int pairs, int fraction_pairs);
  // Whether pair k (0-based) rotates, given the m of rotated_pairs.
  bool (*rotated)(int k, int pairs, int m);
  // The denominator D of the frequency exponent -2k/D: d, or 2m when the frequencies are recomputed
  // over the rotated dims (partial).
  int (*rotary_width)(int dim, int m);
};

namespace variant_detail {
constexpr int all_pairs(int pairs, int) { return pairs; }
constexpr int fraction_pairs(int, int m) { return m; }
constexpr int full_width(int dim, int) { return dim; }
constexpr bool first_m(int k, int, int m) { return k < m; }
}  // namespace variant_detail

inline constexpr VariantInfo kVariants[] = {
    {Variant::rope, "rope", false, "", variant_detail::all_pairs, [](int, int, int) { return true; }, variant_detail::full_width},
    {Variant::nope, "nope", false, "no positional encoding (every frequency 0)", [](int, int) { return 0; },
     [](int, int, int) { return false; }, variant_detail::full_width},
    {Variant::p_rope, "p-rope", true, "p-RoPE: keep the floor(P*d/2) highest frequencies (P in [0,1])", variant_detail::fraction_pairs,
     variant_detail::first_m, variant_detail::full_width},
    {Variant::reversed, "reversed", true, "reversed p-RoPE: keep the floor(P*d/2) lowest frequencies (P in [0,1])",
     variant_detail::fraction_pairs, [](int k, int pairs, int m) { return k >= pairs - m; }, variant_detail::full_width},
    {Variant::partial, "partial", true,
     "GPT-NeoX partial rotary: first floor(F*d/2) pairs, frequencies over the rotated dims (F in [0,1])", variant_detail::fraction_pairs,
     variant_detail::first_m, [](int, int m) { return 2 * m; }},
};

// The table lists every enumerator in declaration order (so none can be skipped but the last).
static_assert([] {
  for (std::size_t i = 0; i < std::size(kVariants); ++i)
    if (static_cast<std::size_t>(kVariants[i].value) != i) return false;
  return true;
}());

// Returns: the entry of v.
const VariantInfo& variant_info(Variant v);
// Returns: "rope", "nope", "p-rope", "reversed", "partial".
std::string variant_name(Variant v);
// Returns: the variant variant_name() calls `name`. Throws InputError(input, the five names, name).
Variant parse_variant(const std::string& name, const std::string& input = "variant");
// Returns: true when the variant reads a fraction (p-rope, reversed, partial).
bool variant_takes_fraction(Variant v);

}  // namespace ropecheck

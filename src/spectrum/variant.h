// File: variant.h
// The RoPE variants (their meaning: spectrum.h), named once. kVariants is the one list: spectrum
// files, the CLI, the C ABI's spec->variant and Python's keywords (the name with '-' written '_':
// p_rope) all parse through parse_variant.
#pragma once

#include <cstddef>
#include <iterator>
#include <string>
#include <string_view>

namespace ropecheck {

enum class Variant { rope, nope, p_rope, reversed, partial };

struct VariantInfo {
  Variant value;
  std::string_view name;  // as spectrum files and the C ABI spell it
  bool takes_fraction;    // P or F in [0, 1] (spectrum.h); rope and nope take none
};
inline constexpr VariantInfo kVariants[] = {{Variant::rope, "rope", false},
                                            {Variant::nope, "nope", false},
                                            {Variant::p_rope, "p-rope", true},
                                            {Variant::reversed, "reversed", true},
                                            {Variant::partial, "partial", true}};

// The table lists every enumerator in declaration order (so none can be skipped but the last).
static_assert([] {
  for (std::size_t i = 0; i < std::size(kVariants); ++i)
    if (static_cast<std::size_t>(kVariants[i].value) != i) return false;
  return true;
}());

// Returns: "rope", "nope", "p-rope", "reversed", "partial".
std::string variant_name(Variant v);
// Returns: the variant variant_name() calls `name`. Throws InputError(input, the five names, name).
Variant parse_variant(const std::string& name, const std::string& input = "variant");
// Returns: true when the variant reads a fraction (p-rope, reversed, partial).
bool variant_takes_fraction(Variant v);

}  // namespace ropecheck

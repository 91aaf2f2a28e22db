#include "spectrum/variant.h"

#include "io/input_error.h"

namespace ropecheck {

// kVariants lists every enumerator at its own index (variant.h's static_assert).
const VariantInfo& variant_info(Variant v) { return kVariants[static_cast<std::size_t>(v)]; }

std::string variant_name(Variant v) { return std::string(variant_info(v).name); }

Variant parse_variant(const std::string& name, const std::string& input) {
  std::string names;
  for (const VariantInfo& e : kVariants) {
    if (e.name == name) return e.value;
    names += (names.empty() ? "" : ", ") + std::string(e.name);
  }
  throw InputError(input, "one of " + names, name);
}

bool variant_takes_fraction(Variant v) { return variant_info(v).takes_fraction; }

}  // namespace ropecheck

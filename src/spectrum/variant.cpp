#include "spectrum/variant.h"

#include "io/input_error.h"

namespace ropecheck {

namespace {

const VariantInfo* variant_info(Variant v) {
  for (const VariantInfo& e : kVariants)
    if (e.value == v) return &e;
  return nullptr;
}

}  // namespace

std::string variant_name(Variant v) {
  const VariantInfo* e = variant_info(v);
  return e ? std::string(e->name) : "rope";
}

Variant parse_variant(const std::string& name, const std::string& input) {
  std::string names;
  for (const VariantInfo& e : kVariants) {
    if (e.name == name) return e.value;
    names += (names.empty() ? "" : ", ") + std::string(e.name);
  }
  throw InputError(input, "one of " + names, name);
}

bool variant_takes_fraction(Variant v) {
  const VariantInfo* e = variant_info(v);
  return e && e->takes_fraction;
}

}  // namespace ropecheck

// spectrum/variant.h: kVariants is the one list of variants; each name parses back to its value,
// the fraction flag agrees with what Spectrum reads, and an unknown name is refused naming the input.
#include "spectrum/variant.h"

#include <gtest/gtest.h>

#include "io/input_error.h"
#include "spectrum/spectrum.h"

namespace ropecheck {
namespace {

TEST(Variant, EveryNameParsesBack) {
  for (const VariantInfo& v : kVariants) {
    EXPECT_EQ(variant_name(v.value), v.name);
    EXPECT_EQ(parse_variant(std::string(v.name)), v.value) << v.name;
    EXPECT_EQ(variant_takes_fraction(v.value), v.takes_fraction) << v.name;
  }
}

TEST(Variant, FractionVariantsReadTheirFraction) {
  // A fraction-taking variant with fraction 0 rotates no pair; rope and nope ignore the fraction.
  for (const VariantInfo& v : kVariants) {
    const Spectrum s(8, "10000", v.value, "0");
    if (v.takes_fraction) EXPECT_EQ(s.rotated_pairs(), 0) << v.name;
    else EXPECT_EQ(s.rotated_pairs(), v.value == Variant::rope ? 4 : 0) << v.name;
  }
}

TEST(Variant, UnknownNameIsRefusedNamingTheInput) {
  try {
    parse_variant("alibi", "spec->variant");
    FAIL() << "alibi parsed";
  } catch (const InputError& e) {
    EXPECT_EQ(e.input(), "spec->variant");
    EXPECT_EQ(e.accepted(), "one of rope, nope, p-rope, reversed, partial");
    EXPECT_EQ(e.got(), "alibi");
  }
}

}  // namespace
}  // namespace ropecheck

// Theorem 5.3's heads in finite precision (finite/head_strictness.h): the d = 2, g = 1 diagonal head
// breaks at offset 710 in float32 while its exact verdict stays strict; bad settings are InputErrors.
#include <gtest/gtest.h>

#include "finite/head_strictness.h"
#include "io/input_error.h"
#include "io/printf_string.h"

namespace ropecheck::finite {
namespace {

TEST(FiniteInput, HeadsBadValuesAreInputErrors) {
  const Spectrum single(2, "10000");
  HeadSettings h;
  h.N = 1;
  EXPECT_THROW(thm_5_3_finite("x", single, false, {Dtype::f32}, h, cpu::Path::scalar), InputError);
  EXPECT_THROW(thm_5_3_finite("x", Spectrum(4, "10000", Variant::nope), false, {Dtype::f32}, HeadSettings{}, cpu::Path::scalar),
               InputError);
}

// Theorem 5.3, d = 2, g = 1, psi = (1, 0): every offset m < 711 other than 0 has
// 1 - cos(m) >= 1 - cos(44) = 1.6e-4 (44 = 7 * 2pi - 0.018), far above float32's rounding of
// activations of size 1 (~2^-23), so rows 1..700 are strict; from row 711 on, the key 710 tokens back
// has exact margin 1.8e-9, below one float32 ulp of 1: rounding decides, and over 314 such rows
// some tie or invert. The exact verdict stays strict (certified).
TEST(FiniteThm53, SinglePairDiagonalBreaksAt710InFloat32) {
  const Spectrum single(2, "10000");
  HeadSettings h;
  h.K = 1;
  h.N = 700;
  const HeadConstruction ok = thm_5_3_finite("d=2", single, false, {Dtype::f32}, h, cpu::default_path());
  ASSERT_TRUE(ok.exact_strict[0]);
  for (const HeadStrictness& r : ok.rows) {
    if (r.rotator != Implementation::kernel) continue;
    EXPECT_TRUE(r.strict) << "N=700: row " << r.min_row << " key " << r.min_key << ": " << hex_float(r.a_target) << " vs " << hex_float(r.a_other);
  }
  h.N = 1024;
  const HeadConstruction broken = thm_5_3_finite("d=2", single, false, {Dtype::f32}, h, cpu::default_path());
  ASSERT_TRUE(broken.exact_strict[0]);
  EXPECT_EQ(broken.exact_offset[0], 710);
  EXPECT_LT(broken.exact_margin_upper[0], 2e-9);
  EXPECT_GT(broken.exact_margin_lower[0], 1e-9);
  for (const HeadStrictness& r : broken.rows) {
    if (r.rotator != Implementation::kernel) continue;
    EXPECT_FALSE(r.strict);
    EXPECT_EQ(r.min_row - r.min_key, 710) << "row " << r.min_row << " key " << r.min_key << ": " << hex_float(r.a_target) << " vs "
                                          << hex_float(r.a_other);
    EXPECT_LE(r.min_margin, 0.0);
  }
}

}  // namespace
}  // namespace ropecheck::finite

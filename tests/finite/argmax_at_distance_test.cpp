// Proposition 3.1 in finite precision (finite/argmax_at_distance.h): the d = 2, g = 1 argmax fails
// at position 710 in float32 while its exact verdict holds; the kernel holds on a many-pair
// spectrum; bad settings are InputErrors.
#include <gtest/gtest.h>

#include "finite/argmax_at_distance.h"
#include "io/input_error.h"
#include "io/printf_string.h"

namespace ropecheck::finite {
namespace {

TEST(FiniteInput, ArgmaxBadValuesAreInputErrors) {
  const Spectrum single(2, "10000");
  ArgmaxSettings a;
  a.max_distance = 0;
  EXPECT_THROW(prop_3_1_finite("x", single, {Dtype::f32}, a, cpu::Path::scalar), InputError);
}

// Proposition 3.1 with the single pair: in a context of r + 1 tokens the key at position p has the
// exact activation ||q||^2 cos(p), largest at p = 0 (the target) and next at p = 710
// (1 - cos 710 = 1.8e-9, below float32's rounding of values near ||q||^2); every other p <= 1024 is
// at least 1 - cos(44) = 1.6e-4 (relative) below. So float32 holds for every r < 710 and the first
// failure, somewhere from r = 710 on, is the key at position 710. The exact verdict holds, its
// smallest margin at offset 710.
TEST(FiniteProp31, SinglePairFailsAtPosition710InFloat32) {
  const Spectrum single(2, "10000");
  ArgmaxSettings a;
  a.max_distance = 1024;
  a.max_shift_log2 = 0;
  const ArgmaxConstruction c = prop_3_1_finite("d=2", single, {Dtype::f32}, a, cpu::default_path());
  ASSERT_TRUE(c.exact[0].holds);
  EXPECT_EQ(c.exact[0].runner_up_offset, 710);
  for (const ArgmaxScan& s : c.scans) {
    if (s.rotator != Implementation::kernel) continue;
    EXPECT_GE(s.first_failure.r, 710) << "holds up to " << s.holds_up_to << "; key " << s.first_failure.position << ": "
                                      << hex_float(s.first_failure.a_other) << " >= " << hex_float(s.first_failure.a_target);
    EXPECT_EQ(s.first_failure.position, 710) << "context " << s.first_failure.r << ": " << hex_float(s.first_failure.a_other)
                                             << " >= " << hex_float(s.first_failure.a_target);
    EXPECT_EQ(s.holds_up_to, s.first_failure.r - 1);
  }
}

// The kernel in a many-pair spectrum: the argmax holds at every distance of a small context in
// both dtypes, as the exact verdict does (margins are O(1) there, rounding is 2^-8 at worst).
TEST(FiniteProp31, KernelHoldsOnAManyPairSpectrum) {
  const Spectrum s(32, "10000");
  ArgmaxSettings a;
  a.max_distance = 128;
  a.max_shift_log2 = 10;
  const ArgmaxConstruction c = prop_3_1_finite("d=32", s, {Dtype::f32, Dtype::bf16}, a, cpu::default_path());
  for (const ExactArgmax& e : c.exact) EXPECT_TRUE(e.holds) << e.margin_lower;
  for (const ArgmaxScan& x : c.scans) {
    if (x.rotator != Implementation::kernel) continue;
    {
      EXPECT_EQ(x.holds_up_to, 128) << dtype_name(x.dtype) << ": fails at r=" << x.first_failure.r << " key "
                                    << x.first_failure.position << ": " << hex_float(x.first_failure.a_other) << " >= "
                                    << hex_float(x.first_failure.a_target);
      EXPECT_LT(x.first_probe_failure.r, 0) << dtype_name(x.dtype) << " probe r=" << x.first_probe_failure.r;
      EXPECT_EQ(x.probed.size(), 3u);  // 256, 512, 1024
    }
  }
}

}  // namespace
}  // namespace ropecheck::finite

// The d = 2, g = 1 witness (finite/cos_710.h): cos(710) rounds to 1 in float32, and so does the
// kernel's rotation of (1, 0) at 710, on every path.
#include <gtest/gtest.h>

#include <cmath>

#include "finite/cos_710.h"
#include "io/printf_string.h"

namespace ropecheck::finite {
namespace {

// cos(710) = 1 - 1.8e-9: 710 - 226 pi = 6.03e-5 (710/113 is a convergent of 2 pi). Below 1 the
// float32 spacing is 2^-24 = 6e-8, so cos(710) rounds to 1.0.
TEST(FiniteCos710, RoundsToOneInFloat32) {
  for (cpu::Path path : cpu::available_paths()) {
    const Cos710 c = cos_710(path);
    EXPECT_LT(c.cos_upper, 1.0) << "certified upper bound " << hex_double(c.cos_upper);
    EXPECT_GT(c.cos_lower, 1.0 - 2e-9) << hex_double(c.cos_lower);
    EXPECT_EQ(c.cos_f32, 1.0f) << hex_float(c.cos_f32);
    EXPECT_EQ(c.kernel_x, 1.0f) << cpu::path_name(path) << ": " << hex_float(c.kernel_x);
    // The kernel's contract for the second component: within (1/2 + 2^-25) max(ulp, 2^-24 ||(1,0)||)
    // of sin(710) = 6.0288e-5 (the floor dominates: 2^-24 > ulp(6e-5) = 2^-37).
    const double sin710 = std::sin(710.0);  // libm, error ~1e-16, far below the tolerance
    EXPECT_LE(std::abs(static_cast<double>(c.kernel_y) - sin710), (0.5 + 0x1p-25) * 0x1p-24 + 1e-15)
        << cpu::path_name(path) << ": " << hex_float(c.kernel_y) << " vs " << hex_double(sin710);
  }
}

}  // namespace
}  // namespace ropecheck::finite

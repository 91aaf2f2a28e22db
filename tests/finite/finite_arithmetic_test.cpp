// The finite verdicts' shared arithmetic (finite/finite_arithmetic.h): the rounding of inputs is
// correct (no double rounding), and f64 is refused where the contract takes kernel dtypes.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "finite/finite_arithmetic.h"
#include "io/input_error.h"
#include "io/printf_string.h"

namespace ropecheck::finite {
namespace {

TEST(FiniteRounding, Bf16RoundsOnceFromDouble) {
  // 1 + 2^-8 + 2^-40 is just above the bf16 tie 1 + 2^-8: nearest is 1 + 2^-7. Going through float
  // first would drop the 2^-40 and round the tie to even, 1.
  const double x = 1.0 + 0x1p-8 + 0x1p-40;
  EXPECT_EQ(round_to(Dtype::bf16, x), 1.0f + 0x1p-7f) << "x = " << hex_double(x) << ", got " << hex_float(round_to(Dtype::bf16, x));
  EXPECT_EQ(round_to(Dtype::bf16, 1.0 + 0x1p-8), 1.0f) << "a tie rounds to even";
  EXPECT_EQ(round_to(Dtype::bf16, -(1.0 + 3 * 0x1p-9)), -(1.0f + 0x1p-7f));
  EXPECT_EQ(round_to(Dtype::f32, 1.0 + 0x1p-24 + 0x1p-50), 1.0f + 0x1p-23f);
  EXPECT_EQ(round_to(Dtype::f32, 1.0 + 0x1p-24), 1.0f) << "a tie rounds to even";
}

TEST(FiniteDtypes, F64IsRefused) {
  EXPECT_THROW(round_to(Dtype::f64, 1.0), std::invalid_argument);
  const kernel::RopePlan plan(Spectrum(2, "10000"), kernel::Layout::interleaved);
  const std::vector<std::int64_t> at{1};
  const std::vector<float> unit{1.0f, 0.0f};
  EXPECT_THROW(rotate(Implementation::kernel, Dtype::f64, plan, at, unit, 1, cpu::Path::scalar), std::invalid_argument);
  EXPECT_THROW(check_dtypes({}), InputError);
  EXPECT_THROW(check_dtypes({Dtype::f32, Dtype::f64}), InputError);
  EXPECT_NO_THROW(check_dtypes({Dtype::f32, Dtype::bf16}));
}

}  // namespace
}  // namespace ropecheck::finite

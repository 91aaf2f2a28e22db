// The profile's inputs: `tokens` positions in each decade up to max_position (clipped there),
// standard normal values rounded to the format, the same bytes for the same seed and different
// ones for another; bad sizes refused naming the argument.
#include "accuracy/profile_tensor.h"

#include <gtest/gtest.h>

#include <cmath>

#include "accuracy/ulp_error.h"
#include "io/input_error.h"
#include "numeric/small_floats.h"
#include "tests/support/zoo_plans.h"

namespace ropecheck::accuracy {
namespace {

TEST(ProfileTensor, PositionsFillEachDecadeUpToTheMaximum) {
  const kernel::RopePlan plan = zoo_plan("llama-3.1-8b");
  const ProfileTensor t = profile_tensor(plan, Dtype::bf16, 3, 50, 2, 123456);
  ASSERT_EQ(t.positions.size(), 6u * 50);  // decades [0, 10) .. [1e5, 1e6), the last clipped to 123456
  for (std::size_t i = 0; i < t.positions.size(); ++i) {
    const int d = static_cast<int>(i / 50);
    EXPECT_EQ(position_decade(t.positions[i]), d) << "token " << i << " position " << t.positions[i];
    EXPECT_LE(t.positions[i], 123456);
  }
  ASSERT_EQ(t.bits.size(), 6u * 50 * 2 * 128);
  // Standard normal values: mean near 0, variance near 1 (76800 samples: the mean's standard
  // error is 0.0036, the variance's 0.0051; 6 of them is a false alarm rate below 1e-8).
  double sum = 0, squares = 0;
  for (std::uint32_t b : t.bits) {
    const double v = value_of_bits(Dtype::bf16, b);
    ASSERT_TRUE(std::isfinite(v));
    sum += v, squares += v * v;
  }
  const double n = static_cast<double>(t.bits.size()), mean = sum / n;
  EXPECT_NEAR(mean, 0, 6 * 0.0036);
  EXPECT_NEAR(squares / n - mean * mean, 1, 6 * 0.0051);
}

TEST(ProfileTensor, SameSeedSameBytes) {
  const kernel::RopePlan plan = zoo_plan("gpt-oss-20b");
  const ProfileTensor a = profile_tensor(plan, Dtype::f16, 7, 4, 3, 999);
  const ProfileTensor b = profile_tensor(plan, Dtype::f16, 7, 4, 3, 999);
  const ProfileTensor c = profile_tensor(plan, Dtype::f16, 8, 4, 3, 999);
  EXPECT_EQ(a.positions, b.positions);
  EXPECT_EQ(a.bits, b.bits);
  EXPECT_NE(a.bits, c.bits);
  // f16 values are values of the format: the low 16 bits only.
  for (std::uint32_t v : a.bits) EXPECT_LT(v, 0x10000u);
}

TEST(ProfileTensor, TheTopDecadeAndBadSizes) {
  const kernel::RopePlan plan = zoo_plan("llama-3.1-8b");
  const ProfileTensor t = profile_tensor(plan, Dtype::f32, 1, 1, 1, std::int64_t{1} << 62);
  EXPECT_EQ(t.positions.size(), static_cast<std::size_t>(position_decade(std::int64_t{1} << 62) + 1));
  EXPECT_GE(t.positions.back(), 1000000000000000000);
  const auto input_of = [&](std::int64_t tokens, std::int64_t heads, std::int64_t max) {
    try {
      profile_tensor(plan, Dtype::f32, 1, tokens, heads, max);
    } catch (const InputError& e) {
      return e.input();
    }
    return std::string("accepted");
  };
  EXPECT_EQ(input_of(0, 1, 10), "tokens");
  EXPECT_EQ(input_of(1, 0, 10), "heads");
  EXPECT_EQ(input_of(1, 1, -1), "max_position");
  EXPECT_EQ(input_of(4096, 4096, 10), "tokens");  // beyond 2^28 elements
}

}  // namespace
}  // namespace ropecheck::accuracy

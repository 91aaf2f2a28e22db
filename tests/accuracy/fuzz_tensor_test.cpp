// The fuzz's tensors for check_rope: a pure function of the seed, positions inside the asked range
// (a narrow one filled by the fallback), and every input kind the header promises present: large
// and edge positions, NaN, infinities, signed zeros, subnormals, pass-through values, bf16 bits in
// the low 16 bits only.
#include "accuracy/fuzz_tensor.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <set>

#include "io/input_error.h"
#include "spectrum/request.h"
#include "tests/support/zoo_plans.h"

namespace ropecheck::accuracy {
namespace {

TEST(FuzzTensor, SameSeedSameBytes) {
  const kernel::RopePlan plan = zoo_plan("llama-3.1-8b");
  const FuzzTensor a = fuzz_tensor(plan, Dtype::f32, 42, 32, 2, 0, std::int64_t{1} << 40);
  const FuzzTensor b = fuzz_tensor(plan, Dtype::f32, 42, 32, 2, 0, std::int64_t{1} << 40);
  const FuzzTensor c = fuzz_tensor(plan, Dtype::f32, 43, 32, 2, 0, std::int64_t{1} << 40);
  EXPECT_EQ(a.positions, b.positions);
  EXPECT_EQ(a.bits, b.bits);
  EXPECT_NE(a.bits, c.bits);
  EXPECT_EQ(a.bits.size(), 32u * 2 * 128);
}

TEST(FuzzTensor, PositionsStayInTheRangeAndReachBeyond2To24) {
  const kernel::RopePlan plan = zoo_plan("llama-3.1-8b");
  const FuzzTensor t = fuzz_tensor(plan, Dtype::f32, 1, 512, 1, 0, std::int64_t{1} << 40);
  std::set<std::int64_t> distinct(t.positions.begin(), t.positions.end());
  bool beyond = false, below = false, edge = false;
  for (std::int64_t p : t.positions) {
    ASSERT_GE(p, 0);
    ASSERT_LE(p, std::int64_t{1} << 40);
    beyond = beyond || p > (1 << 24);
    below = below || p < (1 << 24);
    edge = edge || p == (1 << 24) + 1 || p == (1 << 24) - 1 || p == std::int64_t{1} << 31 || p == std::int64_t{1} << 40;
  }
  EXPECT_TRUE(beyond && below && edge);
  EXPECT_GT(distinct.size(), 256u);
  // A narrow range fills through the fallback draw.
  const FuzzTensor narrow = fuzz_tensor(plan, Dtype::f32, 1, 64, 1, 10, 20);
  for (std::int64_t p : narrow.positions) {
    EXPECT_GE(p, 10);
    EXPECT_LE(p, 20);
  }
}

TEST(FuzzTensor, EveryInputKindIsDrawn) {
  const kernel::RopePlan plan = zoo_plan("gpt-neox-20b");  // 25% rotary: pass-through elements
  const FuzzTensor t = fuzz_tensor(plan, Dtype::f32, 3, 128, 2, 0, std::int64_t{1} << 40);
  bool nan = false, inf = false, negative_zero = false, subnormal = false, pass_through_set = false;
  const int d = plan.dim();
  for (std::size_t i = 0; i < t.bits.size(); ++i) {
    const float v = std::bit_cast<float>(t.bits[i]);
    nan = nan || std::isnan(v);
    inf = inf || std::isinf(v);
    negative_zero = negative_zero || t.bits[i] == 0x80000000u;
    subnormal = subnormal || std::fpclassify(v) == FP_SUBNORMAL;
    const int j = static_cast<int>(i % static_cast<std::size_t>(d));
    if (j >= plan.rotary_offset() + 2 * plan.block_pairs()) pass_through_set = pass_through_set || t.bits[i] != 0;
  }
  EXPECT_TRUE(nan);
  EXPECT_TRUE(inf);
  EXPECT_TRUE(negative_zero);
  EXPECT_TRUE(subnormal);
  EXPECT_TRUE(pass_through_set);
  const FuzzTensor b = fuzz_tensor(plan, Dtype::bf16, 3, 16, 2, 0, std::int64_t{1} << 40);
  for (std::uint32_t bits : b.bits) ASSERT_LT(bits, 0x10000u);
}

TEST(FuzzTensor, BadSizesAndRangesNameTheirParameter) {
  const kernel::RopePlan plan = zoo_plan("llama-3.1-8b");
  const auto input_of = [&](std::int64_t tokens, std::int64_t heads, std::int64_t lo, std::int64_t hi) {
    try {
      fuzz_tensor(plan, Dtype::f32, 1, tokens, heads, lo, hi);
    } catch (const InputError& e) {
      return e.input();
    }
    return std::string("none");
  };
  EXPECT_EQ(input_of(0, 1, 0, 10), "tokens");
  EXPECT_EQ(input_of(1, 0, 0, 10), "heads");
  EXPECT_EQ(input_of(1, 1, 11, 10), "min_position");
  EXPECT_THROW(fuzz_tensor(plan, Dtype::f64, 1, 1, 1, 0, 1), std::invalid_argument);
}

}  // namespace
}  // namespace ropecheck::accuracy

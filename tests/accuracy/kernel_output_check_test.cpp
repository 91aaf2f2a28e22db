// The check of one kernel output pair (kernel_output_check.h) on hand-made cases: bit patterns and
// their values, the bound check of a correctly rounded output and of one 2 ulp off, the IEEE result
// a non-finite input must get, and the bit-for-bit copy of identity pairs.
#include "tests/support/small_float_bits.h"
#include "accuracy/kernel_output_check.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "kernel/apply_rope.h"
#include "numeric/small_floats.h"
#include "spectrum/request.h"

namespace ropecheck::accuracy {
namespace {

TEST(KernelOutputCheck, BitPatternsAndValues) {
  EXPECT_EQ(bits_hex(0x3f800000u, Dtype::f32), "0x3f800000");
  EXPECT_EQ(bits_hex(0x3f80u, Dtype::bf16), "0x3f80");
  EXPECT_EQ(value_of(0x3f800000u, Dtype::f32), 1.0);
  EXPECT_EQ(value_of(0xc040u, Dtype::bf16), -3.0);
  EXPECT_EQ(format_bits(1.0, Dtype::f32), 0x3f800000u);
  EXPECT_EQ(format_bits(-3.0, Dtype::bf16), 0xc040u);
  EXPECT_EQ(format_bits(std::numeric_limits<double>::quiet_NaN(), Dtype::f32), kCanonicalNaNF32);
  EXPECT_EQ(format_bits(-std::numeric_limits<double>::quiet_NaN(), Dtype::bf16), kCanonicalNaNBf16.bits);
  EXPECT_EQ(proved_bound(Dtype::f32), kernel::kProvedUlpBound);
  EXPECT_EQ(proved_bound(Dtype::bf16), kernel::kProvedUlpBound);
}

TEST(KernelOutputCheck, CorrectlyRoundedKeepsTheBoundTwoUlpBreakIt) {
  const kernel::RopePlan plan(config_spectrum("gemma-7b"), kernel::Layout::interleaved);
  RopeReference ref(plan);
  ref.set_position(1234567);
  const ExactPair exact = ref.rotate(5, 1.0f, -3.0f);
  const std::uint32_t rounded[2] = {std::bit_cast<std::uint32_t>(f32_of(exact.a)), std::bit_cast<std::uint32_t>(f32_of(exact.b))};
  const BoundCheck ok = check_bound(exact, rounded, Dtype::f32);
  EXPECT_EQ(ok.breaks, 0);
  EXPECT_EQ(ok.undecided, 0);
  EXPECT_LE(ok.worst, 0.5);
  // 2 ulp off on the larger component (|y| >= norm / sqrt(2): its ulp is not below the floor).
  const bool a_larger = std::fabs(exact.a.value) >= std::fabs(exact.b.value);
  const std::uint32_t off[2] = {rounded[0] + (a_larger ? 2u : 0u), rounded[1] + (a_larger ? 0u : 2u)};
  const BoundCheck bad = check_bound(exact, off, Dtype::f32);
  EXPECT_EQ(bad.breaks, 1);
  EXPECT_GT(bad.worst, 1.5);
  // A finite, not-both-zero pair is no special.
  const std::uint32_t finite[2] = {0x3f800000u, 0xc0400000u};
  EXPECT_FALSE(special_expectation(plan, &ref, 5, 1234567, finite, Dtype::f32).applies);
}

TEST(KernelOutputCheck, SpecialsGetTheIeeeResultOrACopy) {
  const kernel::RopePlan plan(config_spectrum("gemma-7b"), kernel::Layout::interleaved);
  RopeReference ref(plan);
  ref.set_position(0);
  // Position 0: cos 1, sin 0, so (inf, 1) -> (inf * 1 - 1 * 0, inf * 0 + 1 * 1) = (inf, NaN).
  const std::uint32_t in[2] = {0x7f800000u, 0x3f800000u};
  const SpecialExpectation e = special_expectation(plan, &ref, 3, 0, in, Dtype::f32);
  EXPECT_TRUE(e.applies);
  EXPECT_TRUE(e.decided);
  EXPECT_EQ(e.bits[0], 0x7f800000u);
  EXPECT_EQ(e.bits[1], kCanonicalNaNF32);
  // An identity pair (p-rope 0.75 keeps pairs 0..95 of gemma-7b's 128) copies -0 and a NaN payload.
  const kernel::RopePlan prope(Spectrum(256, "10000", Variant::p_rope, "0.75"), kernel::Layout::half);
  ASSERT_TRUE(prope.identity(120));
  const std::uint32_t odd[2] = {0x8000u, 0x7fa1u};
  const SpecialExpectation copy = special_expectation(prope, nullptr, 120, 77, odd, Dtype::bf16);
  EXPECT_TRUE(copy.applies);
  EXPECT_EQ(copy.bits[0], 0x8000u);
  EXPECT_EQ(copy.bits[1], 0x7fa1u);
  const ExactPair id = identity_pair(-0.0, 3.0);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(f32_of(id.a)), 0x80000000u);
  EXPECT_EQ(id.b.value, 3.0);
  EXPECT_EQ(id.norm, 3.0);
}

}  // namespace
}  // namespace ropecheck::accuracy

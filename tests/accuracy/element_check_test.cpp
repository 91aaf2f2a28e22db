// The element check behind ropecheck.testing.check_rope: the kernel's own output passes on the
// fuzz's adversarial tensors (every plan shape: p-RoPE identity pairs, pass-through channels, an
// attention factor), and each kind of fault is found and located with its bits: a one-ulp slip, a
// lost -0, a changed pass-through element, a rotated identity pair; max_ulp and canonical_nan
// loosen exactly what they say.
#include "accuracy/element_check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "accuracy/fuzz_tensor.h"
#include "io/input_error.h"
#include "kernel/apply_rope.h"
#include "spectrum/request.h"
#include "tests/support/zoo_plans.h"

namespace ropecheck::accuracy {
namespace {

struct OutputCase {
  FuzzTensor in;
  std::vector<float> x, y;  // f32 values
  std::int64_t heads = 2;
};

OutputCase kernel_output_case(const kernel::RopePlan& plan, std::uint64_t seed, std::int64_t tokens = 16) {
  OutputCase c;
  c.in = fuzz_tensor(plan, Dtype::f32, seed, tokens, c.heads, 0, std::int64_t{1} << 40);
  c.x.resize(c.in.bits.size());
  std::memcpy(c.x.data(), c.in.bits.data(), c.x.size() * 4);
  c.y.resize(c.x.size());
  kernel::apply_rope(plan, c.in.positions, kernel::dense_view<const float>(c.x.data(), tokens, c.heads, plan.dim()),
                     kernel::dense_view<float>(c.y.data(), tokens, c.heads, plan.dim()));
  return c;
}

ElementCheck check_case(const kernel::RopePlan& plan, const OutputCase& c, const ElementCheckOptions& o = {}) {
  return check_elements(plan, Dtype::f32, c.in.positions, c.heads, c.x.data(), c.y.data(), o);
}

std::uint32_t float_bits(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}

TEST(ElementCheck, KernelOutputPassesOnEveryPlanShape) {
  for (const char* model : {"llama-3.1-8b", "gpt-oss-20b", "deepseek-v3", "gpt-neox-20b", "glm-4-9b"}) {
    const kernel::RopePlan plan = zoo_plan(model);
    const OutputCase c = kernel_output_case(plan, 5);
    const ElementCheck r = check_case(plan, c);
    EXPECT_EQ(r.failed, 0) << model << ": " << (r.worst ? r.worst->rule : "");
    EXPECT_EQ(r.checked, static_cast<std::int64_t>(c.x.size())) << model;
    EXPECT_LE(r.max_ulps, 0.5) << model;
  }
  const kernel::RopePlan p_rope(Spectrum(64, "10000", Variant::p_rope, "0.5"), kernel::Layout::interleaved);
  EXPECT_EQ(check_case(p_rope, kernel_output_case(p_rope, 6)).failed, 0);
}

TEST(ElementCheck, OneUlpSlipIsLocatedWithItsBits) {
  const kernel::RopePlan plan = zoo_plan("llama-3.1-8b");
  OutputCase c = kernel_output_case(plan, 7);
  // Token 3, head 1, pair 9's y_b (half layout: element 64 + 9), nudged by one ulp when finite.
  const std::size_t at = (3 * 2 + 1) * 128 + 73;
  ASSERT_TRUE(std::isfinite(c.y[at]) && c.y[at] != 0) << "seed 7 puts a finite nonzero output there";
  const float right = c.y[at];
  c.y[at] = std::nextafter(right, INFINITY);
  const ElementCheck r = check_case(plan, c);
  ASSERT_EQ(r.failed, 1);
  const ElementFailure& f = r.failures.at(0);
  EXPECT_EQ(f.token, 3);
  EXPECT_EQ(f.head, 1);
  EXPECT_EQ(f.pair, 9);
  EXPECT_EQ(f.element, 73);
  EXPECT_EQ(f.component, 1);
  EXPECT_EQ(f.position, c.in.positions[3]);
  EXPECT_EQ(f.expected_bits, float_bits(right));
  EXPECT_EQ(f.got_bits, float_bits(c.y[at]));
  EXPECT_EQ(f.rule, "correctly rounded");
  EXPECT_GT(f.ulps, 0.5);
  EXPECT_LE(f.ulps, 1.5);  // one ulp from a correctly rounded value
  ASSERT_TRUE(r.worst);
  EXPECT_EQ(r.worst->element, 73);
  // Within 1.5 ulp the slip is allowed.
  ElementCheckOptions loose;
  loose.max_ulp = 1.5;
  EXPECT_EQ(check_case(plan, c, loose).failed, 0);
}

TEST(ElementCheck, LostNegativeZeroAndChangedCopiesAreFound) {
  const kernel::RopePlan plan = zoo_plan("gpt-neox-20b");  // partial: pass-through channels
  OutputCase c = kernel_output_case(plan, 8);
  bool zero = false, pass = false;
  for (std::size_t i = 0; i < c.y.size() && !(zero && pass); ++i) {
    const int j = static_cast<int>(i % static_cast<std::size_t>(plan.dim()));
    const bool rotary = j >= plan.rotary_offset() && j < plan.rotary_offset() + 2 * plan.block_pairs();
    if (rotary && !zero && c.y[i] == 0 && std::signbit(c.y[i]) && c.x[i] == 0) {
      c.y[i] = 0.0f;  // -0 -> +0
      zero = true;
    } else if (!rotary && !pass && std::isfinite(c.y[i])) {
      c.y[i] = std::nextafter(c.y[i], INFINITY);
      pass = true;
    }
  }
  ASSERT_TRUE(zero && pass) << "seed 8 draws a negative zero output and a pass-through element";
  const ElementCheck r = check_case(plan, c);
  EXPECT_EQ(r.failed, 2);
  std::set<std::string> rules;
  for (const ElementFailure& f : r.failures) rules.insert(f.rule);
  EXPECT_TRUE(rules.count("IEEE result")) << "lost -0";
  EXPECT_TRUE(rules.count("copy (pass-through)"));
}

TEST(ElementCheck, RotatedIdentityPairIsNotACopy) {
  const kernel::RopePlan p_rope(Spectrum(64, "10000", Variant::p_rope, "0.5"), kernel::Layout::interleaved);
  const kernel::RopePlan full(Spectrum(64, "10000"), kernel::Layout::interleaved);
  OutputCase c = kernel_output_case(p_rope, 9);
  kernel::apply_rope(full, c.in.positions, kernel::dense_view<const float>(c.x.data(), 16, 2, 64), kernel::dense_view<float>(c.y.data(), 16, 2, 64));
  const ElementCheck r = check_case(p_rope, c);
  ASSERT_GT(r.failed, 0);
  bool identity = false;
  for (const ElementFailure& f : r.failures) identity = identity || (f.rule == "copy (identity pair)" && p_rope.identity(f.pair));
  EXPECT_TRUE(identity);
}

TEST(ElementCheck, NanPayloadsAreFreeUnlessCanonicalIsAsked) {
  const kernel::RopePlan plan = zoo_plan("llama-3.1-8b");
  OutputCase c = kernel_output_case(plan, 10);
  int changed = 0;
  for (std::size_t i = 0; i < c.y.size(); ++i)
    if (std::isnan(c.y[i]) && std::isfinite(c.x[i])) {  // a rotary NaN output: quiet NaN with a payload
      const std::uint32_t payload = 0x7FC00123u;
      std::memcpy(&c.y[i], &payload, 4);
      ++changed;
    }
  ASSERT_GT(changed, 0) << "seed 10 draws NaN outputs";
  EXPECT_EQ(check_case(plan, c).failed, 0);
  ElementCheckOptions strict;
  strict.canonical_nan = true;
  EXPECT_EQ(check_case(plan, c, strict).failed, changed);
}

TEST(ElementCheck, RefusesABoundBelowHalfAnUlp) {
  const kernel::RopePlan plan = zoo_plan("llama-3.1-8b");
  const OutputCase c = kernel_output_case(plan, 11, 2);
  ElementCheckOptions o;
  o.max_ulp = 0.25;
  try {
    check_case(plan, c, o);
    FAIL() << "max_ulp 0.25 accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.input(), "max_ulp");
  }
}

}  // namespace
}  // namespace ropecheck::accuracy

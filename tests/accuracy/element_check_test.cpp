// The element check behind ropecheck.testing.check_rope: the kernel's own output passes on the
// fuzz's adversarial tensors (every plan shape: p-RoPE identity pairs, pass-through channels, an
// attention factor), and each kind of fault is found and located with its bits: a one-ulp slip, a
// lost -0, a changed pass-through element, a rotated identity pair; max_ulp, rtol, signed_zeros and
// canonical_nan loosen exactly what they say; failures are counted per input class, so an overflow
// near the format's maximum does not hide an error on ordinary inputs.
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

TEST(ElementCheck, InputClassesFollowTheFormatsRanges) {
  const double f32_max = 0x1.fffffep127, f16_max = 65504;
  EXPECT_EQ(input_class(1, -2, true, 1, Dtype::f32), InputClass::finite);
  EXPECT_EQ(input_class(0, 3, true, 1, Dtype::f32), InputClass::finite);  // one zero is ordinary
  EXPECT_EQ(input_class(-0.0, 0, true, 1, Dtype::f32), InputClass::zeros);
  EXPECT_EQ(input_class(0, 0, false, 1, Dtype::f32), InputClass::finite);  // a pass-through zero
  EXPECT_EQ(input_class(0x1p-127, 1, true, 1, Dtype::f32), InputClass::subnormal);
  EXPECT_EQ(input_class(0x1p-126, 1, true, 1, Dtype::f32), InputClass::finite);
  EXPECT_EQ(input_class(0x1p-15, 1, true, 1, Dtype::f16), InputClass::subnormal);
  EXPECT_EQ(input_class(0x1p-15, 1, true, 1, Dtype::bf16), InputClass::finite);  // bfloat16 has float32's range
  EXPECT_EQ(input_class(f32_max, 0, true, 1, Dtype::f32), InputClass::overflow);
  EXPECT_EQ(input_class(0x1p126, 0x1p126, true, 1, Dtype::f32), InputClass::overflow);   // the sum reaches 2^127
  EXPECT_EQ(input_class(0x1p126, 0x1.fffffep125, true, 1, Dtype::f32), InputClass::finite);
  EXPECT_EQ(input_class(0x1p126, 0, true, 2, Dtype::f32), InputClass::overflow);  // the attention factor counts
  EXPECT_EQ(input_class(f16_max / 2, 0, true, 1, Dtype::f16), InputClass::finite);
  EXPECT_EQ(input_class(32768, 0, true, 1, Dtype::f16), InputClass::overflow);
  EXPECT_EQ(input_class(INFINITY, 0, true, 1, Dtype::f32), InputClass::nonfinite);
  EXPECT_EQ(input_class(NAN, 0x1p-140, true, 1, Dtype::f32), InputClass::nonfinite);
  for (int i = 0; i < kInputClasses; ++i) EXPECT_STRNE(input_class_name(static_cast<InputClass>(i)), "?");
}

// One token at position 3308 (llama-3.1-8b, head_dim 128): pair 0 holds (1, 1), pair 1 holds
// (2^127, 2^127), the rest small ordinary values; the kernel's output, then faults planted.
struct ClassCase {
  kernel::RopePlan plan = zoo_plan("llama-3.1-8b");
  std::vector<std::int64_t> positions{3308};
  std::vector<float> x = std::vector<float>(128, 0.75f), y = std::vector<float>(128);
  ClassCase() {
    x[static_cast<std::size_t>(plan.first_element(1))] = x[static_cast<std::size_t>(plan.second_element(1))] = 0x1p127f;
    x[static_cast<std::size_t>(plan.first_element(2))] = x[static_cast<std::size_t>(plan.second_element(2))] = 0.0f;
    kernel::apply_rope(plan, positions, kernel::dense_view<const float>(x.data(), 1, 1, 128), kernel::dense_view<float>(y.data(), 1, 1, 128));
  }
  ElementCheck check(const ElementCheckOptions& o = {}) const { return check_elements(plan, Dtype::f32, positions, 1, x.data(), y.data(), o); }
  float& out(int pair, int component) {
    return y[static_cast<std::size_t>(component == 0 ? plan.first_element(pair) : plan.second_element(pair))];
  }
};

TEST(ElementCheck, AnOverflowDoesNotHideAnOrdinaryError) {
  ClassCase c;
  ASSERT_EQ(c.check().failed, 0);
  c.out(1, 0) = INFINITY;  // what a float32 x_a cos - x_b sin gives at the top of the range
  float& ordinary = c.out(5, 1);
  const float right = ordinary;
  ordinary = std::nextafter(right, INFINITY);
  const ElementCheck r = c.check();
  EXPECT_EQ(r.failed, 2);
  const ClassCheck& finite = r.classes[static_cast<int>(InputClass::finite)];
  const ClassCheck& overflow = r.classes[static_cast<int>(InputClass::overflow)];
  EXPECT_EQ(finite.failed, 1);
  EXPECT_EQ(overflow.failed, 1);
  EXPECT_EQ(overflow.checked, 2);
  EXPECT_EQ(r.classes[static_cast<int>(InputClass::zeros)].checked, 2);
  ASSERT_TRUE(finite.worst && overflow.worst);
  EXPECT_EQ(finite.worst->pair, 5);
  EXPECT_EQ(finite.worst->input_class, InputClass::finite);
  EXPECT_EQ(overflow.worst->pair, 1);
  EXPECT_TRUE(std::isinf(overflow.worst->ulps));
  ASSERT_TRUE(r.worst);
  EXPECT_EQ(r.worst->pair, 1) << "the overall worst is the overflow, which is why classes are reported apart";
}

TEST(ElementCheck, SignedZerosFalseAcceptsOnlyTheSignOfAZero) {
  ClassCase c;
  float& zero = c.out(2, 0);  // the rotation of (+0, +0): the kernel's IEEE zero
  ASSERT_EQ(zero, 0.0f);
  zero = -zero;
  EXPECT_EQ(c.check().failed, 1);
  EXPECT_EQ(c.check().classes[static_cast<int>(InputClass::zeros)].failed, 1);
  ElementCheckOptions o;
  o.signed_zeros = false;
  EXPECT_EQ(c.check(o).failed, 0);
  zero = 0x1p-149f;  // not a zero: still wrong
  EXPECT_EQ(c.check(o).failed, 1);
}

TEST(ElementCheck, RtolAcceptsErrorsUpToItsShareOfThePairNorm) {
  ClassCase c;
  float& y = c.out(7, 0);
  const float right = y;
  ASSERT_GT(std::fabs(right), 0x1p-20f) << "pair 7's angle at 3308 is not near pi/4 (no cancellation)";
  y = std::nextafter(std::nextafter(right, INFINITY), INFINITY);  // two ulps up
  // |y| <= ||x|| = 0.75 sqrt(2) < 2, so ulp(y) <= 2^-23 and the error (1.5 to 2.5 ulp(y)) over the
  // norm 1.06 is below 2.5 x 2^-23 / 1.06 < 2^-21; and since |y| > 2^-20, ulp(y) >= 2^-43, so it
  // is above 1.5 x 2^-43 / 1.06 > 2^-60.
  ElementCheckOptions o;
  EXPECT_EQ(c.check(o).failed, 1);
  o.rtol = 0x1p-21;
  EXPECT_EQ(c.check(o).failed, 0);
  o.rtol = 0x1p-60;
  const ElementCheck tight = c.check(o);
  ASSERT_EQ(tight.failed, 1);
  EXPECT_EQ(tight.failures.at(0).rule, "correctly rounded or rtol");
  EXPECT_GT(tight.failures.at(0).rel, 0x1p-60);
  EXPECT_LT(tight.failures.at(0).rel, 0x1p-21);
  o.rtol = 2;
  EXPECT_THROW(c.check(o), InputError);
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

namespace ropecheck::accuracy {
namespace {

// The formulation bound: the kernel's own output (correctly rounded) passes it on every plan
// shape; an identity pair rotated by the formula at angle 0 (x_a * 1 - x_b * 0) passes it, though
// its zeros and infinities are no copy, and fails the strict rules; a 1000-ulp slip fails it.
TEST(ElementCheck, FormulationAcceptsTheKernelAndTheFormulaAtAngleZero) {
  ElementCheckOptions o;
  o.formulation = true;
  for (const char* model : {"llama-3.1-8b", "gpt-oss-20b", "deepseek-v3", "phi-3.5-mini"}) {
    const kernel::RopePlan plan = zoo_plan(model);
    const OutputCase c = kernel_output_case(plan, 11);
    EXPECT_EQ(check_case(plan, c, o).failed, 0) << model;
  }
  const kernel::RopePlan p_rope(Spectrum(64, "10000", Variant::p_rope, "0.5"), kernel::Layout::interleaved);
  OutputCase c = kernel_output_case(p_rope, 12);
  int changed = 0;
  for (std::size_t row = 0; row < c.x.size() / 64; ++row) {
    for (int k = 0; k < p_rope.block_pairs(); ++k) {
      if (!p_rope.identity(k)) continue;
      const std::size_t a = row * 64 + static_cast<std::size_t>(p_rope.first_element(k)), b = row * 64 + static_cast<std::size_t>(p_rope.second_element(k));
      const float xa = c.x[a], xb = c.x[b];
      const float ya = xa * 1.0f - xb * 0.0f, yb = xa * 0.0f + xb * 1.0f;
      if (float_bits(ya) != float_bits(xa) || float_bits(yb) != float_bits(xb)) ++changed;
      c.y[a] = ya, c.y[b] = yb;
    }
  }
  ASSERT_GT(changed, 0) << "the fuzz puts zeros and infinities into identity pairs";
  EXPECT_EQ(check_case(p_rope, c, o).failed, 0);
  EXPECT_GT(check_case(p_rope, c).failed, 0);  // strict: a copy, bit for bit
  // At position 5 the formulation is nearly exact (its angle bound 5 g ((1 + eps_f)(1 + u)^2 - 1)
  // is a few dozen u for pair 0, its arithmetic ~12 u of the pair's norm): a 1000-ulp slip of an
  // output at least a quarter of its pair's norm is far outside.
  const kernel::RopePlan plan = zoo_plan("llama-3.1-8b");
  OutputCase d = kernel_output_case(plan, 13);
  for (std::int64_t& p : d.in.positions) p = 5;
  const auto tokens = static_cast<std::int64_t>(d.in.positions.size());
  kernel::apply_rope(plan, d.in.positions, kernel::dense_view<const float>(d.x.data(), tokens, d.heads, plan.dim()),
                     kernel::dense_view<float>(d.y.data(), tokens, d.heads, plan.dim()));
  ASSERT_EQ(check_case(plan, d, o).failed, 0);
  bool slipped = false;
  for (std::size_t row = 0; row < d.y.size() / 128 && !slipped; ++row) {
    const float xa = d.x[row * 128], xb = d.x[row * 128 + 64], y = d.y[row * 128];
    const double norm = std::hypot(static_cast<double>(xa), static_cast<double>(xb));
    if (!std::isfinite(norm) || norm < 1e-30 || norm > 1e30 || !(std::fabs(y) >= 0.25 * norm)) continue;
    std::uint32_t bits = float_bits(y) + 1000;
    std::memcpy(&d.y[row * 128], &bits, 4);
    slipped = true;
  }
  ASSERT_TRUE(slipped);
  const ElementCheck r = check_case(plan, d, o);
  ASSERT_EQ(r.failed, 1);
  EXPECT_EQ(r.worst->rule, "float32 formulation");
  EXPECT_LE(r.worst->reach_lo, r.worst->reach_hi);
}

}  // namespace
}  // namespace ropecheck::accuracy

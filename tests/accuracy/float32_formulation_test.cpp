// The float32 formulation's reach (accuracy/float32_formulation.h) holds what it claims: every
// output that float32 evaluations of the formula produce, by powf or by ggml's recurrence, with or
// without an FMA, is accepted, for every scaling rule the zoo has, at positions up to 2^40, in
// every kernel dtype; the correctly rounded value is accepted; an angle computed in bfloat16 is
// not; at p = 0 with no attention factor the reach is the correctly rounded value alone; the angle
// bound grows linearly with the position; the special reach follows the signs cos and sin can take.
#include "accuracy/float32_formulation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include "numeric/small_floats.h"
#include "random/counter_rng.h"
#include "spectrum/frequencies.h"
#include "tests/support/zoo_plans.h"

namespace ropecheck::accuracy {
namespace {

// A float32 RoPE as production code writes it, in one of its styles.
enum class Style { pow_path, recurrence, fma };

std::vector<float> float32_frequencies(const kernel::RopePlan& plan, Style style) {
  std::vector<float> g = frequencies<float>(plan.spectrum());  // powf of the float32 exponent, then the rule in float32
  if (style == Style::recurrence && plan.spectrum().scaling().kind == Scaling::Kind::none) {
    // ggml: g_k = g_{k-1} * powf(theta, -2/D), from g_0 = 1.
    const float r = std::pow(std::stof(plan.spectrum().theta()), -2.0f / static_cast<float>(plan.spectrum().rotary_width()));
    float v = 1;
    for (std::size_t k = 0; k < g.size(); ++k) {
      if (g[k] != 0) g[k] = v;
      v *= r;
    }
  }
  return g;
}

void float32_rotation(float g, std::int64_t p, float a, float xa, float xb, Style style, float y[2]) {
  const float t = static_cast<float>(p) * g;
  const float c = std::cos(t) * a, s = std::sin(t) * a;
  if (style == Style::fma) {
    y[0] = std::fma(xa, c, -(xb * s));
    y[1] = std::fma(xa, s, xb * c);
  } else {
    y[0] = xa * c - xb * s;
    y[1] = xa * s + xb * c;
  }
}

double in_format(float v, Dtype f) { return value_of_bits(f, bits_of_value(f, static_cast<double>(v))); }

// Draws from CounterRng's stream in order.
struct Draws {
  CounterRng rng;
  std::uint64_t i = 0;
  explicit Draws(std::uint64_t seed) : rng(seed, 53) {}
  std::uint64_t next() { return rng.bits(i++); }
};

float random_input(Draws& rng, Dtype f) {
  // log-uniform magnitudes over the format's central range, either sign, rounded to the format
  const double u = static_cast<double>(rng.next() >> 11) * 0x1p-53;
  const double e = f == Dtype::f16 ? -12 + 24 * u : -40 + 80 * u;
  const double v = std::exp2(e) * ((rng.next() & 1) ? -1.0 : 1.0);
  return static_cast<float>(value_of_bits(f, bits_of_value(f, v)));
}

std::int64_t random_position(Draws& rng, std::int64_t top) {
  const double u = static_cast<double>(rng.next() >> 11) * 0x1p-53;
  return static_cast<std::int64_t>(std::floor(std::exp2(u * std::log2(static_cast<double>(top)))));
}

TEST(Float32Formulation, AcceptsEveryFloat32EvaluationOfTheFormula) {
  for (const std::string model : {"llama-3.1-8b", "qwen2.5-7b-yarn", "phi-3.5-mini", "gemma-3-27b", "deepseek-v3", "gpt-neox-20b",
                                  "qwen3-8b", "gpt-oss-20b"}) {
    const kernel::RopePlan plan = zoo_plan(model);
    const Float32Formulation formulation(plan);
    RopeReference ref(plan);
    const float a = static_cast<float>(plan.attention_factor());
    for (const Style style : {Style::pow_path, Style::recurrence, Style::fma}) {
      const std::vector<float> g = float32_frequencies(plan, style);
      for (const Dtype f : kKernelDtypes) {
        Draws rng(0x5eed + static_cast<std::uint64_t>(f));
        for (int trial = 0; trial < 300; ++trial) {
          const std::int64_t p = trial < 100 ? random_position(rng, 1 << 17) : random_position(rng, std::int64_t{1} << 40);
          ref.set_position(p);
          for (int k = 0; k < plan.block_pairs(); k += 3) {
            if (plan.identity(k)) continue;
            const float xa = random_input(rng, f), xb = random_input(rng, f);
            float y[2];
            float32_rotation(g[static_cast<std::size_t>(plan.spectrum_pair(k))], p, a, xa, xb, style, y);
            const ExactPair exact = ref.rotate(k, xa, xb);
            double c = 1, s = 0;
            ref.cos_sin_double(k, c, s);
            ComponentReach reach[2];
            formulation.reach(k, p, xa, xb, exact, c, s, f, reach);
            for (int comp = 0; comp < 2; ++comp) {
              const double got = in_format(y[comp], f);
              ASSERT_TRUE(reach[comp].accepts(got))
                  << model << " style " << static_cast<int>(style) << " " << dtype_info(f).name << " p=" << p << " pair " << k
                  << " comp " << comp << std::hexfloat << " xa=" << xa << " xb=" << xb << " got=" << got << " reach=[" << reach[comp].lo
                  << ", " << reach[comp].hi << "]";
              ASSERT_TRUE(reach[comp].accepts((comp == 0 ? exact.a : exact.b).in(f))) << model << " p=" << p << " pair " << k;
            }
          }
        }
      }
    }
  }
}

TEST(Float32Formulation, DtypeTablesAcceptTransformersAndVllmStyles) {
  // transformers: cos, sin cast to the dtype, q * cos + rotate_half(q) * sin in the dtype (each
  // product and the sum rounded to it); vLLM: a cos_sin_cache in the dtype, the rotation in float32
  // and one rounding. Both are inside Tables::dtype's reach and outside the float32 tables' (at
  // small positions, where the float32 formulation is nearly exact, a 16-bit table flips roundings).
  for (const std::string model : {"llama-3.1-8b", "qwen2.5-7b-yarn", "phi-3.5-mini"}) {
    const kernel::RopePlan plan = zoo_plan(model);
    const Float32Formulation tables(plan, Tables::dtype), standard(plan);
    RopeReference ref(plan);
    const std::vector<float> g = frequencies<float>(plan.spectrum());
    const float a = static_cast<float>(plan.attention_factor());
    for (const Dtype f : {Dtype::bf16, Dtype::f16}) {
      const auto rd = [f](double v) { return static_cast<float>(in_format(static_cast<float>(v), f)); };
      Draws rng(0x7ab1e + static_cast<std::uint64_t>(f));
      int outside_standard = 0;
      for (int trial = 0; trial < 200; ++trial) {
        const std::int64_t p = random_position(rng, 1 << 17);
        ref.set_position(p);
        for (int k = 0; k < plan.block_pairs(); k += 5) {
          const float xa = random_input(rng, f), xb = random_input(rng, f);
          const float t = static_cast<float>(p) * g[static_cast<std::size_t>(k)];
          const float c = rd(std::cos(t) * a), s = rd(std::sin(t) * a);
          const float hf[2] = {rd(rd(xa * c) - rd(xb * s)), rd(rd(xa * s) + rd(xb * c))};
          const float vllm[2] = {std::fma(xa, c, -(xb * s)), std::fma(xa, s, xb * c)};
          const ExactPair exact = ref.rotate(k, xa, xb);
          double ce = 1, se = 0;
          ref.cos_sin_double(k, ce, se);
          ComponentReach r[2], r0[2];
          tables.reach(k, p, xa, xb, exact, ce, se, f, r);
          standard.reach(k, p, xa, xb, exact, ce, se, f, r0);
          for (int comp = 0; comp < 2; ++comp) {
            ASSERT_TRUE(r[comp].accepts(in_format(hf[comp], f)))
                << model << " " << dtype_info(f).name << " p=" << p << " pair " << k << std::hexfloat << " xa=" << xa << " xb=" << xb
                << " hf=" << hf[comp] << " reach=[" << r[comp].lo << ", " << r[comp].hi << "]";
            ASSERT_TRUE(r[comp].accepts(in_format(vllm[comp], f))) << model << " p=" << p << " pair " << k;
            if (!r0[comp].accepts(in_format(hf[comp], f))) ++outside_standard;
          }
        }
      }
      EXPECT_GT(outside_standard, 0) << model << " " << dtype_info(f).name << ": 16-bit tables should show against float32 ones";
    }
  }
}

TEST(Float32Formulation, RejectsAnAngleInBfloat16) {
  const kernel::RopePlan plan = zoo_plan("llama-3.1-8b");
  const Float32Formulation formulation(plan);
  RopeReference ref(plan);
  const std::vector<float> g = frequencies<float>(plan.spectrum());
  Draws rng(7);
  int rejected = 0, tried = 0;
  for (int trial = 0; trial < 200; ++trial) {
    // Odd positions above 1000: never a bfloat16 value (its ulp there is >= 4), so the rounded angle
    // p is off by at least 1 rad and at most p 2^-9.
    const std::int64_t p = 1001 + 2 * static_cast<std::int64_t>(rng.next() % 50000);
    ref.set_position(p);
    const int k = 0;  // the fastest pair: angle p radians
    const float xa = random_input(rng, Dtype::bf16), xb = random_input(rng, Dtype::bf16);
    const float t = static_cast<float>(value_of_bits(Dtype::bf16, bits_of_value(Dtype::bf16, static_cast<double>(static_cast<float>(p) * g[0]))));
    const float y[2] = {xa * std::cos(t) - xb * std::sin(t), xa * std::sin(t) + xb * std::cos(t)};
    double c = 1, s = 0;
    ref.cos_sin_double(k, c, s);
    ComponentReach reach[2];
    formulation.reach(k, p, xa, xb, ref.rotate(k, xa, xb), c, s, Dtype::bf16, reach);
    ++tried;
    if (!reach[0].accepts(in_format(y[0], Dtype::bf16)) || !reach[1].accepts(in_format(y[1], Dtype::bf16))) ++rejected;
  }
  // Off by 1 rad or more, both components land inside the reach only when the error is within
  // ~2^-7 rad of a multiple of 2 pi (probability ~1%).
  EXPECT_GT(rejected, tried * 9 / 10) << rejected << " of " << tried;
}

TEST(Float32Formulation, ExactAtPositionZeroAndGrowingWithPosition) {
  const kernel::RopePlan plan = zoo_plan("llama-3.1-8b");
  const Float32Formulation formulation(plan);
  RopeReference ref(plan);
  ref.set_position(0);
  const ExactPair exact = ref.rotate(5, 1.5f, -0.25f);
  ComponentReach reach[2];
  formulation.reach(5, 0, 1.5, -0.25, exact, 1, 0, Dtype::f32, reach);
  EXPECT_EQ(reach[0].lo, 1.5);
  EXPECT_EQ(reach[0].hi, 1.5);
  EXPECT_EQ(reach[1].lo, -0.25);
  EXPECT_EQ(reach[1].hi, -0.25);
  EXPECT_EQ(formulation.angle_error(5, 0), 0);
  // Linear in |p|: the bound is |p| g ((1 + eps_f)(1 + u)^2 - 1).
  const double d1 = formulation.angle_error(0, 1000), d2 = formulation.angle_error(0, 2000);
  EXPECT_NEAR(d2 / d1, 2.0, 1e-12);
  EXPECT_EQ(formulation.angle_error(0, -1000), d1);
  EXPECT_GT(formulation.angle_error(0, std::int64_t{1} << 40), std::numbers::pi);  // at 2^40 any angle is reachable
  // eps_f of the llama3 band exceeds the unscaled pairs': the blend amplifies the frequency's error.
  EXPECT_GT(formulation.frequency_error(plan.block_pairs() - 20), formulation.frequency_error(0));
}

TEST(Float32Formulation, SpecialReachFollowsTheSignsOfCosAndSin) {
  const kernel::RopePlan plan = zoo_plan("qwen3-8b");
  const Float32Formulation formulation(plan);
  const double inf = INFINITY;
  SpecialReach r[2];
  // p = 0: sin is exactly +0, so inf * 0 is NaN in y_b, and y_a = inf * 1 = inf.
  formulation.special_reach(3, 0, inf, 1, 1, 0, Dtype::f32, r);
  EXPECT_TRUE(r[0].accepts(inf));
  EXPECT_FALSE(r[0].accepts(-inf));
  EXPECT_TRUE(r[1].accepts(NAN));
  EXPECT_FALSE(r[1].accepts(inf));
  // Pair 0 at p = 2^40: the angle bound covers the circle, so both signs of cos are reachable.
  formulation.special_reach(0, std::int64_t{1} << 40, inf, 1, 0.5, 0.8, Dtype::bf16, r);
  EXPECT_TRUE(r[0].accepts(inf) && r[0].accepts(-inf));
  // Two zeros at a small position with cos, sin > 0: (+0) cos - (+0) sin = +0 only.
  formulation.special_reach(0, 1, 0.0, 0.0, std::cos(1.0), std::sin(1.0), Dtype::f32, r);
  EXPECT_TRUE(r[0].accepts(0.0));
  EXPECT_FALSE(r[0].accepts(-0.0));
}

}  // namespace
}  // namespace ropecheck::accuracy

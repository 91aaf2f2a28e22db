// The two baselines compute what baselines.h says, operation by operation (checked against an
// independent re-derivation of their arithmetic), share the kernel's layouts and identity-pair
// semantics, and show the error the issue measures: the float32 angle drifts with position, the
// double angle does not (at these positions).
#include "tests/support/small_float_bits.h"
#include "accuracy/baselines.h"
#include "io/printf_string.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <vector>

#include "io/input_error.h"
#include "numeric/small_floats.h"

namespace ropecheck::accuracy {
namespace {

std::vector<float> ramp(int n, float scale) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = scale * static_cast<float>((i * 37) % 19 - 9) / 7.0f;
  return v;
}

TEST(Baselines, Names) {
  EXPECT_EQ(implementation_name(Implementation::f32_angle), "f32-angle");
  EXPECT_EQ(implementation_name(Implementation::f64_angle), "f64-angle");
}

// Re-derives the f32-angle arithmetic independently: powf of the float exponent -2k/d (the float
// quotient of two exact integers is the correctly rounded rational, the same as -e/D reduced or
// not), the float angle, cosf/sinf, and the float rotation with each product rounded.
TEST(Baselines, F32AngleIsTheFloatFormula) {
  const int d = 16;
  const kernel::RopePlan plan(Spectrum(d, "10000"), kernel::Layout::interleaved);
  const std::vector<std::int64_t> positions = {0, 1, 7, 4096, 131072, 1000000};
  const auto tokens = static_cast<std::int64_t>(positions.size());
  const std::vector<float> x = ramp(static_cast<int>(tokens) * d, 1.5f);
  std::vector<float> y(x.size());
  apply_rope_baseline(Implementation::f32_angle, plan, positions, kernel::dense_view<const float>(x.data(), tokens, 1, d),
                      kernel::dense_view<float>(y.data(), tokens, 1, d));
  for (std::int64_t t = 0; t < tokens; ++t)
    for (int k = 0; k < d / 2; ++k) {
      const float inv = std::pow(10000.0f, -static_cast<float>(2 * k) / static_cast<float>(d));
      const float angle = static_cast<float>(positions[static_cast<size_t>(t)]) * inv;
      const float c = std::cos(angle), s = std::sin(angle);
      const float xa = x[static_cast<size_t>(t * d + 2 * k)], xb = x[static_cast<size_t>(t * d + 2 * k + 1)];
      const float p1 = xa * c, p2 = xb * s, p3 = xa * s, p4 = xb * c;
      const float ya = p1 - p2, yb = p3 + p4;
      const float ga = y[static_cast<size_t>(t * d + 2 * k)], gb = y[static_cast<size_t>(t * d + 2 * k + 1)];
      EXPECT_EQ(std::bit_cast<std::uint32_t>(ga), std::bit_cast<std::uint32_t>(ya))
          << "p=" << positions[static_cast<size_t>(t)] << " k=" << k << " xa=" << hex_float(xa) << " xb=" << hex_float(xb) << " got " << hex_float(ga) << " want " << hex_float(ya);
      EXPECT_EQ(std::bit_cast<std::uint32_t>(gb), std::bit_cast<std::uint32_t>(yb))
          << "p=" << positions[static_cast<size_t>(t)] << " k=" << k << " xa=" << hex_float(xa) << " xb=" << hex_float(xb) << " got " << hex_float(gb) << " want " << hex_float(yb);
    }
}

TEST(Baselines, F64AngleIsTheDoubleFormulaRoundedOnce) {
  const int d = 8;
  const kernel::RopePlan plan(Spectrum(d, "500000"), kernel::Layout::half);
  const std::vector<std::int64_t> positions = {3, 65536, (std::int64_t{1} << 31) + 5};
  const auto tokens = static_cast<std::int64_t>(positions.size());
  const std::vector<float> x = ramp(static_cast<int>(tokens) * d, 3.0f);
  std::vector<float> y(x.size());
  apply_rope_baseline(Implementation::f64_angle, plan, positions, kernel::dense_view<const float>(x.data(), tokens, 1, d),
                      kernel::dense_view<float>(y.data(), tokens, 1, d));
  for (std::int64_t t = 0; t < tokens; ++t)
    for (int k = 0; k < d / 2; ++k) {
      const double g = std::pow(500000.0, -static_cast<double>(2 * k) / static_cast<double>(d));
      const double angle = static_cast<double>(positions[static_cast<size_t>(t)]) * g;
      const double c = std::cos(angle), s = std::sin(angle);
      const size_t ia = static_cast<size_t>(t * d + k), ib = static_cast<size_t>(t * d + k + d / 2);
      const double p1 = x[ia] * c, p2 = x[ib] * s, p3 = x[ia] * s, p4 = x[ib] * c;
      const auto ya = static_cast<float>(p1 - p2), yb = static_cast<float>(p3 + p4);
      EXPECT_EQ(std::bit_cast<std::uint32_t>(y[ia]), std::bit_cast<std::uint32_t>(ya)) << "k=" << k << " got " << hex_float(y[ia]) << " want " << hex_float(ya);
      EXPECT_EQ(std::bit_cast<std::uint32_t>(y[ib]), std::bit_cast<std::uint32_t>(yb)) << "k=" << k << " got " << hex_float(y[ib]) << " want " << hex_float(yb);
    }
}

// The measurement, as a test that can fail: input pair (1, 0) of pair k = 1 of d = 128,
// theta 1e4 (g ~ 0.866), position 1e6. The float32 angle is ~866000, whose float spacing is 2^-4,
// and inv_freq carries a relative error up to 2^-24 (~0.05 rad at this angle): the error should be
// around 1e-2, certainly > 1e-3. The double angle's error is ~1e6 * 2^-53 plus the float rounding
// of the output (2^-25): certainly < 1e-6. The reference is long double (64-bit mantissa): its
// angle error ~1e6 * 2^-64 ~ 5e-14 is far below both thresholds.
TEST(Baselines, FloatAngleDriftsWithPositionDoubleAngleDoesNot) {
  const int d = 128;
  const kernel::RopePlan plan(Spectrum(d, "10000"), kernel::Layout::interleaved);
  const std::vector<std::int64_t> positions = {1000000};
  std::vector<float> x(static_cast<size_t>(d), 0.0f);
  x[2] = 1.0f;  // pair k = 1 is (x[2], x[3]) = (1, 0)
  std::vector<float> y32(x.size()), y64(x.size());
  apply_rope_baseline(Implementation::f32_angle, plan, positions, kernel::dense_view<const float>(x.data(), 1, 1, d), kernel::dense_view<float>(y32.data(), 1, 1, d));
  apply_rope_baseline(Implementation::f64_angle, plan, positions, kernel::dense_view<const float>(x.data(), 1, 1, d), kernel::dense_view<float>(y64.data(), 1, 1, d));
  const long double g = std::pow(10000.0L, -2.0L / 128.0L);
  const long double angle = 1000000.0L * g;
  const long double c = std::cos(angle), s = std::sin(angle);
  const double err32 = static_cast<double>(std::fmax(std::fabs(y32[2] - c), std::fabs(y32[3] - s)));
  const double err64 = static_cast<double>(std::fmax(std::fabs(y64[2] - c), std::fabs(y64[3] - s)));
  EXPECT_GT(err32, 1e-3) << "f32-angle got " << hex_float(y32[2]) << ", " << hex_float(y32[3]);
  EXPECT_LT(err64, 1e-6) << "f64-angle got " << hex_float(y64[2]) << ", " << hex_float(y64[3]);
}

// bf16 in and out: the f32 arithmetic on the widened inputs, then one RNE rounding (bf16.h). Every
// A 16-bit input is exactly a float, so the bf16 (f16) call must equal the f32 call followed by
// bf16_from_float (f16_from_float), bit for bit (for f64-angle that is the double rounding the header
// admits; for f16 and f32-angle it is ggml's CPU arithmetic, baselines.h).
template <typename E>
void expect_sixteen_bit_is_f32_rounded() {
  const int d = 32;
  for (kernel::Layout layout : {kernel::Layout::interleaved, kernel::Layout::half})
    for (Implementation b : baselines()) {
      const kernel::RopePlan plan(Spectrum(d, "10000", Variant::p_rope, "0.5"), layout);
      const std::vector<std::int64_t> positions = {0, 5, 99999, -42};
      const std::int64_t tokens = 4, heads = 2;
      std::vector<E> xb(static_cast<size_t>(tokens * heads * d));
      std::vector<float> xf(xb.size());
      for (size_t i = 0; i < xb.size(); ++i) {
        xb[i] = E{static_cast<std::uint16_t>(bits_of_value(dtype_of<E>, std::ldexp(static_cast<float>(i % 29) - 14.0f, static_cast<int>(i % 7) - 3)))};
        xf[i] = static_cast<float>(widen(xb[i]));
      }
      std::vector<E> yb(xb.size());
      std::vector<float> yf(xf.size());
      apply_rope_baseline(b, plan, positions, kernel::dense_view<const E>(xb.data(), tokens, heads, d), kernel::dense_view<E>(yb.data(), tokens, heads, d));
      apply_rope_baseline(b, plan, positions, kernel::dense_view<const float>(xf.data(), tokens, heads, d), kernel::dense_view<float>(yf.data(), tokens, heads, d));
      for (size_t i = 0; i < yb.size(); ++i)
        ASSERT_EQ(bits_of(yb[i]), bits_of_value(dtype_of<E>, yf[i]))
            << dtype_name(dtype_of<E>) << " " << implementation_name(b) << " " << kernel::layout_name(layout) << " element " << i << " f32 " << hex_float(yf[i]);
    }
}

TEST(Baselines, SixteenBitFormatsAreF32Rounded) {
  expect_sixteen_bit_is_f32_rounded<Bf16Bits>();
  expect_sixteen_bit_is_f32_rounded<F16Bits>();
}

// Identity pairs (nope, the removed pairs of p-rope) and pass-through elements (partial) are copied
// bit for bit: -0, NaN payloads and infinities survive, as in the kernel.
TEST(Baselines, IdentityAndPassThroughAreBitCopies) {
  const int d = 8;
  const float specials[] = {-0.0f, std::bit_cast<float>(0x7FA00001u), -INFINITY, 0x1p-149f};
  for (Implementation b : baselines()) {
    for (Variant v : {Variant::nope, Variant::partial}) {
      const kernel::RopePlan plan(Spectrum(d, "10000", v, "0.5"), kernel::Layout::half);
      std::vector<float> x(static_cast<size_t>(d));
      for (int i = 0; i < d; ++i) x[static_cast<size_t>(i)] = specials[i % 4];
      std::vector<float> y(x.size());
      const std::vector<std::int64_t> positions = {12345};
      apply_rope_baseline(b, plan, positions, kernel::dense_view<const float>(x.data(), 1, 1, d), kernel::dense_view<float>(y.data(), 1, 1, d));
      // nope copies everything; partial 0.5 rotates pairs (0,2),(1,3) and passes 4..7 through.
      const int first_copied = v == Variant::nope ? 0 : 2 * plan.block_pairs();
      for (int i = first_copied; i < d; ++i)
        EXPECT_EQ(std::bit_cast<std::uint32_t>(y[static_cast<size_t>(i)]), std::bit_cast<std::uint32_t>(x[static_cast<size_t>(i)]))
            << implementation_name(b) << " " << variant_name(v) << " element " << i << " " << hex_float(x[static_cast<size_t>(i)]);
    }
  }
}

// Interleaved and half layouts are the same rotation of permuted elements.
TEST(Baselines, LayoutsAgreeAfterPermuting) {
  const int d = 16, R = d / 2;
  const kernel::RopePlan inter(Spectrum(d, "10000"), kernel::Layout::interleaved), half(Spectrum(d, "10000"), kernel::Layout::half);
  const std::vector<std::int64_t> positions = {77, 1 << 20};
  const std::vector<float> xi = ramp(2 * d, 0.75f);
  std::vector<float> xh(xi.size());
  for (int t = 0; t < 2; ++t)
    for (int k = 0; k < R; ++k) {
      xh[static_cast<size_t>(t * d + k)] = xi[static_cast<size_t>(t * d + 2 * k)];
      xh[static_cast<size_t>(t * d + k + R)] = xi[static_cast<size_t>(t * d + 2 * k + 1)];
    }
  for (Implementation b : baselines()) {
    std::vector<float> yi(xi.size()), yh(xh.size());
    apply_rope_baseline(b, inter, positions, kernel::dense_view<const float>(xi.data(), 2, 1, d), kernel::dense_view<float>(yi.data(), 2, 1, d));
    apply_rope_baseline(b, half, positions, kernel::dense_view<const float>(xh.data(), 2, 1, d), kernel::dense_view<float>(yh.data(), 2, 1, d));
    for (int t = 0; t < 2; ++t)
      for (int k = 0; k < R; ++k) {
        EXPECT_EQ(std::bit_cast<std::uint32_t>(yi[static_cast<size_t>(t * d + 2 * k)]), std::bit_cast<std::uint32_t>(yh[static_cast<size_t>(t * d + k)]));
        EXPECT_EQ(std::bit_cast<std::uint32_t>(yi[static_cast<size_t>(t * d + 2 * k + 1)]), std::bit_cast<std::uint32_t>(yh[static_cast<size_t>(t * d + k + R)]));
      }
  }
}

// In place equals out of place; strided views (q inside a fused qkv buffer) touch only their rows.
TEST(Baselines, InPlaceAndStridedViews) {
  const int d = 8, heads = 2, tokens = 3;
  const kernel::RopePlan plan(Spectrum(d, "10000"), kernel::Layout::interleaved);
  const std::vector<std::int64_t> positions = {1, 1000, 1 << 25};
  const std::vector<float> x = ramp(tokens * heads * d, 2.0f);
  std::vector<float> y(x.size()), z = x;
  apply_rope_baseline(Implementation::f64_angle, plan, positions, kernel::dense_view<const float>(x.data(), tokens, heads, d), kernel::dense_view<float>(y.data(), tokens, heads, d));
  apply_rope_baseline(Implementation::f64_angle, plan, positions, kernel::dense_view<const float>(z.data(), tokens, heads, d), kernel::dense_view<float>(z.data(), tokens, heads, d));
  for (size_t i = 0; i < y.size(); ++i) EXPECT_EQ(std::bit_cast<std::uint32_t>(y[i]), std::bit_cast<std::uint32_t>(z[i])) << i;

  // qkv: [tokens][3][heads][d]; rotate q only.
  std::vector<float> qkv(static_cast<size_t>(tokens * 3 * heads * d));
  for (int t = 0; t < tokens; ++t)
    for (int j = 0; j < heads * d; ++j) {
      qkv[static_cast<size_t>(t * 3 * heads * d + j)] = x[static_cast<size_t>(t * heads * d + j)];
      qkv[static_cast<size_t>(t * 3 * heads * d + heads * d + j)] = 42.0f;
    }
  kernel::TensorView<float> q{qkv.data(), tokens, heads, 3 * heads * d, d};
  apply_rope_baseline(Implementation::f64_angle, plan, positions, kernel::TensorView<const float>{q.data, tokens, heads, q.token_stride, q.head_stride}, q);
  for (int t = 0; t < tokens; ++t)
    for (int j = 0; j < heads * d; ++j) {
      EXPECT_EQ(qkv[static_cast<size_t>(t * 3 * heads * d + j)], y[static_cast<size_t>(t * heads * d + j)]);
      EXPECT_EQ(qkv[static_cast<size_t>(t * 3 * heads * d + heads * d + j)], 42.0f);
    }
}

TEST(Baselines, BadViewsThrowInputError) {
  const int d = 8;
  const kernel::RopePlan plan(Spectrum(d, "10000"), kernel::Layout::interleaved);
  std::vector<float> x(static_cast<size_t>(4 * d)), y(x.size());
  const std::vector<std::int64_t> three = {0, 1, 2};
  EXPECT_THROW(apply_rope_baseline(Implementation::f32_angle, plan, three, kernel::dense_view<const float>(x.data(), 4, 1, d), kernel::dense_view<float>(y.data(), 4, 1, d)), InputError);
  const std::vector<std::int64_t> four = {0, 1, 2, 3};
  EXPECT_THROW(apply_rope_baseline(Implementation::f32_angle, plan, four, kernel::dense_view<const float>(x.data(), 4, 1, d), kernel::dense_view<float>(y.data(), 2, 2, d)), InputError);
  // Overlapping but not identical views.
  EXPECT_THROW(apply_rope_baseline(Implementation::f64_angle, plan, std::span(four).first(3), kernel::dense_view<const float>(x.data(), 3, 1, d), kernel::dense_view<float>(x.data() + 1, 3, 1, d)), InputError);
  // Rows that overlap each other.
  EXPECT_THROW(apply_rope_baseline(Implementation::f64_angle, plan, four, kernel::dense_view<const float>(x.data(), 4, 1, d), kernel::TensorView<float>{y.data(), 4, 1, d / 2, d}), InputError);
}

}  // namespace
}  // namespace ropecheck::accuracy

// The audit engine: a correctly rounded output scores 100% and a one-ulp slip is found and located;
// the float32-angle baseline's error grows with the position decade; specials follow IEEE
// semantics; the thread count never changes a byte of the result.
#include "tests/support/small_float_bits.h"
#include "accuracy/audit.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "io/input_error.h"
#include "io/npy.h"
#include "kernel/apply_rope.h"
#include "accuracy/baselines.h"
#include "numeric/small_floats.h"
#include "random/counter_rng.h"
#include "spectrum/request.h"

namespace ropecheck::accuracy {
namespace {

// Moderate random floats (exponents in [-8, 8], random sign and mantissa): activation-like values.
std::vector<float> moderate_inputs(std::size_t n, std::uint64_t seed) {
  const CounterRng rng(seed, 0);
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t b = rng.bits(i);
    const auto exponent = static_cast<std::uint32_t>(119 + (b >> 40) % 17);
    x[i] = std::bit_cast<float>((static_cast<std::uint32_t>(b) & 0x807FFFFFu) | (exponent << 23));
  }
  return x;
}

// The correctly rounded output, element by element, from the reference.
std::vector<float> correctly_rounded_output(const kernel::RopePlan& plan, std::span<const std::int64_t> positions, std::int64_t heads,
                                            const std::vector<float>& x) {
  std::vector<float> y = x;
  RopeReference ref(plan);
  const int d = plan.dim();
  for (std::size_t t = 0; t < positions.size(); ++t) {
    ref.set_position(positions[t]);
    for (std::int64_t h = 0; h < heads; ++h)
      for (int k = 0; k < plan.block_pairs(); ++k) {
        if (plan.identity(k)) continue;
        const std::size_t row = (t * static_cast<std::size_t>(heads) + static_cast<std::size_t>(h)) * static_cast<std::size_t>(d);
        const std::size_t ia = row + static_cast<std::size_t>(plan.first_element(k)), ib = row + static_cast<std::size_t>(plan.second_element(k));
        const ExactPair e = ref.rotate(k, x[ia], x[ib]);
        y[ia] = f32_of(e.a);
        y[ib] = f32_of(e.b);
      }
  }
  return y;
}

TEST(Audit, CorrectlyRoundedOutputIsPerfectAndOneUlpSlipIsFound) {
  const int d = 16;
  const std::int64_t heads = 2;
  const kernel::RopePlan plan(Spectrum(d, "10000", Variant::partial, "0.75"), kernel::Layout::half);
  const std::vector<std::int64_t> positions = {0, 3, 77, 4096, 1 << 20, (std::int64_t{1} << 40) - 1, -5};
  const std::vector<float> x = moderate_inputs(positions.size() * heads * d, 21);
  std::vector<float> y = correctly_rounded_output(plan, positions, heads, x);
  ErrorAccumulator e = measure_outputs(plan, Dtype::f32, positions, heads, x.data(), {y.data()}).front();
  EXPECT_EQ(e.elements(), x.size());
  EXPECT_EQ(e.correctly_rounded(), x.size());
  EXPECT_EQ(e.undecided(), 0u);
  EXPECT_LE(e.max_ulps(), 0.5);
  EXPECT_EQ(e.specials(), 0u);

  // Token 4 (position 2^20), head 1, pair 2 (elements 2 and 8 of the half layout, R = 6), y_b.
  // The slip is one metric ulp (a power of two >= ulp(y), so y + slip is a float unless it crosses
  // into the next binade, where it moves by at most one more ulp): the error lands in [0.5, 2.5].
  const std::size_t row = (4 * heads + 1) * d, slip = row + 8;
  const double norm = std::hypot(static_cast<double>(x[row + 2]), static_cast<double>(x[row + 8]));
  y[slip] = static_cast<float>(y[slip] + metric_ulp(y[slip], norm, Dtype::f32));
  e = measure_outputs(plan, Dtype::f32, positions, heads, x.data(), {y.data()}).front();
  EXPECT_EQ(e.correctly_rounded(), x.size() - 1);
  EXPECT_GT(e.max_ulps(), 0.5);
  EXPECT_LE(e.max_ulps(), 2.5);
  EXPECT_EQ(e.worst().token, 4);
  EXPECT_EQ(e.worst().position, 1 << 20);
  EXPECT_EQ(e.worst().head, 1);
  EXPECT_EQ(e.worst().pair, 2);
  EXPECT_EQ(e.worst().component, 1);
  EXPECT_EQ(e.worst().got_bits, std::bit_cast<std::uint32_t>(y[slip]));
  EXPECT_EQ(e.decade(6).max_ulps, e.max_ulps());
  EXPECT_LE(e.decade(1).max_ulps, 0.5);
}

// The "done when": the audit reports the float32-angle baseline's growing error. Its angle
// fl32(fl32(p) * fl32(g)) has an absolute error ~|p g| 2^-24: ~2^-20 rad at p < 100, ~2^-3 rad at
// p ~ 5e6 for the fastest pairs, so the ulp error must be far larger in [1e6, 1e7) than in [10, 100).
TEST(Audit, F32AngleBaselineErrorGrowsWithPosition) {
  const int d = 64;
  const std::int64_t heads = 2;
  const kernel::RopePlan plan(Spectrum(d, "10000"), kernel::Layout::interleaved);
  std::vector<std::int64_t> positions;
  for (int i = 0; i < 12; ++i) positions.push_back(10 + 7 * i);
  for (int i = 0; i < 12; ++i) positions.push_back(1000000 + 712345 * i);
  const std::vector<float> x = moderate_inputs(positions.size() * heads * d, 5);
  std::vector<float> y(x.size());
  const auto tokens = static_cast<std::int64_t>(positions.size());
  apply_rope_baseline(Implementation::f32_angle, plan, positions, kernel::dense_view<const float>(x.data(), tokens, heads, d),
                      kernel::dense_view<float>(y.data(), tokens, heads, d));
  const ErrorAccumulator e = measure_outputs(plan, Dtype::f32, positions, heads, x.data(), {y.data()}).front();
  const DecadeStats& near = e.decade(1);
  const DecadeStats& far = e.decade(6);
  std::printf("f32-angle: [10,100) max %.4g ulp, abs %.3g; [1e6,1e7) max %.4g ulp, abs %.3g (%s)\n", near.max_ulps,
              near.max_abs, far.max_ulps, far.max_abs, metric_definition(Dtype::f32).c_str());
  EXPECT_GT(far.max_ulps, near.max_ulps);
  // The angle error grows ~1e5-fold (|p g| from < 100 to ~1e7 rad); the inputs are the same kind.
  EXPECT_GT(far.max_abs, 100 * near.max_abs);
}

TEST(Audit, ThreadCountDoesNotChangeTheResult) {
  const int d = 32;
  const kernel::RopePlan plan(Spectrum(d, "500000"), kernel::Layout::half);
  std::vector<std::int64_t> positions;
  for (int i = 0; i < 23; ++i) positions.push_back(static_cast<std::int64_t>(i) * 98765431);
  const std::vector<float> x = moderate_inputs(positions.size() * d, 8);
  std::vector<float> y(x.size()), z(x.size());
  const auto tokens = static_cast<std::int64_t>(positions.size());
  apply_rope_baseline(Implementation::f32_angle, plan, positions, kernel::dense_view<const float>(x.data(), tokens, 1, d), kernel::dense_view<float>(y.data(), tokens, 1, d));
  apply_rope_baseline(Implementation::f64_angle, plan, positions, kernel::dense_view<const float>(x.data(), tokens, 1, d), kernel::dense_view<float>(z.data(), tokens, 1, d));
  std::string first;
  for (int threads : {1, 2, 5, 64}) {
    const std::vector<ErrorAccumulator> e = measure_outputs(plan, Dtype::f32, positions, 1, x.data(), {y.data(), z.data()}, {threads});
    const std::string dump = e[0].to_json().dump() + e[1].to_json().dump();
    if (first.empty()) first = dump;
    EXPECT_EQ(dump, first) << threads << " threads";
  }
  EXPECT_THROW(measure_outputs(plan, Dtype::f32, positions, 1, x.data(), {y.data()}, {0}), InputError);
}

// Non-finite inputs: the IEEE evaluation of the formula. (inf, 1) at p = 5 gives (inf cos 5, inf sin
// 5) = (+inf, -inf); a NaN input gives NaN; an implementation that flushes them to 0 mismatches.
TEST(Audit, SpecialsFollowIeeeSemantics) {
  const int d = 4;
  const kernel::RopePlan plan(Spectrum(d, "10000"), kernel::Layout::interleaved);
  const std::vector<std::int64_t> positions = {5, 0};
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {INFINITY, 1.0f, nan, 2.0f, 1.0f, -INFINITY, 0.5f, 0.25f};
  std::vector<float> y(x.size());
  apply_rope_baseline(Implementation::f64_angle, plan, positions, kernel::dense_view<const float>(x.data(), 2, 1, d), kernel::dense_view<float>(y.data(), 2, 1, d));
  EXPECT_EQ(y[0], INFINITY);
  EXPECT_EQ(y[1], -INFINITY);
  std::vector<float> flushed = y;
  flushed[2] = 0.0f;
  const std::vector<ErrorAccumulator> e = measure_outputs(plan, Dtype::f32, positions, 1, x.data(), {y.data(), flushed.data()});
  EXPECT_EQ(e[0].specials(), 6u);  // three pairs with a non-finite input, two components each
  EXPECT_EQ(e[0].special_mismatches(), 0u);
  EXPECT_EQ(e[1].special_mismatches(), 1u);
  EXPECT_EQ(e[0].elements(), 2u);  // the one finite pair (0.5, 0.25) at position 0
}

TEST(Audit, Bf16OutputsAreMeasuredInBf16Ulps) {
  const int d = 8;
  const kernel::RopePlan plan(Spectrum(d, "10000"), kernel::Layout::half);
  const std::vector<std::int64_t> positions = {1, 100, 12345};
  const std::vector<float> xf = moderate_inputs(positions.size() * d, 13);
  std::vector<Bf16Bits> x(xf.size()), y(xf.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = bf16_from_float(xf[i]);
  apply_rope_baseline(Implementation::f64_angle, plan, positions, kernel::dense_view<const Bf16Bits>(x.data(), 3, 1, d), kernel::dense_view<Bf16Bits>(y.data(), 3, 1, d));
  const ErrorAccumulator e = measure_outputs(plan, Dtype::bf16, positions, 1, x.data(), {y.data()}).front();
  EXPECT_EQ(e.elements(), x.size());
  // A double-precision rotation rounded to float then to bf16: at most one extra float rounding
  // (2^-16 bf16-ulp) above half an ulp, whatever the double rounding does to ties.
  EXPECT_LE(e.max_ulps(), 0.5 + 0x1p-15);
  EXPECT_GT(e.share_correctly_rounded(), 0.9);
  EXPECT_EQ(e.to_json()["format"], "bf16");
}

// The kernel's own output, on every path this CPU runs, against its contract (apply_rope.h:
// 0.5 + 2^-25 ulp for f32, 0.5 + 2^-14 for bf16, so 0.501 has room for neither to hide) at
// positions up to 2^40, moderate and bit-pattern inputs.
TEST(Audit, KernelOutputIsWithinItsBoundOnEveryPath) {
  const int d = 64;
  const std::int64_t heads = 2;
  const kernel::RopePlan plan(Spectrum(d, "10000"), kernel::Layout::interleaved);
  std::vector<std::int64_t> positions;
  const CounterRng rng(17, 0);
  for (int i = 0; i < 24; ++i) positions.push_back(static_cast<std::int64_t>(rng.bits(static_cast<std::uint64_t>(i)) >> (24 + i % 40)));
  const auto tokens = static_cast<std::int64_t>(positions.size());
  std::vector<float> x = moderate_inputs(positions.size() * heads * d, 3);
  for (std::size_t i = 0; i < x.size(); i += 3) {  // every third element: any finite bit pattern
    auto u = static_cast<std::uint32_t>(rng.bits(1000 + i));
    if ((u & 0x7F800000u) == 0x7F800000u) u &= ~0x40000000u;
    x[i] = std::bit_cast<float>(u);
  }
  std::vector<Bf16Bits> xb(x.size());
  std::vector<F16Bits> xh(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) xb[i] = bf16_from_float(x[i]), xh[i] = f16_from_float(x[i]);
  for (cpu::Path path : cpu::available_paths()) {
    std::vector<float> y(x.size());
    std::vector<Bf16Bits> yb(x.size());
    std::vector<F16Bits> yh(x.size());
    kernel::apply_rope(plan, positions, kernel::dense_view<const float>(x.data(), tokens, heads, d), kernel::dense_view<float>(y.data(), tokens, heads, d), {path, 1});
    kernel::apply_rope(plan, positions, kernel::dense_view<const Bf16Bits>(xb.data(), tokens, heads, d), kernel::dense_view<Bf16Bits>(yb.data(), tokens, heads, d), {path, 1});
    kernel::apply_rope(plan, positions, kernel::dense_view<const F16Bits>(xh.data(), tokens, heads, d), kernel::dense_view<F16Bits>(yh.data(), tokens, heads, d), {path, 1});
    const ErrorAccumulator e32 = measure_outputs(plan, Dtype::f32, positions, heads, x.data(), {y.data()}).front();
    const ErrorAccumulator e16 = measure_outputs(plan, Dtype::bf16, positions, heads, xb.data(), {yb.data()}).front();
    const ErrorAccumulator eh = measure_outputs(plan, Dtype::f16, positions, heads, xh.data(), {yh.data()}).front();
    // Correctly rounded: at most half an ulp (the floored metric's unit is never below the ulp).
    EXPECT_LE(e32.max_ulps(), 0.5) << cpu::path_name(path) << ": " << describe(e32.worst(), Dtype::f32);
    EXPECT_LE(e16.max_ulps(), 0.5) << cpu::path_name(path) << ": " << describe(e16.worst(), Dtype::bf16);
    EXPECT_LE(eh.max_ulps(), 0.5) << cpu::path_name(path) << ": " << describe(eh.worst(), Dtype::f16);
    EXPECT_GE(e32.share_correctly_rounded(), 0.9999) << cpu::path_name(path);
    EXPECT_EQ(e32.undecided(), 0u);
  }
}

// A model's layer type: the kernel's own output (correctly rounded for every output, with the
// attention factor, the rotary part at its offset and pass-through channels copied) is 100%
// bit-identical to the reference's correctly rounded value, in f32, bf16 and f16, at positions beyond
// 2^24, 2^31 and up to 2^62. YaRN (gpt-oss-20b: a = 1.347), LongRoPE (phi-3.5-mini: a = 1.190),
// MLA (deepseek-v3: rope part 64 at channel 128 of 192), NeoX partial (gpt-neox-20b) and GLM's
// interleaved first half (glm-4-9b).
TEST(Audit, KernelOutputOfEveryModelGeometryIsBitIdentical) {
  const std::vector<std::int64_t> positions = {0, 7, 4097, (std::int64_t{1} << 24) + 1, (std::int64_t{1} << 31) + 5,
                                               std::int64_t{1} << 33, (std::int64_t{1} << 62) - 3};
  const auto tokens = static_cast<std::int64_t>(positions.size());
  const std::int64_t heads = 2;
  for (const char* name : {"gpt-oss-20b", "phi-3.5-mini", "deepseek-v3", "gpt-neox-20b", "glm-4-9b"}) {
    SpectrumRequest request;
    request.model = name;
    const ResolvedSpectrum rs = resolve(request);
    ASSERT_TRUE(rs.layer.has_value()) << name;
    const kernel::RopePlan plan(*rs.layer);
    const int d = plan.dim();
    const std::vector<float> x = moderate_inputs(static_cast<std::size_t>(tokens * heads * d), 31);
    std::vector<float> y(x.size());
    kernel::apply_rope(plan, positions, kernel::dense_view<const float>(x.data(), tokens, heads, d), kernel::dense_view<float>(y.data(), tokens, heads, d));
    std::vector<Bf16Bits> xb(x.size()), yb(x.size());
    std::vector<F16Bits> xh(x.size()), yh(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) xb[i] = bf16_from_float(x[i]), xh[i] = f16_from_float(x[i]);
    kernel::apply_rope(plan, positions, kernel::dense_view<const Bf16Bits>(xb.data(), tokens, heads, d),
                       kernel::dense_view<Bf16Bits>(yb.data(), tokens, heads, d));
    kernel::apply_rope(plan, positions, kernel::dense_view<const F16Bits>(xh.data(), tokens, heads, d),
                       kernel::dense_view<F16Bits>(yh.data(), tokens, heads, d));
    const ErrorAccumulator e32 = measure_outputs(plan, Dtype::f32, positions, heads, x.data(), {y.data()}).front();
    const ErrorAccumulator e16 = measure_outputs(plan, Dtype::bf16, positions, heads, xb.data(), {yb.data()}).front();
    const ErrorAccumulator eh = measure_outputs(plan, Dtype::f16, positions, heads, xh.data(), {yh.data()}).front();
    const auto pass = static_cast<std::uint64_t>(tokens * heads * (d - 2 * plan.block_pairs()));
    for (const ErrorAccumulator* e : {&e32, &e16, &eh}) {
      EXPECT_EQ(e->elements(), x.size()) << name;
      EXPECT_EQ(e->undecided(), 0u) << name;
      EXPECT_EQ(e->correctly_rounded(), x.size()) << name << ": " << describe(e->worst(), e->format());
      EXPECT_EQ(e->pass_through(), pass) << name;
      EXPECT_EQ(e->pass_through_mismatches(), 0u) << name;
    }
    // The factor is in the map: the same output read as a rotation would be off by (a - 1) ||x||.
    if (std::string(name) == "gpt-oss-20b" || std::string(name) == "phi-3.5-mini") {
      EXPECT_GT(plan.attention_factor(), 1.1) << name;
    }
  }
}

// Pass-through channels are copies: -0 for +0 is 0 ulp away, yet not the input, and a NaN payload
// must survive; both count against the output.
TEST(Audit, PassThroughChannelsMustBeTheInputBitForBit) {
  SpectrumRequest request;
  request.model = "deepseek-v3";  // rope part [128, 192): channels 0..127 pass through
  const kernel::RopePlan plan(*resolve(request).layer);
  const int d = plan.dim();
  ASSERT_EQ(plan.rotary_offset(), 128);
  const std::vector<std::int64_t> positions = {3};
  std::vector<float> x = moderate_inputs(static_cast<std::size_t>(d), 41);
  x[5] = 0.0f;
  x[6] = std::bit_cast<float>(0x7FC01234u);  // a NaN with a payload
  std::vector<float> y(x.size());
  kernel::apply_rope(plan, positions, kernel::dense_view<const float>(x.data(), 1, 1, d), kernel::dense_view<float>(y.data(), 1, 1, d));
  EXPECT_EQ(std::bit_cast<std::uint32_t>(y[6]), 0x7FC01234u);
  std::vector<float> wrong = y;
  wrong[5] = -0.0f;
  wrong[6] = std::bit_cast<float>(0x7FC00000u);
  const std::vector<ErrorAccumulator> e = measure_outputs(plan, Dtype::f32, positions, 1, x.data(), {y.data(), wrong.data()});
  EXPECT_EQ(e[0].pass_through(), 128u);
  EXPECT_EQ(e[0].pass_through_mismatches(), 0u);
  EXPECT_EQ(e[0].correctly_rounded(), e[0].elements());
  EXPECT_EQ(e[1].pass_through_mismatches(), 2u);
  EXPECT_EQ(e[1].special_mismatches(), 1u);
  EXPECT_EQ(e[1].correctly_rounded() + 1, e[1].elements());
  EXPECT_EQ(e[1].max_ulps(), e[0].max_ulps());  // the sign-of-zero slip is 0 ulp: only the bits see it
}

// The f32-angle baseline of a YaRN model applies the factor as transformers does (cos and sin times
// fl32(a) in float32): a few ulps at small positions, where an output without the factor would be
// ~35% (gpt-oss: a = 1.347) off; its error then grows with the position decade.
TEST(Audit, F32AngleBaselineOfAYarnModelAppliesTheFactor) {
  SpectrumRequest request;
  request.model = "gpt-oss-20b";
  const kernel::RopePlan plan(*resolve(request).layer);
  const int d = plan.dim();
  std::vector<std::int64_t> positions;
  for (int i = 0; i < 6; ++i) positions.push_back(3 + i);
  for (int i = 0; i < 6; ++i) positions.push_back(1000003 + 1234567 * i);
  const auto tokens = static_cast<std::int64_t>(positions.size());
  const std::vector<float> x = moderate_inputs(static_cast<std::size_t>(tokens * d), 43);
  std::vector<float> y(x.size());
  apply_rope_baseline(Implementation::f32_angle, plan, positions, kernel::dense_view<const float>(x.data(), tokens, 1, d),
                      kernel::dense_view<float>(y.data(), tokens, 1, d));
  const ErrorAccumulator e = measure_outputs(plan, Dtype::f32, positions, 1, x.data(), {y.data()}).front();
  // Positions 3..8 (decade [0, 10)), g <= 1: the angle is off by at most 8 |fl32(g) - g| plus half
  // an ulp of an angle below 8 (2^-22 rad). Granting the float32 frequency 64 ulps (2^-18
  // relative: powf's exponent rounding times ln theta ~ 12, and YaRN's blend, need far less), that
  // is < 2^-15 + 2^-22 rad, an output error < a 2^-14.99 ||x|| = 696 floored ulps (a = 1.347,
  // floor 2^-24 ||x||), plus a few half-ulps for cos, sin, the factor product and the rotation:
  // < 1024. A missing factor would be off by (a - 1) ||x||, 0.347 * 2^24 = 5.8e6 floored ulps.
  EXPECT_LT(e.decade(0).max_ulps, 1024) << describe(e.worst(), Dtype::f32);
  EXPECT_GT(e.decade(6).max_ulps, 100 * e.decade(0).max_ulps);
}

}  // namespace
}  // namespace ropecheck::accuracy

namespace ropecheck::accuracy {
namespace {

// audit_tensors (the Python module's audit) is audit_files without the files: the same result for
// the same arrays, and errors naming the tensors as the caller names them.
TEST(Audit, TensorsInMemoryGiveTheFilesResult) {
  SpectrumRequest request;
  request.model = "gpt-oss-20b";
  const kernel::RopePlan plan = plan_for_request(resolve(request), std::nullopt);
  const int d = plan.dim();
  const std::vector<std::int64_t> positions = {0, 9, 1 << 24, (std::int64_t{1} << 40) + 1};
  const std::vector<float> x = moderate_inputs(positions.size() * 2 * static_cast<std::size_t>(d), 51);
  std::vector<float> y(x.size());
  apply_rope_baseline(Implementation::f32_angle, plan, positions, kernel::dense_view<const float>(x.data(), 4, 2, d),
                      kernel::dense_view<float>(y.data(), 4, 2, d));
  AuditRequest r;
  r.spectrum = request;
  AuditTensors t;
  t.shape = t.output_shape = {4, 2, d};
  t.input = x.data();
  t.output = y.data();
  t.positions_shape = {4};
  t.positions = positions;
  const AuditResult mem = audit_tensors(r, t, AuditNames{"x", "y", "positions"});

  const std::string dir = ::testing::TempDir();
  const auto save = [&](const std::string& name, const std::string& dtype, std::vector<std::int64_t> shape, const void* data, std::size_t n) {
    NpyArray a;
    a.dtype = dtype;
    a.shape = std::move(shape);
    a.bytes.resize(n);
    std::memcpy(a.bytes.data(), data, n);
    write_npy(dir + name, a, name);
    return dir + name;
  };
  r.input_path = save("audit_x.npy", "<f4", t.shape, x.data(), x.size() * 4);
  r.output_path = save("audit_y.npy", "<f4", t.shape, y.data(), y.size() * 4);
  r.positions_path = save("audit_p.npy", "<i8", {4}, positions.data(), positions.size() * 8);
  const AuditResult files = audit_files(r);
  EXPECT_EQ(audit_json(mem), audit_json(files));
  EXPECT_GT(mem.errors.max_ulps(), 1000);  // the float32 angle at 2^40

  t.output_shape = {3, 2, d};
  try {
    audit_tensors(r, t, AuditNames{"x", "y", "positions"});
    FAIL() << "a y of another shape was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.input(), "y");
  }
}

}  // namespace
}  // namespace ropecheck::accuracy

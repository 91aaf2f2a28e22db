// The metric on hand-made cases: binade boundaries, the floor, subnormals, infinities and NaN; the
// accumulator's median, worst element and determinism under any split into chunks.
#include "accuracy/ulp_error.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "random/counter_rng.h"

namespace ropecheck::accuracy {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(UlpError, UlpAtBinadeBoundariesAndSubnormals) {
  EXPECT_EQ(format_ulp(1.0, Dtype::f32), 0x1p-23);
  EXPECT_EQ(format_ulp(-1.0, Dtype::f32), 0x1p-23);
  EXPECT_EQ(format_ulp(2.0 - 0x1p-23, Dtype::f32), 0x1p-23);
  EXPECT_EQ(format_ulp(2.0, Dtype::f32), 0x1p-22);
  EXPECT_EQ(format_ulp(0x1p-126, Dtype::f32), 0x1p-149);  // smallest normal: same ulp as subnormals
  EXPECT_EQ(format_ulp(0x1p-127, Dtype::f32), 0x1p-149);
  EXPECT_EQ(format_ulp(0.0, Dtype::f32), 0x1p-149);
  EXPECT_EQ(format_ulp(FLT_MAX, Dtype::f32), 0x1p104);
  EXPECT_EQ(format_ulp(0x1p129, Dtype::f32), 0x1p104);  // beyond the largest float: the top binade's
  EXPECT_EQ(format_ulp(1.0, Dtype::bf16), 0x1p-7);
  EXPECT_EQ(format_ulp(3.0, Dtype::bf16), 0x1p-6);
  EXPECT_EQ(format_ulp(0x1p-127, Dtype::bf16), 0x1p-133);
}

// The metric is defined for the kernel dtypes only: f64 is a programming error.
TEST(UlpError, F64IsNotAKernelDtype) {
  EXPECT_THROW(format_ulp(1.0, Dtype::f64), std::invalid_argument);
  EXPECT_THROW(format_floor(Dtype::f64), std::invalid_argument);
  EXPECT_THROW(metric_definition(Dtype::f64), std::invalid_argument);
  EXPECT_THROW(ErrorAccumulator{Dtype::f64}, std::invalid_argument);
}

TEST(UlpError, FloorAtPairNorm) {
  EXPECT_EQ(metric_ulp(1e-10, 1.0, Dtype::f32), 0x1p-24);  // cancellation: the floor decides
  EXPECT_EQ(metric_ulp(1.0, 1.0, Dtype::f32), 0x1p-23);    // |y| = norm: its own ulp (2x the floor)
  EXPECT_EQ(metric_ulp(0.75, 1.0, Dtype::f32), 0x1p-24);   // [0.5, 1): ulp 2^-24 = floor
  EXPECT_EQ(metric_ulp(0.3, 1.0, Dtype::f32), 0x1p-24);    // ulp 2^-25 < floor
  EXPECT_EQ(metric_ulp(1e-10, 4.0, Dtype::bf16), 0x1p-6);
  EXPECT_NE(metric_definition(Dtype::f32).find("2^-24"), std::string::npos);
  EXPECT_NE(metric_definition(Dtype::bf16).find("2^-8"), std::string::npos);
}

TEST(UlpError, ComponentErrors) {
  // 1 + 2^-24 + 2^-30 lies just above the midpoint of [1, 1 + 2^-23]: the correct rounding is up.
  const double y = 1.0 + 0x1p-24 + 0x1p-30;
  ComponentError e = component_error(1.0 + 0x1p-23, y, 1.0 + 0x1p-23, 1.0, Dtype::f32);
  EXPECT_TRUE(e.correctly_rounded);
  EXPECT_EQ(e.ulps, 0.5 - 0x1p-7);
  e = component_error(1.0, y, 1.0 + 0x1p-23, 1.0, Dtype::f32);
  EXPECT_FALSE(e.correctly_rounded);
  EXPECT_EQ(e.ulps, 0.5 + 0x1p-7);
  EXPECT_EQ(e.abs, 0x1p-24 + 0x1p-30);
  // Subnormal: 3/4 of the smallest subnormal, got the smallest subnormal: a quarter ulp.
  e = component_error(0x1p-149, 0.75 * 0x1p-149, 0x1p-149, 0x1p-149, Dtype::f32);
  EXPECT_TRUE(e.correctly_rounded);
  EXPECT_EQ(e.ulps, 0.25);
  // Signed zeros are the same value.
  EXPECT_TRUE(component_error(-0.0, 0x1p-200, 0.0, 1.0, Dtype::f32).correctly_rounded);
  // A correctly rounded overflow.
  e = component_error(kInf, 0x1p128, kInf, 0x1p128, Dtype::f32);
  EXPECT_TRUE(e.correctly_rounded);
  EXPECT_EQ(e.ulps, 0.5);
  EXPECT_EQ(e.abs, 0.0);
  // A missed overflow: FLT_MAX where y is above the rounding threshold FLT_MAX + 2^103.
  e = component_error(FLT_MAX, FLT_MAX + 0x1p103 + 0x1p80, kInf, 0x1p128, Dtype::f32);
  EXPECT_FALSE(e.correctly_rounded);
  EXPECT_GT(e.ulps, 0.5);
  EXPECT_LT(e.ulps, 0.5 + 0x1p-20);
  // A spurious overflow and a NaN: infinitely wrong.
  EXPECT_EQ(component_error(kInf, FLT_MAX, FLT_MAX, FLT_MAX, Dtype::f32).ulps, kInf);
  e = component_error(std::nan(""), 1.0, 1.0, 1.0, Dtype::bf16);
  EXPECT_EQ(e.ulps, kInf);
  EXPECT_EQ(e.rel, kInf) << "a NaN is infinitely wrong relative to the pair too (a 0 here let rtol accept it)";
  EXPECT_FALSE(e.correctly_rounded);
  EXPECT_TRUE(std::isnan(component_error(std::nan(""), 0x1p-130, 0x1p-130, 0x1p-130, Dtype::f32).rel)) << "no rel below 2^-126";
}

TEST(UlpError, PhaseError) {
  EXPECT_DOUBLE_EQ(phase_error(1, 0, 0, 1), M_PI / 2);
  EXPECT_DOUBLE_EQ(phase_error(-1, 0, 1, 0), M_PI);
  EXPECT_NEAR(phase_error(1, 1e-8, 1, 0), 1e-8, 1e-20);
  EXPECT_EQ(phase_error(3, 4, 6, 8), 0.0);
  EXPECT_TRUE(std::isnan(phase_error(0, 0, 1, 0)));
  EXPECT_TRUE(std::isnan(phase_error(kInf, 0, 1, 0)));
}

TEST(UlpError, Decades) {
  EXPECT_EQ(position_decade(0), 0);
  EXPECT_EQ(position_decade(9), 0);
  EXPECT_EQ(position_decade(10), 1);
  EXPECT_EQ(position_decade(99), 1);
  EXPECT_EQ(position_decade(-15), 1);
  EXPECT_EQ(position_decade(1000000), 6);
  EXPECT_EQ(position_decade(9999999), 6);
  EXPECT_EQ(position_decade(std::numeric_limits<std::int64_t>::max()), 18);
  EXPECT_EQ(position_decade(std::numeric_limits<std::int64_t>::min()), 18);
  EXPECT_EQ(decade_label(0), "[0, 10)");
  EXPECT_EQ(decade_label(6), "[1e6, 1e7)");
  EXPECT_EQ(decade_label(18), "[1e18, 2^63]");
}

ElementRecord record(std::int64_t p, double got, double exact, double cr) {
  ElementRecord r;
  r.position = p;
  r.token = p;
  r.pair = 0;
  r.got = got;
  r.exact = exact;
  r.correctly_rounded = cr;
  r.norm = 1.0;
  return r;
}

TEST(UlpError, AccumulatorMedianWorstAndShare) {
  ErrorAccumulator a(Dtype::f32);
  // Errors 0.1, 0.2, 0.3 ulp (ulp 2^-23 at 1): median 0.2 within the histogram's resolution.
  for (double u : {0.3, 0.1, 0.2}) a.add(record(5, 1.0, 1.0 + u * 0x1p-23, 1.0), true);
  // Two elements with the same, larger error: the first one is the worst.
  a.add(record(50, 1.0 + 0x1p-23, 1.0 + 0x1p-24 - 0x1p-40, 1.0), true);
  a.add(record(60, 1.0 + 0x1p-23, 1.0 + 0x1p-24 - 0x1p-40, 1.0), true);
  a.add(record(70, 1.0, 1.0, 1.0), false);  // undecided: counted, outside the share
  EXPECT_EQ(a.elements(), 6u);
  EXPECT_EQ(a.undecided(), 1u);
  EXPECT_EQ(a.correctly_rounded(), 3u);
  EXPECT_DOUBLE_EQ(a.share_correctly_rounded(), 3.0 / 5.0);
  EXPECT_EQ(a.worst().position, 50);
  EXPECT_NEAR(a.max_ulps(), 0.5 + 0x1p-17, 1e-12);
  // Sorted: 0, 0.1, 0.2, 0.3, 0.5+, 0.5+: the lower median is 0.2.
  EXPECT_NEAR(a.median_ulps(), 0.2, a.median_resolution());
  EXPECT_EQ(a.median_resolution(), 0x1p-14);
  EXPECT_EQ(a.decade(0).elements, 3u);
  EXPECT_EQ(a.decade(1).elements, 3u);
  EXPECT_NEAR(a.decade(1).max_ulps, 0.5 + 0x1p-17, 1e-12);
}

// Merging per-chunk partials in order gives the same result for every split.
TEST(UlpError, MergeIsIndependentOfTheSplit) {
  const CounterRng rng(7, 0);
  std::vector<ElementRecord> recs;
  for (int i = 0; i < 400; ++i) {
    const double u = std::floor(rng.uniform_dyadic(static_cast<std::uint64_t>(i)) * 8) / 8;  // many ties
    recs.push_back(record(static_cast<std::int64_t>(rng.bits(1000u + static_cast<std::uint64_t>(i)) % 100000), 1.0,
                          1.0 + u * 0x1p-23, 1.0));
  }
  auto run = [&](int chunks) {
    ErrorAccumulator total(Dtype::f32);
    for (int c = 0; c < chunks; ++c) {
      ErrorAccumulator part(Dtype::f32);
      for (size_t i = recs.size() * static_cast<size_t>(c) / static_cast<size_t>(chunks);
           i < recs.size() * static_cast<size_t>(c + 1) / static_cast<size_t>(chunks); ++i) {
        part.add(recs[i], true);
        part.add_phase(recs[i].position, 1e-9 * static_cast<double>(i));
      }
      total.merge(part);
    }
    return total.to_json().dump();
  };
  const std::string one = run(1);
  for (int chunks : {2, 3, 7, 400}) EXPECT_EQ(run(chunks), one) << chunks << " chunks";
}

}  // namespace
}  // namespace ropecheck::accuracy

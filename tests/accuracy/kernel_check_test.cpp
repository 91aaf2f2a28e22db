// kernel-check on a small sample: the kernel's paths meet the goal, the baselines are measured
// (and the f32-angle one would fail the goal: the check can fail), and the samples and figures do
// not depend on the thread count.
#include "accuracy/kernel_check.h"

#include <gtest/gtest.h>

#include "io/input_error.h"
#include "cpu/path.h"
#include "spectrum/model_zoo.h"

namespace ropecheck::accuracy {
namespace {

nlohmann::json without_time(nlohmann::json j) {
  j.erase("seconds");
  j.erase("threads");
  return j;
}

TEST(KernelCheck, KernelPassesBaselinesAreMeasuredThreadsDoNotMatter) {
  const kernel::RopePlan plan(Spectrum(64, "10000"), kernel::Layout::half);
  KernelCheckOptions o;
  o.samples = 48;
  const KernelCheckResult one = run_kernel_check(plan, o);
  o.threads = 3;
  const KernelCheckResult three = run_kernel_check(plan, o);
  EXPECT_EQ(without_time(kernel_check_json(one)).dump(), without_time(kernel_check_json(three)).dump());
  EXPECT_TRUE(one.passed) << format_kernel_check(one);
  EXPECT_TRUE(one.paths_agree) << format_kernel_check(one);
  int kernels = 0;
  for (const ImplementationCheck& row : one.rows) {
    if (row.kernel) {
      ++kernels;
      EXPECT_LE(row.errors.max_ulps(), kKernelMaxUlps) << row.name;
      EXPECT_GT(row.errors.elements(), 48u * kKernelCheckHeads * 64);
      EXPECT_EQ(row.errors.special_mismatches(), 0u) << row.name;
      EXPECT_GT(row.errors.specials(), 0u) << row.name;
    } else if (row.name == "baseline f32-angle") {
      // The float angle is off by ~|p g| 2^-24 rad at positions up to 2^40: far beyond 0.501.
      EXPECT_GT(row.errors.max_ulps(), 100.0) << format_kernel_check(one);
      EXPECT_EQ(row.verdict, "baseline (not judged)");
    }
  }
  EXPECT_EQ(kernels, static_cast<int>(kKernelDtypes.size() * cpu::available_paths().size()));
  const std::string text = format_kernel_check(one);
  EXPECT_NE(text.find("LOWER BOUND (sampled)"), std::string::npos);
  EXPECT_NE(text.find("UPPER BOUND (proved"), std::string::npos);
  EXPECT_NE(text.find("ulp floored at 2^-24 x pair norm"), std::string::npos);
  EXPECT_NE(text.find("ulp floored at 2^-8 x pair norm"), std::string::npos);
  EXPECT_NE(text.find("agree bit for bit"), std::string::npos);
}

// Every zoo model and layer type with RoPE, as the kernel runs it (geometry, layout, attention
// factor): every kernel path correctly rounded on every sampled output, paths bit-identical.
// A small sample per layer type (the closing sweep of issue 17 runs `ropecheck kernel-check
// --model M --layer-type T` with the default 4096 positions).
TEST(KernelCheck, EveryZooModelAndLayerTypeIsCorrectlyRounded) {
  KernelCheckOptions o;
  o.samples = 12;
  o.threads = 2;
  int checked = 0;
  for (const std::string& name : zoo_names()) {
    const ModelDescription m = zoo_model(name);
    for (const LayerType& l : m.layer_types) {
      if (!l.spectrum) continue;
      const KernelCheckResult r = run_kernel_check(kernel::RopePlan(l), o);
      EXPECT_TRUE(r.passed) << name << "/" << l.name << "\n" << format_kernel_check(r);
      for (const ImplementationCheck& row : r.rows)
        if (row.kernel) {
          EXPECT_EQ(row.stats.unresolved, 0) << name << "/" << l.name << " " << row.name;
          EXPECT_GT(row.stats.outputs, 0) << name << "/" << l.name << " " << row.name;
        }
      ++checked;
    }
  }
  EXPECT_GE(checked, 21);
}

TEST(KernelCheck, EdgePositionsAndBadOptions) {
  const kernel::RopePlan plan(Spectrum(8, "10000", Variant::partial, "0.5"), kernel::Layout::interleaved);
  KernelCheckOptions o;
  o.samples = 4;
  o.max_position = 1000;
  o.formats = {Dtype::bf16};
  const KernelCheckResult r = run_kernel_check(plan, o);
  EXPECT_EQ(r.edge_positions, (std::vector<std::int64_t>{0, 1, 1000}));
  EXPECT_TRUE(r.passed) << format_kernel_check(r);
  for (const ImplementationCheck& row : r.rows) EXPECT_EQ(row.format, Dtype::bf16);
  o.samples = 0;
  EXPECT_THROW(run_kernel_check(plan, o), InputError);
  o.samples = 1;
  o.max_position = -1;
  EXPECT_THROW(run_kernel_check(plan, o), InputError);
  o.max_position = 1000;
  o.formats = {Dtype::f32, Dtype::f64};  // f64 is not a kernel dtype
  EXPECT_THROW(run_kernel_check(plan, o), InputError);
}

}  // namespace
}  // namespace ropecheck::accuracy

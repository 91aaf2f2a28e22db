// The kernel fuzz: deterministic for a seed and a candidate count; no counterexample on the
// production kernel over a sample (a sampled statement, not a proof: the proof is apply_rope.h's);
// a kernel with an injected 1-ulp fault IS caught, its documents round-trip and replay as
// still-breaks against the fault and no-longer-breaks against the real kernel. (The document
// format alone: kernel_counterexample_test.cpp.)
#include "tests/support/small_float_bits.h"
#include "accuracy/kernel_fuzz.h"

#include <cstring>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <sstream>

#include "accuracy/detail/kernel_fuzz_seam.h"
#include "accuracy/kernel_counterexample.h"
#include "io/input_error.h"
#include "kernel/apply_rope.h"
#include "numeric/small_floats.h"
#include "cpu/path.h"

namespace ropecheck::accuracy {
namespace {

using cpu::Path;

KernelFuzzOptions options(std::uint64_t seed, long long candidates, const std::string& config = "gemma-7b") {
  KernelFuzzOptions o;
  o.config = config;
  o.seed = seed;
  o.max_candidates = candidates;
  o.budget_seconds = 1e6;  // the candidate count ends the run: deterministic
  return o;
}

std::string dump_all(const KernelFuzzResult& r) {
  std::string s;
  for (const nlohmann::json& d : r.counterexamples) s += d.dump() + "\n";
  return s;
}

// The production kernel, then token 0's first finite non-zero output moved 1 ulp away from zero
// (bits + 1) on the faulty paths: every path, or only the SIMD twins.
detail::KernelUnderTest one_ulp_fault(bool simd_only) {
  const detail::KernelUnderTest real = detail::production_kernel();
  detail::KernelUnderTest k;
  k.rows = [real, simd_only](const kernel::RopePlan& plan, std::span<const std::int64_t> pos, Dtype f, const void* in, void* out,
                             cpu::Path path) {
    real.rows(plan, pos, f, in, out, path);
    if (simd_only && path == cpu::Path::scalar) return;
    const auto width = static_cast<std::size_t>(dtype_info(f).bytes);
    auto* bytes = static_cast<unsigned char*>(out);
    for (int e = 0; e < plan.dim(); ++e) {
      std::uint32_t y = 0;
      std::memcpy(&y, bytes + static_cast<std::size_t>(e) * width, width);
      const double v = value_of_bits(f, y);
      if (std::isfinite(v) && v != 0) {
        ++y;  // one ulp away from zero, in every format's sign-magnitude bits
        std::memcpy(bytes + static_cast<std::size_t>(e) * width, &y, width);
        return;
      }
    }
  };
  return k;
}

// The bytes a stored document holds (io/content_store.h: canonical_text is j.dump(2) + "\n"), read back.
nlohmann::json round_trip(const nlohmann::json& doc) { return nlohmann::json::parse(doc.dump(2) + "\n"); }

TEST(KernelFuzz, DeterministicForASeedAndACandidateCount) {
  std::ostringstream log1, log2;
  const KernelFuzzResult a = fuzz_kernel(options(7, 640), log1);
  const KernelFuzzResult b = fuzz_kernel(options(7, 640), log2);
  EXPECT_EQ(a.tried, 640);
  EXPECT_EQ(a.tried, b.tried);
  EXPECT_EQ(a.outputs_checked, b.outputs_checked);
  EXPECT_EQ(a.outputs_checked, 2 * 640 * static_cast<long long>(cpu::available_paths().size()));
  EXPECT_EQ(a.undecided, b.undecided);
  for (Dtype f : kKernelDtypes) {
    EXPECT_EQ(std::bit_cast<std::uint64_t>(a.max_ulp(f)), std::bit_cast<std::uint64_t>(b.max_ulp(f))) << dtype_name(f);
    EXPECT_EQ(a.worst(f), b.worst(f));
    EXPECT_FALSE(a.worst(f).empty()) << dtype_name(f);
  }
  EXPECT_EQ(dump_all(a), dump_all(b));
  // A partial block: the count is exact.
  std::ostringstream log3;
  EXPECT_EQ(fuzz_kernel(options(7, 130), log3).tried, 130);
}

TEST(KernelFuzz, NoCounterexampleOnTheProductionKernelSampled) {
  // 16384 candidates (128 positions x every pair of gemma-7b, both dtypes and layouts): a SAMPLED
  // statement; the kernel's upper bound is proved (kernel/apply_rope.h), this only fails to refute it.
  std::ostringstream log;
  const KernelFuzzResult r = fuzz_kernel(options(1, 16384), log);
  EXPECT_EQ(r.tried, 16384);
  EXPECT_TRUE(r.counterexamples.empty()) << dump_all(r) << log.str();
  for (Dtype f : kKernelDtypes) EXPECT_LE(r.max_ulp(f), kernel::kProvedUlpBound) << r.worst(f);
  EXPECT_NE(log.str().find("LOWER bounds"), std::string::npos) << log.str();
  EXPECT_NE(log.str().find(" 0 violations"), std::string::npos) << log.str();
}

TEST(KernelFuzz, InjectedOneUlpFaultIsFoundAndReplayed) {
  std::ostringstream log;
  const detail::KernelUnderTest fault = one_ulp_fault(false);
  const KernelFuzzResult r = detail::fuzz_kernel_with(options(1, 512), log, fault);
  ASSERT_FALSE(r.counterexamples.empty()) << log.str();
  int replayed = 0;
  for (const nlohmann::json& doc : r.counterexamples) {
    // Every path has the fault, so they agree: documents name the scalar twin. A perturbed
    // identity-pair copy is a "special" (bit-for-bit copy) violation, anything else a "bound" one.
    EXPECT_EQ(doc["path"], "scalar") << doc.dump();
    EXPECT_TRUE(doc["claim"] == "bound" || doc["claim"] == "special") << doc.dump();
    if (doc["claim"] != "bound" || replayed == 3) continue;  // replay builds a plan and a reference: three suffice
    ++replayed;
    const nlohmann::json back = round_trip(doc);
    EXPECT_EQ(back, doc);
    const KernelReplay bad = detail::replay_kernel_with(back, "cx.json", fault);
    EXPECT_EQ(bad.verdict, ReplayVerdict::still_breaks) << bad.detail;
    const KernelReplay good = replay_kernel_counterexample(back, "cx.json");
    EXPECT_EQ(good.verdict, ReplayVerdict::no_longer_breaks) << good.detail;
    // The claim is correct rounding: a wrong output's floored figure may still be below 0.5 (an
    // output near cancellation, whose floored ulp is far above its own), so only the bits decide.
    EXPECT_EQ(doc["found"]["bound"], kernel::kProvedUlpBound) << doc.dump();
  }
  EXPECT_EQ(replayed, 3);
}

// A model's layer type as the kernel runs it (gpt-oss: YaRN with attention factor 1.347; DeepSeek-V3:
// the MLA rope part at channel 128 of 192): the real kernel keeps its contract, a 1-ulp fault is
// caught, and its documents name the model and replay against it.
TEST(KernelFuzz, ModelLayerTypesKeepTheContractAndFaultsReplay) {
  for (const char* model : {"gpt-oss-20b", "deepseek-v3"}) {
    KernelFuzzOptions o = options(3, 1024);
    o.model = model;
    std::ostringstream log;
    const KernelFuzzResult r = fuzz_kernel(o, log);
    EXPECT_EQ(r.tried, 1024) << model;
    EXPECT_TRUE(r.counterexamples.empty()) << model << dump_all(r) << log.str();
    EXPECT_NE(log.str().find(model), std::string::npos) << log.str();
    std::ostringstream flog;
    const KernelFuzzResult bad = detail::fuzz_kernel_with(o, flog, one_ulp_fault(false));
    ASSERT_FALSE(bad.counterexamples.empty()) << model << flog.str();
    const nlohmann::json& doc = bad.counterexamples.front();
    EXPECT_EQ(doc["spectrum"]["model"], model) << doc.dump();
    const nlohmann::json back = round_trip(doc);
    EXPECT_EQ(detail::replay_kernel_with(back, "cx.json", one_ulp_fault(false)).verdict, ReplayVerdict::still_breaks);
    EXPECT_EQ(replay_kernel_counterexample(back, "cx.json").verdict, ReplayVerdict::no_longer_breaks);
  }
}

TEST(KernelFuzz, InjectedPathDisagreementIsFoundAndReplayed) {
  if (cpu::available_paths().size() < 2) GTEST_SKIP() << "this CPU runs only the scalar path";
  std::ostringstream log;
  const detail::KernelUnderTest fault = one_ulp_fault(true);
  const KernelFuzzResult r = detail::fuzz_kernel_with(options(2, 256), log, fault);
  const nlohmann::json* paths = nullptr;
  for (const nlohmann::json& doc : r.counterexamples) {
    EXPECT_NE(doc["path"], "scalar") << doc.dump();  // the scalar twin is right
    if (doc["claim"] == "paths" && !paths) paths = &doc;
  }
  ASSERT_NE(paths, nullptr) << dump_all(r);
  const nlohmann::json back = round_trip(*paths);
  EXPECT_EQ(detail::replay_kernel_with(back, "cx.json", fault).verdict, ReplayVerdict::still_breaks);
  const KernelReplay good = replay_kernel_counterexample(back, "cx.json");
  EXPECT_EQ(good.verdict, ReplayVerdict::no_longer_breaks) << good.detail;
}

TEST(KernelFuzz, InjectedLostNegativeZeroIsFoundAndReplayed) {
  // A kernel that writes +0 for every -0 (as an implementation that adds +0 somewhere would) breaks
  // two contracts the ulp metric cannot see: identity pairs copy -0 bit for bit, and two signed
  // zeros rotate to the IEEE formula's signed zero.
  const detail::KernelUnderTest real = detail::production_kernel();
  detail::KernelUnderTest fault = real;
  fault.rows = [real](const kernel::RopePlan& plan, std::span<const std::int64_t> pos, Dtype f, const void* in, void* out, cpu::Path path) {
    real.rows(plan, pos, f, in, out, path);
    if (f != Dtype::f32) return;
    auto* y = static_cast<float*>(out);
    for (std::size_t i = 0; i < pos.size() * static_cast<std::size_t>(plan.dim()); ++i)
      if (std::bit_cast<std::uint32_t>(y[i]) == 0x80000000u) y[i] = 0.0f;
  };
  std::ostringstream log;
  const KernelFuzzResult r = detail::fuzz_kernel_with(options(3, 4096), log, fault);
  const nlohmann::json* special = nullptr;
  for (const nlohmann::json& doc : r.counterexamples) {
    EXPECT_EQ(doc["claim"], "special") << doc.dump();
    EXPECT_EQ(doc["dtype"], "f32") << doc.dump();
    if (!special) special = &doc;
  }
  ASSERT_NE(special, nullptr) << log.str();
  const nlohmann::json back = round_trip(*special);
  EXPECT_EQ(detail::replay_kernel_with(back, "cx.json", fault).verdict, ReplayVerdict::still_breaks);
  const KernelReplay good = replay_kernel_counterexample(back, "cx.json");
  EXPECT_EQ(good.verdict, ReplayVerdict::no_longer_breaks) << good.detail;
}

TEST(KernelFuzz, BadOptions) {
  std::ostringstream log;
  KernelFuzzOptions o = options(1, 10);
  o.budget_seconds = 0;
  EXPECT_THROW(fuzz_kernel(o, log), InputError);
  o.budget_seconds = -1;
  EXPECT_THROW(fuzz_kernel(o, log), InputError);
  o = options(1, 10, "no-such-model");
  try {
    fuzz_kernel(o, log);
    ADD_FAILURE() << "unknown config accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.input(), "config");  // the library parameter; the CLI shows --config
  }
}

}  // namespace
}  // namespace ropecheck::accuracy

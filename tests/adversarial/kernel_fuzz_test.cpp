// The kernel fuzz: deterministic for a seed and a candidate count; no counterexample on the
// production kernel over a sample (a sampled statement, not a proof: the proof is apply_rope.h's);
// a kernel with an injected 1-ulp fault IS caught, its documents round-trip and replay as
// still-breaks against the fault and no-longer-breaks against the real kernel; malformed documents
// are rejected naming the field; specials (non-finite inputs, signed zeros, identity pairs) replay.
#include "adversarial/kernel_fuzz.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <sstream>

#include "adversarial/detail/kernel_fuzz_seam.h"
#include "io/input_error.h"
#include "kernel/apply_rope.h"
#include "kernel/bf16.h"
#include "kernel/path.h"

namespace ropecheck::adversarial {
namespace {

using kernel::Path;

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
  k.f32 = [real, simd_only](const kernel::RopePlan& plan, std::span<const std::int64_t> pos, std::span<const float> in, std::span<float> out,
                            Path path) {
    real.f32(plan, pos, in, out, path);
    if (simd_only && path == Path::scalar) return;
    for (int e = 0; e < plan.dim(); ++e)
      if (std::isfinite(out[static_cast<std::size_t>(e)]) && out[static_cast<std::size_t>(e)] != 0) {
        out[static_cast<std::size_t>(e)] = std::bit_cast<float>(std::bit_cast<std::uint32_t>(out[static_cast<std::size_t>(e)]) + 1);
        return;
      }
  };
  k.bf16 = [real, simd_only](const kernel::RopePlan& plan, std::span<const std::int64_t> pos, std::span<const std::uint16_t> in,
                             std::span<std::uint16_t> out, Path path) {
    real.bf16(plan, pos, in, out, path);
    if (simd_only && path == Path::scalar) return;
    for (int e = 0; e < plan.dim(); ++e) {
      std::uint16_t& y = out[static_cast<std::size_t>(e)];
      if (std::isfinite(kernel::bf16_to_f32(y)) && (y & 0x7FFF) != 0) {
        ++y;
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
  EXPECT_EQ(a.outputs_checked, 2 * 640 * static_cast<long long>(kernel::available_paths().size()));
  EXPECT_EQ(a.undecided, b.undecided);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(a.max_ulp_f32), std::bit_cast<std::uint64_t>(b.max_ulp_f32));
  EXPECT_EQ(std::bit_cast<std::uint64_t>(a.max_ulp_bf16), std::bit_cast<std::uint64_t>(b.max_ulp_bf16));
  EXPECT_EQ(a.worst_f32, b.worst_f32);
  EXPECT_EQ(a.worst_bf16, b.worst_bf16);
  EXPECT_FALSE(a.worst_f32.empty());
  EXPECT_FALSE(a.worst_bf16.empty());
  EXPECT_EQ(dump_all(a), dump_all(b));
  // A partial block: the count is exact.
  std::ostringstream log3;
  EXPECT_EQ(fuzz_kernel(options(7, 130), log3).tried, 130);
}

TEST(KernelFuzz, NoCounterexampleOnTheProductionKernelSampled) {
  // 16384 candidates (128 positions x every pair of gemma-7b, both dtypes and layouts): a SAMPLED
  // statement; the kernel's upper bound is proved in kernel/detail/ops.h, this only fails to refute it.
  std::ostringstream log;
  const KernelFuzzResult r = fuzz_kernel(options(1, 16384), log);
  EXPECT_EQ(r.tried, 16384);
  EXPECT_TRUE(r.counterexamples.empty()) << dump_all(r) << log.str();
  EXPECT_LE(r.max_ulp_f32, kernel::kProvedUlpBoundF32) << r.worst_f32;
  EXPECT_LE(r.max_ulp_bf16, kernel::kProvedUlpBoundBf16) << r.worst_bf16;
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
    if (doc["found"]["ulp"].is_number()) {
      EXPECT_GT(doc["found"]["ulp"].get<double>(), kernel::kProvedUlpBoundF32) << doc.dump();
    }
  }
  EXPECT_EQ(replayed, 3);
}

TEST(KernelFuzz, InjectedPathDisagreementIsFoundAndReplayed) {
  if (kernel::available_paths().size() < 2) GTEST_SKIP() << "this CPU runs only the scalar path";
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
  fault.f32 = [real](const kernel::RopePlan& plan, std::span<const std::int64_t> pos, std::span<const float> in, std::span<float> out, Path path) {
    real.f32(plan, pos, in, out, path);
    for (float& y : out)
      if (std::bit_cast<std::uint32_t>(y) == 0x80000000u) y = 0.0f;
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

nlohmann::json valid_document() {
  return {{"format", "ropecheck-kernel-counterexample/1"},
          {"target", "kernel"},
          {"spectrum", {{"config", "gemma-7b"}}},
          {"layout", "interleaved"},
          {"dtype", "f32"},
          {"path", "scalar"},
          {"position", "-1234567890123"},
          {"pair", 17},
          {"input", {"0x3f800000", "0xc0400000"}},
          {"claim", "bound"},
          {"found", nlohmann::json::object()}};
}

void expect_field_error(const nlohmann::json& doc, const std::string& field) {
  try {
    replay_kernel_counterexample(doc, "cx.json");
    ADD_FAILURE() << "accepted: " << doc.dump();
  } catch (const InputError& e) {
    EXPECT_EQ(e.input(), "cx.json: " + field) << e.what() << "\n" << doc.dump();
  }
}

TEST(KernelFuzz, MalformedDocumentsNameTheField) {
  EXPECT_EQ(replay_kernel_counterexample(valid_document(), "cx.json").verdict, ReplayVerdict::no_longer_breaks);
  const auto with = [](const std::string& key, const nlohmann::json& value) {
    nlohmann::json d = valid_document();
    d[key] = value;
    return d;
  };
  const auto without = [](const std::string& key) {
    nlohmann::json d = valid_document();
    d.erase(key);
    return d;
  };
  expect_field_error(without("position"), "position");
  expect_field_error(without("input"), "input");
  expect_field_error(without("spectrum"), "spectrum");
  expect_field_error(with("position", 12), "position");
  expect_field_error(with("position", "12a"), "position");
  expect_field_error(with("position", "9223372036854775808"), "position");
  expect_field_error(with("position", "+5"), "position");
  expect_field_error(with("dtype", "f16"), "dtype");
  expect_field_error(with("layout", "diagonal"), "layout");
  expect_field_error(with("path", "neon"), "path");
  expect_field_error(with("pair", 128), "pair");  // gemma-7b has 128 pairs: 0..127
  expect_field_error(with("pair", -1), "pair");
  expect_field_error(with("pair", "3"), "pair");
  expect_field_error(with("input", "0x3f800000"), "input");
  expect_field_error(with("input", {"0x3f80", "0x00000000"}), "input[0]");  // a bf16 width in an f32 document
  expect_field_error(with("input", {"0x3f800000", "3f800000xx"}), "input[1]");
  expect_field_error(with("input", {"0x3f800000", "0x3f80000g"}), "input[1]");
  expect_field_error(with("claim", "maybe"), "claim");
  expect_field_error(with("format", "ropecheck-counterexample/1"), "format");
  expect_field_error(with("target", "channel"), "target");
  expect_field_error(with("extra", 1), "extra");
  expect_field_error(with("found", "text"), "found");
  expect_field_error(with("spectrum", {{"config", "gpt-5"}}), "spectrum.config");  // the shared spectrum reader names the field
  expect_field_error(with("spectrum", {{"dimm", 4}}), "spectrum.dimm");
  expect_field_error(with("spectrum", {{"dim", "256"}}), "spectrum.dim");
  expect_field_error(with("spectrum", {{"config", "gemma-7b"}, {"variant", "wavy"}}), "spectrum.variant");
  nlohmann::json bf16 = with("dtype", "bf16");
  expect_field_error(bf16, "input[0]");  // 8 hex digits in a bf16 document
  bf16["input"] = {"0x3f80", "0xc040"};
  EXPECT_EQ(replay_kernel_counterexample(bf16, "cx.json").verdict, ReplayVerdict::no_longer_breaks);
  // A claim that does not fit the document.
  expect_field_error(with("claim", "paths"), "path");                                       // the scalar twin against itself
  expect_field_error(with("input", {"0x7f800000", "0x3f800000"}), "input");                // bound on a non-finite input
  expect_field_error(with("claim", "special"), "claim");                                   // special on a finite rotated pair
  try {
    replay_kernel_counterexample(nlohmann::json::array(), "cx.json");
    ADD_FAILURE() << "an array accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.input(), "cx.json");
  }
}

TEST(KernelFuzz, NonFiniteAndSignedZeroAndIdentityDocumentsReplay) {
  nlohmann::json doc = valid_document();
  doc["claim"] = "special";
  for (const auto& input : {nlohmann::json{"0x7f800000", "0x3f800000"}, nlohmann::json{"0xffc00001", "0x00000000"},
                            nlohmann::json{"0x7f800000", "0xff800000"}, nlohmann::json{"0x80000000", "0x80000000"}}) {
    doc["input"] = input;
    const KernelReplay r = replay_kernel_counterexample(doc, "cx.json");
    EXPECT_EQ(r.verdict, ReplayVerdict::no_longer_breaks) << r.detail;
  }
  // Signed zeros at position 0: (-0) * 1 - (-0) * (+0) = +0 and (-0) * (+0) + (-0) * 1 = -0.
  doc["position"] = "0";
  doc["input"] = {"0x80000000", "0x80000000"};
  const KernelReplay zeros = replay_kernel_counterexample(doc, "cx.json");
  EXPECT_EQ(zeros.verdict, ReplayVerdict::no_longer_breaks) << zeros.detail;
  EXPECT_NE(zeros.detail.find("expected (0x00000000, 0x80000000)"), std::string::npos) << zeros.detail;
  // An identity pair (p-rope 0.75 keeps pairs 0..95 of gemma-7b) copies -0 and a signalling NaN bit for bit.
  doc["spectrum"] = {{"config", "gemma-7b"}, {"variant", "p-rope"}, {"fraction", "0.75"}};
  doc["pair"] = 120;
  doc["input"] = {"0x80000000", "0x7fa00001"};
  const KernelReplay identity = replay_kernel_counterexample(doc, "cx.json");
  EXPECT_EQ(identity.verdict, ReplayVerdict::no_longer_breaks) << identity.detail;
  // A kernel that returns a non-canonical NaN breaks the special claim.
  detail::KernelUnderTest payload = detail::production_kernel();
  const detail::KernelUnderTest real = detail::production_kernel();
  payload.f32 = [real](const kernel::RopePlan& plan, std::span<const std::int64_t> pos, std::span<const float> in, std::span<float> out,
                       Path path) {
    real.f32(plan, pos, in, out, path);
    for (float& y : out)
      if (std::isnan(y)) y = std::bit_cast<float>(0x7FC00001u);
  };
  nlohmann::json nan_doc = valid_document();
  nan_doc["claim"] = "special";
  // Pair 0 (g = 1) at position 2: cos 2 < 0 < sin 2, so y_a = inf cos - inf sin = -inf and
  // y_b = inf sin + inf cos = inf - inf = NaN.
  nan_doc["input"] = {"0x7f800000", "0x7f800000"};
  nan_doc["pair"] = 0;
  nan_doc["position"] = "2";
  const KernelReplay caught = detail::replay_kernel_with(nan_doc, "cx.json", payload);
  EXPECT_EQ(caught.verdict, ReplayVerdict::still_breaks) << caught.detail;
  EXPECT_EQ(replay_kernel_counterexample(nan_doc, "cx.json").verdict, ReplayVerdict::no_longer_breaks);
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
    EXPECT_EQ(e.input(), "--config");
  }
}

}  // namespace
}  // namespace ropecheck::adversarial

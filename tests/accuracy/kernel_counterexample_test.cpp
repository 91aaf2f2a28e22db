// The kernel counterexample document (kernel_counterexample.h): malformed documents are rejected
// naming the field; specials (non-finite inputs, signed zeros, identity pairs) replay, and a kernel
// returning a non-canonical NaN is caught. (Documents the fuzz writes: kernel_fuzz_test.cpp.)
#include "accuracy/kernel_counterexample.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <string>

#include "accuracy/detail/kernel_fuzz_seam.h"
#include "io/input_error.h"
#include "cpu/path.h"

namespace ropecheck::accuracy {
namespace {

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

TEST(KernelCounterexample, MalformedDocumentsNameTheField) {
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
  expect_field_error(with("dtype", "f8"), "dtype");
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

TEST(KernelCounterexample, NonFiniteAndSignedZeroAndIdentityDocumentsReplay) {
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
  payload.rows = [real](const kernel::RopePlan& plan, std::span<const std::int64_t> pos, Dtype f, const void* in, void* out,
                        cpu::Path path) {
    real.rows(plan, pos, f, in, out, path);
    if (f != Dtype::f32) return;
    auto* y = static_cast<float*>(out);
    for (std::size_t i = 0; i < pos.size() * static_cast<std::size_t>(plan.dim()); ++i)
      if (std::isnan(y[i])) y[i] = std::bit_cast<float>(0x7FC00001u);
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

TEST(KernelCounterexample, WrittenDocumentsReplay) {
  const std::uint32_t in[2] = {0x3f800000u, 0xc0400000u};
  const nlohmann::json doc = kernel_counterexample_json({{"config", "gemma-7b"}}, kernel::Layout::half, Dtype::f32, cpu::Path::scalar,
                                                        -1234567890123, 17, in, KernelClaim::bound, {{"ulp", json_number(INFINITY)}});
  EXPECT_EQ(doc["format"], kKernelCounterexampleFormat);
  EXPECT_EQ(doc["position"], "-1234567890123");
  EXPECT_EQ(doc["input"], nlohmann::json({"0x3f800000", "0xc0400000"}));
  EXPECT_EQ(doc["claim"], kernel_claim_name(KernelClaim::bound));
  EXPECT_EQ(doc["found"]["ulp"], "inf");
  EXPECT_EQ(replay_kernel_counterexample(doc, "cx.json").verdict, ReplayVerdict::no_longer_breaks);
  const std::uint32_t bf[2] = {0x3f80u, 0x8000u};
  EXPECT_EQ(hex_pair(bf, Dtype::bf16), nlohmann::json({"0x3f80", "0x8000"}));
}

}  // namespace
}  // namespace ropecheck::accuracy

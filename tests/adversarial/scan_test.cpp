#include "adversarial/scan.h"

#include <gtest/gtest.h>

#include "spectrum/request.h"

namespace ropecheck::adversarial {
namespace {

// The Appendix E.1 apostrophe channel on gemma-7b's pair 119 (1-based; index 118), as in
// proofs/semantic-channel.h: query q_notBOS, target k_BOS, distractor k_notBOS.
Head apostrophe(int pair) {
  Head h;
  h.spectrum_request.config = "gemma-7b";
  h.spectrum = resolve(h.spectrum_request).spectrum;
  const int d = h.dim();
  h.query.assign(d, 0.0);
  h.target.assign(d, 0.0);
  h.distractors.assign(1, std::vector<double>(d, 0.0));
  h.query[2 * pair] = -4.1, h.query[2 * pair + 1] = 11.3;
  h.target[2 * pair] = -2.5, h.target[2 * pair + 1] = 1.3;
  h.distractors[0][2 * pair] = 11.2, h.distractors[0][2 * pair + 1] = -3.5;
  validate(h);
  return h;
}

TEST(GuidedScan, ApostropheChannelBreaksAndCertifies) {
  const Head h = apostrophe(118);
  const ScanResult r = scan_and_certify(h, 40000, true);
  ASSERT_TRUE(r.found) << "dropped " << r.dropped;
  EXPECT_EQ(r.check.verdict, ReplayVerdict::still_breaks) << r.check.detail;
  EXPECT_EQ(r.minimal.none_shorter, Decision::yes) << "undecided at " << r.minimal.undecided_at << " first break " << r.minimal.first_break;
  std::printf("apostrophe: context %lld, target distance %lld -> %lld; %s\n", r.candidate.context, r.candidate.distance_before,
              r.candidate.distance_after, r.check.detail.c_str());
}

}  // namespace
}  // namespace ropecheck::adversarial

namespace ropecheck::adversarial {
namespace {

// Found by the adversarial property (1) (seed 20241008): the largest distractor term sits at the
// target's own distance and dominates S_L (e^16.2 against e^-38.8), so the direct float test
// "E_t eps/(1-eps) + E_o(s) > S_L" cancelled and the scan missed a certified break at context 2.
// The scan now keeps that term apart (scan.cpp).
TEST(GuidedScan, DominantDistractorTermAtTheTargetDistanceDoesNotCancel) {
  Head h;
  h.spectrum_request.dim = 2;
  h.spectrum_request.theta = "2";
  h.spectrum_request.scaling = Scaling::linear("2");
  h.spectrum = resolve(h.spectrum_request).spectrum;
  h.query = {0x1p-2, -0x1.efbdeb14f4edap-1};
  h.target = {-0x1p+4, 0x1p+2};
  h.distractors = {{0x1.9p+5, 0x1.9p+6}};
  validate(h);
  const ScanCandidate c = guided_scan(h, 28);
  ASSERT_TRUE(c.found);
  EXPECT_EQ(c.context, 2);
  const ScanResult r = scan_and_certify(h, 28, true);
  ASSERT_TRUE(r.found);
  EXPECT_EQ(r.check.verdict, ReplayVerdict::still_breaks) << r.check.detail;
  EXPECT_EQ(r.candidate.context, 2);
}

}  // namespace
}  // namespace ropecheck::adversarial

// The text tables of `ropecheck finite` (finite/finite_text.h), on hand-made results: each table
// starts with a blank line, names its construction, and states a scan's outcome in words.
#include <gtest/gtest.h>

#include <string>

#include "finite/finite_text.h"

namespace ropecheck::finite {
namespace {

TEST(FiniteText, ArgmaxRowsStateTheOutcome) {
  ArgmaxConstruction c;
  c.label = "d=2 (g=1)";
  c.spectrum = "d=2";
  c.seed = 1;
  c.dtypes = {Dtype::f32};
  c.exact = {ExactArgmax{1024, true, 1e-9, 2e-9, 710}};
  ArgmaxScan passes;
  passes.holds_up_to = 1024;
  passes.probed = {2048, 4096};
  ArgmaxScan fails;
  fails.rotator = Implementation::f32_angle;
  fails.holds_up_to = 709;
  fails.first_failure = ArgmaxFailure{710, 710, 1.0f, 1.0f};
  c.scans = {passes, fails};
  const std::string text = to_text(c);
  EXPECT_EQ(text.rfind("\nProposition 3.1: the argmax at distance r  [d=2 (g=1): d=2; query seed 1]\n", 0), 0u) << text;
  EXPECT_NE(text.find("q rounded to f32): holds for every r <= 1024"), std::string::npos) << text;
  EXPECT_NE(text.find(">= 1024"), std::string::npos) << text;
  EXPECT_NE(text.find("no failure; probes to 2^12: none failed\n"), std::string::npos) << text;
  EXPECT_NE(text.find("r=710: key at 710 (distance 0) 0x1p+0 >= 0x1p+0\n"), std::string::npos) << text;
}

TEST(FiniteText, Cos710AndPreamble) {
  Cos710 c;
  c.cos_lower = 0.5;
  c.cos_upper = 0.75;
  c.cos_f32 = 1.0f;
  c.kernel_x = 1.0f;
  const std::string text = to_text(c);
  EXPECT_EQ(text.rfind("\nd = 2, g = 1 at 710", 0), 0u) << text;
  EXPECT_NE(text.find("cos(710) in [0.5, 0.75] (certified)"), std::string::npos) << text;
  EXPECT_NE(text.find("fl32(cos 710) = 0x1p+0 (0x3f800000)"), std::string::npos) << text;
  const std::string pre = preamble_text(cpu::Path::scalar);
  EXPECT_EQ(pre.rfind("ropecheck finite: kernel path " + cpu::path_name(cpu::Path::scalar) + "; layout interleaved;", 0), 0u) << pre;
}

}  // namespace
}  // namespace ropecheck::finite

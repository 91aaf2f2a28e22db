#include "adversarial/shrink.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ropecheck::adversarial {
namespace {

// A head with messy numbers and a chunk that carries nothing the break needs: shrinking must
// drop chunks and simplify numbers while the break stays certified.
TEST(Shrink, SimplifiesAndStaysCertified) {
  Head h;
  h.spectrum_request.dim = 4;
  h.spectrum = resolve(h.spectrum_request).spectrum;
  h.query = {8.123456789, 0.0012345, 0.3141592, -0.2718281};
  h.target = {1.00321, 0.0, 0.0577215, 0.1414213};
  h.distractors = {{-0.2512345, 0.1251234, 0.0161803, -0.0173205}};
  validate(h);
  ScanResult found = scan_and_certify(h, 64, false);
  ASSERT_TRUE(found.found);
  const ShrinkResult r = shrink(h, found, 64);
  ASSERT_TRUE(r.scan.found);
  EXPECT_GT(r.steps, 0);
  EXPECT_LT(active_chunks(r.head).size(), active_chunks(h).size()) << "the second chunk is not needed";
  // Re-certified from scratch on the shrunk head, by value.
  const AttackCheck check = check_attack(r.head, r.scan.before, r.scan.swaps);
  EXPECT_EQ(check.verdict, ReplayVerdict::still_breaks) << check.detail;
  // Every component is now at most three significant digits (or a power of two).
  for (const auto* v : {&r.head.query, &r.head.target, &r.head.distractors[0]})
    for (double x : *v) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.2e", x);
      int e = 0;
      const bool power_of_two = x != 0 && std::fabs(std::frexp(x, &e)) == 0.5;
      EXPECT_TRUE(std::strtod(buf, nullptr) == x || power_of_two) << std::hexfloat << x;
    }
}

}  // namespace
}  // namespace ropecheck::adversarial

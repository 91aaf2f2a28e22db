#include "proofs/thm-6.1.h"

#include <gtest/gtest.h>

#include "io/input_error.h"

namespace ropecheck::proofs {
namespace {

TEST(Thm61, CheckWithOneFrequencyAndPhase) {
  ClaimOptions o;
  o.frequency = "1";
  o.phase = "pi/8";
  o.max_n = 20000;
  const auto certs = check_thm_6_1(o);
  ASSERT_EQ(certs.size(), 4u);  // phase table, apostrophe, stability, p-RoPE
  EXPECT_EQ(certs[0].verdict, Verdict::holds) << certs[0].details.dump();
  EXPECT_EQ(certs[2].verdict, Verdict::fails);  // at g = 1 the apostrophe channel is broken long before 8192
  EXPECT_EQ(certs[3].verdict, Verdict::holds) << certs[3].details.dump();
}

TEST(Thm61, BadEpsilonIsAnInputError) {
  for (const char* bad : {"0", "0.7", "abc", "-0.1"}) {
    ClaimOptions o;
    o.epsilon = bad;
    try {
      check_thm_6_1(o);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(e.input(), "--epsilon");
    }
  }
}

}  // namespace
}  // namespace ropecheck::proofs

#include "certificate/retry.h"

#include <gtest/gtest.h>

namespace ropecheck {
namespace {

TEST(Retry, ClimbsUntilDecidedAndRecordsTheLadder) {
  // Decided only from 1024 bits on: the ladder must be 256, 512, 1024 and stop there.
  const Certificate c = certify_with_retry(256, 4096, [](unsigned bits) {
    Certificate r;
    r.verdict = bits >= 1024 ? Verdict::holds : Verdict::inconclusive;
    return r;
  });
  EXPECT_EQ(c.verdict, Verdict::holds);
  EXPECT_EQ(c.details["precision_attempts"], nlohmann::json({256, 512, 1024})) << c.details.dump();
}

TEST(Retry, StopsAtTheCapAndStaysInconclusive) {
  int calls = 0;
  const Certificate c = certify_with_retry(300, 1000, [&](unsigned) {
    ++calls;
    return Certificate{};  // never decided
  });
  EXPECT_EQ(c.verdict, Verdict::inconclusive);
  EXPECT_EQ(c.details["precision_attempts"], nlohmann::json({300, 600, 1000})) << c.details.dump();
  EXPECT_EQ(calls, 3);
}

TEST(Retry, AnInconclusiveVerdictNoPrecisionCanChangeIsNotRetried) {
  int calls = 0;
  const Certificate c = certify_with_retry(256, 4096, [&](unsigned) {
    ++calls;
    Certificate r;
    r.details = {{"precision_cannot_help", true}};
    return r;
  });
  EXPECT_EQ(c.verdict, Verdict::inconclusive);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(c.details["precision_attempts"], nlohmann::json({256})) << c.details.dump();
}

TEST(Retry, ADecidedFailureIsNotRetried) {
  int calls = 0;
  const Certificate c = certify_with_retry(256, 4096, [&](unsigned) {
    ++calls;
    Certificate r;
    r.verdict = Verdict::fails;
    return r;
  });
  EXPECT_EQ(c.verdict, Verdict::fails);
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace ropecheck

#include "montecarlo/progress.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <thread>
#include <vector>

namespace ropecheck::montecarlo {
namespace {

TEST(Progress, DisabledWritesNothing) {
  testing::internal::CaptureStderr();
  {
    Progress progress("fig2b d=256", 100, "trials", false);
    for (int i = 0; i < 100; ++i) progress.advance(1);
    progress.finish();
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

// Several threads advancing at once (ThreadSanitizer checks the races in the sanitizer build), an
// enabled line captured: every redraw is a well-formed line, and finish() ends with \r, spaces, \r,
// once, however often it is called.
TEST(Progress, ConcurrentAdvanceDrawsWellFormedLinesAndFinishClears) {
  testing::internal::CaptureStderr();
  {
    Progress progress("fig8 L=8000", 4000, "trials", true);
    std::vector<std::thread> workers;
    for (int w = 0; w < 4; ++w) {
      workers.emplace_back([&progress] {
        for (int i = 0; i < 1000; ++i) progress.advance(1);
      });
    }
    for (std::thread& worker : workers) worker.join();
    progress.finish();
    progress.finish();
    progress.advance(1);  // after finish: no redraw
  }  // the destructor's finish() adds nothing either
  const std::string out = testing::internal::GetCapturedStderr();
  ASSERT_FALSE(out.empty()) << "the first advance() draws at once";
  ASSERT_EQ(out.front(), '\r');
  // The tail: \r, as many spaces as the widest line, \r.
  const std::size_t clear = out.rfind('\r', out.size() - 2);
  ASSERT_NE(clear, std::string::npos);
  ASSERT_EQ(out.back(), '\r');
  const std::string blanks = out.substr(clear + 1, out.size() - clear - 2);
  EXPECT_FALSE(blanks.empty());
  EXPECT_EQ(blanks.find_first_not_of(' '), std::string::npos) << "[" << blanks << "]";
  const std::regex line(R"(fig8 L=8000: \d{1,3}%( \S+ trials/s( ETA \S+ (s|min|h))?)? *)");
  std::size_t widest = 0;
  int lines = 0;
  for (std::size_t at = 0; at < clear; ++lines) {
    const std::size_t next = out.find('\r', at + 1);
    const std::string drawn = out.substr(at + 1, next - at - 1);
    EXPECT_TRUE(std::regex_match(drawn, line)) << "[" << drawn << "]";
    widest = std::max(widest, drawn.size());
    at = next;
  }
  EXPECT_GE(lines, 1);
  EXPECT_EQ(blanks.size(), widest);
}

}  // namespace
}  // namespace ropecheck::montecarlo

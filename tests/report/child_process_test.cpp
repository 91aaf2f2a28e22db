#include "report/child_process.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>

namespace ropecheck::report {
namespace {

TEST(RunChild, StdinToStdout) {
  const ChildOutcome r = run_child({"cat"}, "", "line one\nline two\n", 10);
  ASSERT_TRUE(r.ok()) << r.start_error << " exit " << r.exit_code << " err " << r.err;
  EXPECT_EQ(r.out, "line one\nline two\n");
  EXPECT_EQ(r.err, "");
}

// Arguments reach the program as they are: no shell splits or expands them.
TEST(RunChild, ArgumentsAreNotInterpretedByAShell) {
  const ChildOutcome r = run_child({"printf", "%s|", "a b", "$HOME", "'q'"}, "", "", 10);
  ASSERT_TRUE(r.ok()) << r.start_error << " " << r.err;
  EXPECT_EQ(r.out, "a b|$HOME|'q'|");
}

TEST(RunChild, StderrAndExitCode) {
  const ChildOutcome r = run_child({"sh", "-c", "echo oops >&2; exit 3"}, "", "", 10);
  EXPECT_TRUE(r.started);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "oops\n");
}

TEST(RunChild, WorkingDirectory) {
  const ChildOutcome r = run_child({"pwd"}, "/", "", 10);
  ASSERT_TRUE(r.ok()) << r.start_error << " " << r.err;
  EXPECT_EQ(r.out, "/\n");
}

TEST(RunChild, MissingProgramIsNotStarted) {
  const ChildOutcome r = run_child({"ropecheck-no-such-program-xyz"}, "", "", 10);
  EXPECT_FALSE(r.started);
  EXPECT_EQ(r.start_errno, ENOENT) << r.start_error;
}

// sleep 30 against a 0.3 s limit: killed well before it would end (the bound of 10 s leaves room
// for a loaded machine and the sanitizers, and is still a third of the sleep).
TEST(RunChild, TimeLimitKills) {
  const auto t0 = std::chrono::steady_clock::now();
  const ChildOutcome r = run_child({"sleep", "30"}, "", "", 0.3);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(r.started);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.ok());
  EXPECT_LT(seconds, 10) << seconds;
}

TEST(RunChild, EmptyArgvIsRejected) { EXPECT_THROW(run_child({}), std::invalid_argument); }

}  // namespace
}  // namespace ropecheck::report

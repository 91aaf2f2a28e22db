#include "report/section.h"

#include <gtest/gtest.h>

namespace ropecheck::report {
namespace {

TEST(MarkdownTable, EscapesPipesAndNewlines) {
  const std::string t = markdown_table({"a", "b"}, {{"x|y", "1\n2"}, {"z"}});
  EXPECT_EQ(t, "| a | b |\n|---|---|\n| x\\|y | 1 2 |\n| z |  |\n") << t;
}

TEST(Mode, Names) {
  EXPECT_EQ(mode_name(Mode::smoke), "smoke");
  EXPECT_EQ(mode_name(Mode::quick), "quick");
  EXPECT_EQ(mode_name(Mode::full), "full");
}

}  // namespace
}  // namespace ropecheck::report

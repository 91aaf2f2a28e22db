#include "certificate/environment.h"

#include <gtest/gtest.h>
#include <mpfr.h>

namespace ropecheck {
namespace {

TEST(Environment, NamesTheLibrariesActuallyLinked) {
  const nlohmann::json e = arithmetic_environment();
  EXPECT_EQ(e["mpfr"], mpfr_get_version());  // the runtime library, not just the header
  EXPECT_FALSE(e["mpfi"].get<std::string>().empty());
  EXPECT_EQ(e["boost"], "1_74");
  EXPECT_EQ(e["fast_math"], false);
  EXPECT_EQ(e["cxx_standard"], 202002);
}

}  // namespace
}  // namespace ropecheck

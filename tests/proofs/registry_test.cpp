// The registry is the one list of claims (proofs/registry.cpp): every registered claim has its
// statement, its source and its unit test beside it, every statement in proofs/ is registered, and
// find_claim refuses an unknown id naming every registered one.
#include "proofs/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

#include "io/input_error.h"

namespace ropecheck::proofs {
namespace {

const std::filesystem::path kSource = ROPECHECK_TEST_SOURCE_DIR;

std::string underscored(std::string id) {
  std::replace(id.begin(), id.end(), '-', '_');
  std::replace(id.begin(), id.end(), '.', '_');
  return id;
}

TEST(Registry, EveryClaimHasItsStatementSourceAndTest) {
  ASSERT_FALSE(registered_claims().empty());
  for (const Claim& c : registered_claims()) {
    for (const std::filesystem::path& f : {kSource / "proofs" / (c.id + ".md"), kSource / "proofs" / (c.id + ".cpp"),
                                           kSource / "proofs" / (c.id + ".h"), kSource / "tests" / "proofs" / (underscored(c.id) + "_test.cpp")})
      EXPECT_TRUE(std::filesystem::is_regular_file(f)) << "claim " << c.id << ": missing " << f;
    EXPECT_FALSE(c.title.empty()) << c.id;
    EXPECT_TRUE(c.check) << c.id;
  }
}

TEST(Registry, EveryStatementInProofsIsRegisteredOnce) {
  std::set<std::string> ids;
  for (const Claim& c : registered_claims()) EXPECT_TRUE(ids.insert(c.id).second) << "registered twice: " << c.id;
  for (const auto& e : std::filesystem::directory_iterator(kSource / "proofs")) {
    if (e.path().extension() != ".md") continue;
    EXPECT_TRUE(ids.count(e.path().stem().string())) << e.path() << " states a claim the registry does not list";
  }
}

TEST(Registry, FindClaimNamesEveryIdWhenItRefuses) {
  EXPECT_EQ(&find_claim(registered_claims().front().id), &registered_claims().front());
  try {
    find_claim("thm-3.1");
    FAIL() << "thm-3.1 is not a claim";
  } catch (const InputError& e) {
    for (const Claim& c : registered_claims()) EXPECT_NE(std::string(e.what()).find(c.id), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ropecheck::proofs

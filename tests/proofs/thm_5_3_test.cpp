#include "proofs/thm-5.3.h"

#include <gtest/gtest.h>

#include <map>

#include "io/input_error.h"

namespace ropecheck::proofs {
namespace {

TEST(Thm53, SingleFrequencySweepJumpsAtTheConvergentsOf2Pi) {
  ClaimOptions o;
  o.spectrum.dim = 4;
  o.spectrum.context = 20;
  o.max_n = 800;
  o.epsilon = "0.01";
  const auto certs = check_thm_5_3(o);
  ASSERT_EQ(certs.size(), 2u);
  EXPECT_EQ(certs[0].verdict, Verdict::holds);
  const Certificate& sweep = certs[1];
  EXPECT_EQ(sweep.verdict, Verdict::holds);
  std::map<long long, std::pair<double, long long>> s;  // N -> (s_hi, closest return)
  for (const auto& row : sweep.details["sweep"])
    s[row["N"].get<long long>()] = {std::stod(row["s_hi"].get<std::string>()), row["closest_return_n"].get<long long>()};
  for (long long n : {6LL, 19LL, 25LL, 44LL, 333LL, 710LL}) {
    ASSERT_TRUE(s.count(n) && s.count(n + 1)) << "n=" << n;
    EXPECT_EQ(s[n + 1].second, n);
    EXPECT_GT(s[n + 1].first, s[n].first) << "n=" << n;
  }
  // The near-return 710 ~ 2 pi * 113 multiplies the needed norm by > 1e4 (1 - cos 6e-5 ~ 1.8e-9).
  EXPECT_GT(s[711].first / s[710].first, 1e4);
  EXPECT_GT(s[45].first / s[44].first, 10);
}

TEST(Thm53, NoPEIsInconclusiveAndBadInputsNameTheFlag) {
  ClaimOptions o;
  o.spectrum.dim = 8;
  o.spectrum.variant = Variant::nope;
  o.max_n = 10;
  const auto certs = check_thm_5_3(o);
  EXPECT_EQ(certs[0].verdict, Verdict::inconclusive);
  EXPECT_FALSE(certs[0].as_paper_states());
  ClaimOptions bad;
  bad.spectrum.dim = 4;
  auto flag_of = [&](ClaimOptions x) {
    try {
      check_thm_5_3(x);
    } catch (const InputError& e) {
      return e.input();
    }
    return std::string("no error");
  };
  for (const char* e : {"0", "0.5", "-0.1", "abc"}) {
    ClaimOptions x = bad;
    x.epsilon = e;
    EXPECT_EQ(flag_of(x), "--epsilon") << e;
  }
  ClaimOptions x = bad;
  x.max_n = 1;
  EXPECT_EQ(flag_of(x), "--max-n");
  x = bad;
  x.tolerance = "0";
  EXPECT_EQ(flag_of(x), "--tolerance");
  x = bad;
  x.frequency = "-1";
  EXPECT_EQ(flag_of(x), "--frequency");
}

}  // namespace
}  // namespace ropecheck::proofs

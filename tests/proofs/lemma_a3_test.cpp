#include "proofs/lemma-a3.h"

#include <gtest/gtest.h>

#include "io/input_error.h"
#include "numeric/decimal.h"
#include "numeric/precision.h"
#include "tests/support/show.h"

namespace ropecheck::proofs {
namespace {

Vector<Interval> row(const std::vector<std::string>& decimals) {
  Vector<Interval> a(static_cast<Eigen::Index>(decimals.size()));
  for (size_t k = 0; k < decimals.size(); ++k) a[static_cast<Eigen::Index>(k)] = from_decimal<Interval>(decimals[k]);
  return a;
}

// The reference: alpha_i = exp(a_i) / sum_k exp(a_k) straight from the definition (no max shift,
// no log-sum-exp) and s = 1/(1 + exp(a_j - a_i)), in 1200-bit MPFR. Its rounding error is below
// 2^-1100 relative for these rows (|a| <= 1e3, so exp stays far inside MPFR's range and each of the
// < 10 roundings costs 2^-1200), far inside the 257-bit enclosures it must lie in.
struct Reference {
  Real alpha, sharp;
};
Reference reference(const std::vector<std::string>& decimals, size_t i, size_t j) {
  ScopedPrecision p(1200);
  Real z(0);
  for (const std::string& s : decimals) z += exp(Real(s));
  return {Real(exp(Real(decimals[i])) / z), Real(1 / (1 + exp(Real(Real(decimals[j]) - Real(decimals[i])))))};
}

TEST(LemmaA3, EnclosuresContainTheDefinitionAtHighPrecision) {
  struct Case {
    std::vector<std::string> a;
    size_t i, j;
  };
  for (const Case& c : {Case{{"0", "0.1"}, 0, 1}, Case{{"-3", "2", "1.5", "2"}, 2, 1}, Case{{"7", "-1000", "7.25", "0"}, 0, 2},
                        Case{{"0.3", "0.3", "0.3", "0.30001"}, 1, 3}}) {
    const Reference ref = reference(c.a, c.i, c.j);
    ScopedPrecision p(256);
    const SoftmaxBound b = certified_softmax_bound(row(c.a), static_cast<Eigen::Index>(c.i), static_cast<Eigen::Index>(c.j));
    EXPECT_TRUE(contains(b.alpha, ref.alpha)) << "alpha=" << show(b.alpha) << " ref=" << to_decimal(ref.alpha, 40);
    EXPECT_TRUE(contains(b.alpha_from_sharp, ref.alpha)) << "alpha2=" << show(b.alpha_from_sharp) << " ref=" << to_decimal(ref.alpha, 40);
    EXPECT_TRUE(contains(b.sharp, ref.sharp)) << "s=" << show(b.sharp) << " ref=" << to_decimal(ref.sharp, 40);
    EXPECT_TRUE(b.certified()) << "alpha=" << show(b.alpha) << " s=" << show(b.sharp);
    EXPECT_FALSE(b.refuted);
    // With n >= 3 and the other terms not negligible, the bound is strict and the intervals show it.
    EXPECT_EQ(b.strictly_below_sharp, c.a.size() > 2) << "alpha=" << show(b.alpha) << " s=" << show(b.sharp);
  }
}

TEST(LemmaA3, TinyGapNeedsMorePrecisionThan257Bits) {
  // 1/2 - alpha_i = tanh(1e-100 / 2) / 2 = 2.5e-101 ~ 2^-333: below the 2^-257 resolution of
  // 257 bits, above that of 514. The 257-bit result must stay undecided, not claim anything.
  {
    ScopedPrecision p(256);
    const SoftmaxBound b = certified_softmax_bound(row({"0", "1e-100"}), 0, 1);
    EXPECT_TRUE(b.hypothesis);
    EXPECT_FALSE(b.below_half) << show(b.alpha);
    EXPECT_FALSE(b.certified());
    EXPECT_FALSE(b.refuted);
  }
  ScopedPrecision p(512);
  const SoftmaxBound b = certified_softmax_bound(row({"0", "1e-100"}), 0, 1);
  EXPECT_TRUE(b.certified()) << show(b.alpha);
  const Interval margin = Interval(0.5) - b.alpha;
  // tanh(x/2)/2 = x/4 - x^3/48 + ...: the margin is 2.5e-101 to far more digits than checked here.
  EXPECT_TRUE(contains(margin, Real("2.5e-101"))) << show(margin);
}

TEST(LemmaA3, TiesAndReversedOrderAreNeverCertified) {
  ScopedPrecision p(256);
  // a_i = a_j: alpha_i = 1/2 exactly; the lemma's hypothesis fails and nothing may be certified.
  const SoftmaxBound tie = certified_softmax_bound(row({"0.7", "0.7"}), 0, 1);
  EXPECT_FALSE(tie.hypothesis);
  EXPECT_FALSE(tie.below_half) << show(tie.alpha);
  EXPECT_FALSE(tie.sharp_below_half) << show(tie.sharp);
  EXPECT_FALSE(tie.certified());
  EXPECT_TRUE(contains(tie.alpha, Real(0.5)));
  // a_i > a_j: alpha_i > 1/2 certainly; the check reports the refutation and the failed hypothesis.
  const SoftmaxBound rev = certified_softmax_bound(row({"1", "0"}), 0, 1);
  EXPECT_FALSE(rev.hypothesis);
  EXPECT_TRUE(rev.refuted) << show(rev.alpha);
  EXPECT_FALSE(rev.certified());
}

TEST(LemmaA3, HugeActivationsStayEnclosed) {
  ScopedPrecision p(256);
  // exp(+-1e6) is far outside binary64 but inside MPFR's range: alpha_i = 1/(1 + e^1e6 + e^2e6).
  const SoftmaxBound b = certified_softmax_bound(row({"0", "1e6", "2e6"}), 0, 1);
  EXPECT_TRUE(b.certified());
  EXPECT_TRUE(certainly_positive(b.alpha));
  EXPECT_LT(upper_of(b.alpha), Real("1e-868588"));
  EXPECT_THROW(certified_softmax_bound(row({"0", "1"}), 0, 0), std::invalid_argument);
  EXPECT_THROW(certified_softmax_bound(row({"0", "1"}), 0, 2), std::invalid_argument);
}

TEST(LemmaA3, CheckHoldsAndClimbsTheLadderForTheTinyGap) {
  ClaimOptions o;
  o.trials = 100;
  const auto certs = check_lemma_a3(o);
  ASSERT_EQ(certs.size(), 2u);
  for (const Certificate& c : certs) EXPECT_EQ(c.verdict, Verdict::holds) << c.parameters.dump();
  // The constructed rows hold the 1e-100 gap: 257 bits are not enough, 514 are.
  EXPECT_EQ(certs[0].details["precision_attempts"], nlohmann::json::array({256, 512}));
  EXPECT_EQ(certs[1].details["precision_attempts"], nlohmann::json::array({256}));
  // A cap below what the tiny gap needs leaves the constructed certificate inconclusive, not holds.
  o.max_precision_bits = 256;
  const auto capped = check_lemma_a3(o);
  EXPECT_EQ(capped[0].verdict, Verdict::inconclusive);
  EXPECT_FALSE(capped[0].as_paper_states());
}

TEST(LemmaA3, BadOptions) {
  ClaimOptions o;
  o.max_n = 1;
  EXPECT_THROW(check_lemma_a3(o), InputError);
  o.max_n = 5000;
  EXPECT_THROW(check_lemma_a3(o), InputError);
  o.max_n = 2;
  o.trials = 0;
  EXPECT_THROW(check_lemma_a3(o), InputError);
}

}  // namespace
}  // namespace ropecheck::proofs

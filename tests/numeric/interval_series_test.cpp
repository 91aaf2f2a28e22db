#include "numeric/interval_series.h"

#include <gtest/gtest.h>
#include <mpfi.h>

#include "numeric/precision.h"

namespace ropecheck {
namespace {

Interval iv(double lo, double hi) {
  Interval x;
  mpfi_interv_d(x.backend().data(), lo, hi);
  return x;
}

// A series with every kind of step: up (0->1), overlap (1->2), down (2->3), up (3->4), tie (4->5).
std::vector<Interval> sample() {
  ScopedPrecision p(128);
  return {iv(0, 0.1), iv(0.5, 0.6), iv(0.55, 0.7), iv(-0.3, -0.2), iv(0.9, 1), iv(0.9, 1)};
}

TEST(IntervalSeries, StepsAreCertifiedOnlyWhenTheEnclosuresSeparate) {
  ScopedPrecision p(128);
  const StepCounts s = count_steps(sample(), 0, 5);
  EXPECT_EQ(s.increases, 2);
  EXPECT_EQ(s.decreases, 1);
  EXPECT_EQ(s.undecided, 2);  // the overlap and the exact tie
  EXPECT_EQ(s.first_increases, (std::vector<long long>{0, 3}));
  const StepCounts sub = count_steps(sample(), 2, 4, 1);
  EXPECT_EQ(sub.increases, 1);
  EXPECT_EQ(sub.decreases, 1);
  EXPECT_EQ(sub.first_increases, (std::vector<long long>{3}));
}

TEST(IntervalSeries, ExtremaBracketTheTrueExtremum) {
  ScopedPrecision p(128);
  const Extremum mx = maximum_over(sample(), 0, 5);
  EXPECT_EQ(mx.lower, 0.9);
  EXPECT_EQ(mx.upper, 1);
  EXPECT_EQ(mx.at, 4);
  EXPECT_EQ(mx.candidates, 2);  // r = 4 and r = 5 tie
  const Extremum mn = minimum_over(sample(), 0, 2);
  EXPECT_EQ(mn.lower, 0);
  EXPECT_EQ(mn.upper, 0.1);
  EXPECT_EQ(mn.at, 0);
  EXPECT_EQ(mn.candidates, 1);
}

TEST(IntervalSeries, MeanEnclosesTheMeanOfTheEnds) {
  ScopedPrecision p(128);
  const Interval m = mean_over(sample(), 0, 1);  // [(0 + 0.5)/2, (0.1 + 0.6)/2]
  EXPECT_TRUE(contains(m, Real(0.25)));
  EXPECT_TRUE(contains(m, Real(0.35)));
  EXPECT_LT(upper_of(m), Real(0.3500001));
}

TEST(IntervalSeries, FirstNegativeNeedsEveryEarlierSignCertified) {
  ScopedPrecision p(128);
  const FirstNegative a = first_negative(sample(), 1, 5);
  EXPECT_EQ(a.at, 3);
  EXPECT_TRUE(a.decided());
  // From r = 0 on, x_0 = [0, 0.1] may be 0: not certainly positive, so the same answer is not certified.
  const FirstNegative a0 = first_negative(sample(), 0, 5);
  EXPECT_EQ(a0.at, 3);
  EXPECT_FALSE(a0.decided());
  EXPECT_EQ(a0.undecided_at, 0);
  // A sign straddling 0 before the first certain negative: the answer is not certified.
  std::vector<Interval> x = sample();
  x[1] = iv(-0.1, 0.1);
  const FirstNegative b = first_negative(x, 1, 5);
  EXPECT_EQ(b.at, 3);
  EXPECT_FALSE(b.decided());
  EXPECT_EQ(b.undecided_at, 1);
  const SignCounts s = count_signs(x, 0, 5);
  EXPECT_EQ(s.positive, 3);
  EXPECT_EQ(s.negative, 1);
  EXPECT_EQ(s.undecided, 2);  // [-0.1, 0.1] and [0, 0.1] (0 is not certainly positive)
  EXPECT_THROW(count_steps(x, 0, 6), std::invalid_argument);
}

}  // namespace
}  // namespace ropecheck

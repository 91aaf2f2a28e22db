#include "random/dyadic_vector.h"

#include <gtest/gtest.h>

#include "numeric/precision.h"

namespace ropecheck {
namespace {

TEST(DyadicVector, SameExactNumbersInEveryType) {
  ScopedPrecision p(64);
  const Vector<double> d = random_dyadic_vector<double>(32, 4, 9);
  const Vector<Interval> i = random_dyadic_vector<Interval>(32, 4, 9);
  const Vector<Real> r = random_dyadic_vector<Real>(32, 4, 9);
  for (int t = 0; t < 32; ++t) {
    EXPECT_EQ(lower_of(i[t]), d[t]) << "t=" << t;  // a point interval: exact conversion
    EXPECT_EQ(upper_of(i[t]), d[t]) << "t=" << t;
    EXPECT_EQ(r[t], d[t]) << "t=" << t;
    EXPECT_EQ(d[t], CounterRng(4, 9).uniform_dyadic(static_cast<std::uint64_t>(t)));
  }
  EXPECT_NE(random_dyadic_vector<double>(32, 4, 10), d);
}

}  // namespace
}  // namespace ropecheck

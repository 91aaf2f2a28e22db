#include "rotation/rotation.h"

#include <gtest/gtest.h>
#include <mpfr.h>

#include "attention/activation.h"
#include "numeric/decimal.h"
#include "numeric/precision.h"
#include "random/dyadic_vector.h"
#include "spectrum/frequencies.h"

namespace ropecheck {
namespace {

// The identity at 256 bits: (R^i q)^T (R^j k) = q^T R^(j-i) k to within 1e-70.
// Error analysis (u = 2^-257, |components| <= 1, d = 256, |positions| <= 1000): each angle n*g has
// error <= |n| g (4u from pow + u from the product) <= 1000 * 5u ~ 2.2e-74, sin/cos add u; each of
// the 128 chunk terms (|term| <= 2) moves by <= 2 * (2.2e-74 + 2u), and the 256-term sums add
// <= 256 * 2 * u ~ 2.2e-75: each side is within ~6e-72 of the exact value, so 1e-70 cannot be
// reached by rounding alone, while a wrong sign or index convention gives O(1) differences.
TEST(Rotation, RelativeFormEqualsAbsoluteFormTo1e70At256Bits) {
  ScopedPrecision p(256);
  const Spectrum s(256, "10000");
  const auto g = frequencies<Real>(s);
  const Vector<Real> q = random_dyadic_vector<Real>(256, 7, 1), k = random_dyadic_vector<Real>(256, 7, 2);
  const long long positions[][2] = {{0, 0}, {5, 3}, {3, 5}, {1000, 1}, {-1000, 1000}, {777, 0}, {0, 999}};
  for (const auto& ij : positions) {
    const Real absolute = absolute_activation(q, ij[0], k, ij[1], g);
    const Real relative = activation(q, k, ij[1] - ij[0], g);
    EXPECT_LT(abs(Real(absolute - relative)), Real("1e-70"))
        << "i=" << ij[0] << " j=" << ij[1] << " abs=" << to_decimal(absolute, 80) << " rel=" << to_decimal(relative, 80);
  }
}

TEST(Rotation, IntervalRotationContainsHighPrecisionMPFR) {
  const Spectrum s(16, "10000", Variant::p_rope, "0.75");
  std::vector<Interval> gi;
  Vector<Interval> vi;
  {
    ScopedPrecision p(256);
    gi = frequencies<Interval>(s);
    vi = random_dyadic_vector<Interval>(16, 3, 1);
  }
  for (long long n : {0LL, 1LL, -1LL, 710LL, 123456789LL, 1LL << 40, -(1LL << 40)}) {
    Vector<Interval> ri;
    {
      ScopedPrecision p(256);
      ri = rotate(vi, n, gi);
    }
    // Reference at 800 bits: its error (~2^-760 * 2^40) is far below the enclosure width (~2^-210).
    ScopedPrecision p(800);
    const auto gr = frequencies<Real>(s);
    const Vector<Real> rr = rotate(random_dyadic_vector<Real>(16, 3, 1), n, gr);
    for (int t = 0; t < 16; ++t) {
      EXPECT_TRUE(contains(ri[t], rr[t])) << "n=" << n << " t=" << t << " ref=" << to_decimal(rr[t], 40) << " enc=["
                                          << decimal_bounds(ri[t], 40).lower << ", " << decimal_bounds(ri[t], 40).upper << "]";
    }
  }
}

TEST(Rotation, CompositionAndNormPreservationInIntervals) {
  ScopedPrecision p(256);
  const Spectrum s(32, "500000");
  const auto g = frequencies<Interval>(s);
  const Vector<Interval> v = random_dyadic_vector<Interval>(32, 11, 1);
  const Interval norm = squared_norm(v);
  for (auto [a, b] : std::vector<std::pair<long long, long long>>{{1, 2}, {-5, 5}, {1LL << 39, 1LL << 39}, {123, -4567}}) {
    const Vector<Interval> ab = rotate(rotate(v, b, g), a, g);
    const Vector<Interval> sum = rotate(v, a + b, g);
    for (int t = 0; t < 32; ++t) EXPECT_TRUE(overlaps(ab[t], sum[t])) << "a=" << a << " b=" << b << " t=" << t;
    EXPECT_TRUE(overlaps(squared_norm(sum), norm)) << "a+b=" << a + b;
  }
  // A wrong rotation must be caught: R^a R^b against R^(a+b+1) differs certainly somewhere.
  const Vector<Interval> ab = rotate(rotate(v, 2, g), 1, g);
  const Vector<Interval> off = rotate(v, 4, g);
  bool any_disjoint = false;
  for (int t = 0; t < 32; ++t) any_disjoint = any_disjoint || !overlaps(ab[t], off[t]);
  EXPECT_TRUE(any_disjoint);
}

TEST(Rotation, ChunkRotationMatchesTheMatrix) {
  double ox, oy;
  rotate_chunk(1.0, 0.0, std::cos(0.5), std::sin(0.5), ox, oy);
  EXPECT_DOUBLE_EQ(ox, std::cos(0.5));  // rho(phi) e1 = (cos, sin): counter-clockwise
  EXPECT_DOUBLE_EQ(oy, std::sin(0.5));
}

}  // namespace
}  // namespace ropecheck

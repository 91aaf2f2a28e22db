#include "attention/activation.h"

#include <gtest/gtest.h>

#include "numeric/precision.h"
#include "random/dyadic_vector.h"
#include "spectrum/frequencies.h"

namespace ropecheck {
namespace {

TEST(Activation, PairProductFormEqualsDirectForm) {
  ScopedPrecision p(256);
  const auto g = frequencies<Interval>(Spectrum(64, "10000"));
  const Vector<Interval> q = random_dyadic_vector<Interval>(64, 5, 1), k = random_dyadic_vector<Interval>(64, 5, 2);
  const PairProducts<Interval> pp = pair_products(q, k);
  std::vector<Interval> c(g.size()), s(g.size());
  for (long long rel : {0LL, -1LL, 17LL, -8191LL, 1LL << 35}) {
    for (size_t t = 0; t < g.size(); ++t) sin_cos(rotation_angle(rel, g[t]), s[t], c[t]);
    const Interval direct = activation(q, k, rel, g);
    EXPECT_TRUE(overlaps(activation(pp, c, s), direct)) << "rel=" << rel;
    EXPECT_TRUE(overlaps(activation(q, k, c, s), direct)) << "rel=" << rel;
    EXPECT_TRUE(overlaps(absolute_activation(q, 1000, k, 1000 + rel, g), direct)) << "rel=" << rel;
  }
}

TEST(Activation, ChunkFormulaIsXTransposeRhoY) {
  // x = (1, 2), y = (3, -1), phi = 0.3: rho y = (c*3 + s, s*3 - c); x . rho y.
  const double c = std::cos(0.3), s = std::sin(0.3);
  const double expected = 1 * (c * 3 - s * -1) + 2 * (s * 3 + c * -1);
  EXPECT_NEAR(chunk_activation(1.0, 2.0, 3.0, -1.0, c, s), expected, 1e-15);
}

TEST(Activation, NoPEIsTheDotProductAtEveryDistance) {
  ScopedPrecision p(128);
  const auto g = frequencies<Real>(Spectrum(8, "10000", Variant::nope));
  Vector<Real> q(8), k(8);
  for (int i = 0; i < 8; ++i) q[i] = i + 1, k[i] = 8 - i;
  for (long long rel : {0LL, 1LL, -100LL}) EXPECT_EQ(activation(q, k, rel, g), q.dot(k));
}

}  // namespace
}  // namespace ropecheck

#include "attention/activation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "numeric/precision.h"
#include "random/counter_rng.h"
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

// The binary64 raw forms (Monte Carlo's hot loop): the same u, w as the generic pair products, and
// lagged_activation within its summation bound of the exact sum_p (c_p u_p - s_p w_p).
TEST(Activation, RawPairProductsAreTheGenericOnes) {
  const Vector<double> q = random_dyadic_vector<double>(16, 5, 1), k = random_dyadic_vector<double>(16, 5, 2);
  const PairProducts<double> pp = pair_products(q, k);
  std::vector<double> u(8), w(8);
  pair_products(q.data(), k.data(), 8, u.data(), w.data());
  EXPECT_EQ(u, pp.u);
  EXPECT_EQ(w, pp.w);
  // rel = -r: activation(pp, cos(-r g), sin(-r g)) is a(r) with c = cos(r g), s = sin(r g).
  std::vector<double> c(8), s(8), minus_s(8);
  for (int p = 0; p < 8; ++p) {
    c[static_cast<size_t>(p)] = std::cos(0.1 * (p + 1));
    s[static_cast<size_t>(p)] = std::sin(0.1 * (p + 1));
    minus_s[static_cast<size_t>(p)] = -s[static_cast<size_t>(p)];
  }
  EXPECT_EQ(lagged_activation_in_order(u.data(), w.data(), c.data(), s.data(), 8), activation(pp, c, minus_s));
}

TEST(Activation, LaggedActivationWithinItsSummationBound) {
  const CounterRng rng(3, 4);
  for (int P : {1, 5, 8, 13, 64, 128}) {
    std::vector<double> u(static_cast<size_t>(P)), w(u), c(u), s(u);
    for (int k = 0; k < P; ++k) {
      u[static_cast<size_t>(k)] = rng.uniform_dyadic(4 * static_cast<std::uint64_t>(k)) * 8;
      w[static_cast<size_t>(k)] = rng.uniform_dyadic(4 * static_cast<std::uint64_t>(k) + 1) * 8;
      c[static_cast<size_t>(k)] = rng.uniform_dyadic(4 * static_cast<std::uint64_t>(k) + 2);
      s[static_cast<size_t>(k)] = rng.uniform_dyadic(4 * static_cast<std::uint64_t>(k) + 3);
    }
    const ScopedPrecision prec(400);
    Real exact = 0, magnitude = 0;
    for (int k = 0; k < P; ++k) {
      const Real t = Real(c[static_cast<size_t>(k)]) * u[static_cast<size_t>(k)] - Real(s[static_cast<size_t>(k)]) * w[static_cast<size_t>(k)];
      exact += t;
      magnitude += abs(Real(c[static_cast<size_t>(k)]) * u[static_cast<size_t>(k)]) + abs(Real(s[static_cast<size_t>(k)]) * w[static_cast<size_t>(k)]);
    }
    const double got = lagged_activation(u.data(), w.data(), c.data(), s.data(), P);
    // Two products and at most P/8 + 1 + 3 additions on the path of each term: (P/8 + 6) 2^-53
    // relative to the sum of |terms| (first-order bound; the second-order term is far below it).
    const double bound = static_cast<double>((P / 8 + 6) * magnitude) * 0x1p-53;
    EXPECT_LE(std::fabs(static_cast<double>(Real(got) - exact)), bound) << "P=" << P << std::hexfloat << " got=" << got;
  }
}

}  // namespace
}  // namespace ropecheck

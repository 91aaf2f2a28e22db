#include "attention/softmax.h"

#include <gtest/gtest.h>
#include <mpfr.h>

#include "numeric/precision.h"
#include "spectrum/frequencies.h"

namespace ropecheck {
namespace {

TEST(Softmax, LogSumExpDoesNotOverflow) {
  Vector<double> a(3);
  a << 1000.0, 1000.0, -1e300;
  EXPECT_NEAR(log_sum_exp(a), 1000.0 + std::log(2.0), 1e-12);
  const Vector<double> s = softmax(a);
  // lse = 1000 + log 2 is rounded once (ulp(1000.7) = 1.1e-13), so s[0] = 0.5 exp(delta) is within
  // 0.5 * 1.2e-13 of 1/2, plus the exp's own ulp.
  EXPECT_NEAR(s[0], 0.5, 1e-13);
  EXPECT_EQ(s[2], 0.0);
}

TEST(Softmax, IntervalRowContainsHighPrecisionRowAndSumsToOne) {
  Vector<Interval> a(4);
  {
    ScopedPrecision p(256);
    a << Interval(0.5), Interval(-3), Interval(7.25), Interval(7);
  }
  Vector<Interval> alpha;
  {
    ScopedPrecision p(256);
    alpha = softmax(a);
    Interval total(0);
    for (int j = 0; j < 4; ++j) total += alpha[j];
    EXPECT_TRUE(contains(total, Real(1)));
  }
  ScopedPrecision p(700);
  Vector<Real> ar(4);
  ar << Real(0.5), Real(-3), Real(7.25), Real(7);
  const Vector<Real> ref = softmax(ar);
  for (int j = 0; j < 4; ++j) EXPECT_TRUE(contains(alpha[j], ref[j])) << "j=" << j;
}

TEST(Softmax, CausalAttentionRowsAreDistributionsOverThePast) {
  ScopedPrecision p(128);
  const auto g = frequencies<Real>(Spectrum(4, "10000"));
  Matrix<Real> Q(3, 4), K(3, 4);
  Q << 1, 0, 0, 1, 0.5, 0.5, -1, 0, 2, 0, 0, 0;
  K << 0, 1, 1, 0, 1, 1, 1, 1, -1, 0, 0, 2;
  const Matrix<Real> A = causal_activations(Q, K, {0, 1, 5}, g);
  // A(2, 1) = q_2^T R^(1-5) k_1.
  const Vector<Real> q2 = Q.row(2).transpose(), k1 = K.row(1).transpose();
  EXPECT_EQ(A(2, 1), activation(q2, k1, -4, g));
  const Matrix<Real> alpha = causal_attention(A);
  for (int i = 0; i < 3; ++i) {
    Real row(0);
    for (int j = 0; j < 3; ++j) {
      if (j > i) {
        EXPECT_EQ(alpha(i, j), 0);
      }
      row += alpha(i, j);
    }
    EXPECT_LT(abs(Real(row - 1)), Real("1e-35")) << "i=" << i;
  }
  EXPECT_EQ(alpha(0, 0), 1);
}

}  // namespace
}  // namespace ropecheck

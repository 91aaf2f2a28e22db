#include "proofs/prop-3.2.h"

#include <gtest/gtest.h>

#include "io/input_error.h"
#include "numeric/decimal.h"
#include "numeric/interval_series.h"
#include "numeric/precision.h"
#include "proofs/fig-2a.h"
#include "random/dyadic_vector.h"
#include "spectrum/frequencies.h"
#include "tests/support/show.h"

namespace ropecheck::proofs {
namespace {

// ||R^r||_F^2 and tr(R^r) from the matrix itself at 600 bits: R^r applied to each basis vector e_i
// (rotation.h's rotate, MPFR), the squares of all its entries summed, and its i-th entry for the
// trace. A different path from the block formulas (c^2 + s^2, 2c); within ~d r 2^-590 of exact.
struct MatrixReference {
  Real frobenius, trace;
};
MatrixReference matrix_reference(const Spectrum& sp, long long r) {
  ScopedPrecision p(600);
  const std::vector<Real> g = frequencies<Real>(sp);
  MatrixReference out{Real(0), Real(0)};
  for (int i = 0; i < sp.dim(); ++i) {
    Vector<Real> e = Vector<Real>::Zero(sp.dim());
    e[i] = 1;
    const Vector<Real> col = rotate(e, r, g);
    out.frobenius += squared_norm(col);
    out.trace += col[i];
  }
  return out;
}

TEST(Prop32, MomentsContainTheMatrixReference) {
  for (const Spectrum& sp : {Spectrum(256, "10000"), Spectrum(16, "10000", Variant::p_rope, "0.75")}) {
    ScopedPrecision p(256);
    const std::vector<Interval> g = frequencies<Interval>(sp);
    NormCheck norms;
    const RotationMoments m = rotation_moments(g, 3000, {}, {}, norms);
    const std::vector<Interval> f = all_ones_activation(g, 3000);
    const Real d(sp.dim()), m4(3.0 * (sp.dim() * sp.dim() + 2.0 * sp.dim()));
    EXPECT_LT(m.frobenius_width_bound, Real("1e-60"));
    for (long long r : {0LL, 1LL, 2LL, 57LL, 2652LL, 2653LL, 3000LL}) {
      const std::size_t at = static_cast<std::size_t>(r);
      const MatrixReference ref = matrix_reference(sp, r);
      EXPECT_TRUE(contains(m.frobenius[at], ref.frobenius)) << sp.describe() << " r=" << r << " fro=" << show(m.frobenius[at])
                                                            << " ref=" << to_decimal(ref.frobenius, 30);
      EXPECT_TRUE(contains(m.frobenius[at], d)) << sp.describe() << " r=" << r;
      EXPECT_LE(Real(upper_of(m.frobenius[at]) - lower_of(m.frobenius[at])), m.frobenius_width_bound) << r;
      EXPECT_TRUE(contains(m.trace[at], ref.trace)) << sp.describe() << " r=" << r << " tr=" << show(m.trace[at])
                                                    << " ref=" << to_decimal(ref.trace, 30);
      EXPECT_TRUE(contains(m.fourth[at], m4)) << sp.describe() << " r=" << r << " fourth=" << show(m.fourth[at]);
      // tr(R^r) = d f(r): the q = k mean is the all-ones activation of fig-2a, unnormalised.
      EXPECT_TRUE(overlaps(m.trace[at], Interval(f[at] * sp.dim()))) << r;
    }
  }
}

TEST(Prop32, RotatedKeysKeepTheirNorm) {
  ScopedPrecision p(256);
  const Spectrum sp(64, "10000");
  std::vector<Vector<Interval>> keys = {random_dyadic_vector<Interval>(64, 5, 1), random_dyadic_vector<Interval>(64, 5, 2)};
  NormCheck norms;
  rotation_moments(frequencies<Interval>(sp), 500, keys, {0, 1, 250, 499, 500}, norms);
  EXPECT_EQ(norms.checked, 10);
  EXPECT_EQ(norms.mismatches, 0);
  EXPECT_TRUE(contains(norms.deviation, Real(0))) << show(norms.deviation);
  EXPECT_LT(Real(upper_of(norms.deviation) - lower_of(norms.deviation)), Real("1e-65"));
}

TEST(Prop32, AZeroTraceIsNeverCertifiedNonZero) {
  // Negative case: g = pi/2 on both pairs makes tr(R^1) = 2 (cos(pi/2) + cos(pi/2)) = 0 exactly; the
  // enclosure must straddle 0, so q = k gives no counterexample at r = 1 (while r = 2 gives -4).
  ScopedPrecision p(256);
  const Interval half_pi = Interval(pi_value<Interval>() / 2);
  NormCheck norms;
  const RotationMoments m = rotation_moments({half_pi, half_pi}, 2, {}, {}, norms);
  const SignCounts at_one = count_signs(m.trace, 1, 1);
  EXPECT_EQ(at_one.positive + at_one.negative, 0) << show(m.trace[1]);
  EXPECT_TRUE(contains(m.trace[2], Real(-4))) << show(m.trace[2]);
  EXPECT_TRUE(certainly_negative(m.trace[2]));
}

TEST(Prop32, DefaultCertificates) {
  ClaimOptions o;
  o.max_n = 3000;  // the defaults' shape at a third of the cost
  const std::vector<Certificate> certs = check_prop_3_2(o);
  ASSERT_EQ(certs.size(), 4u);  // gemma-7b and llama-3.1-8b, independent and q = k each
  for (std::size_t t = 0; t < 4; t += 2) {
    EXPECT_EQ(certs[t].verdict, Verdict::holds) << certs[t].details.dump();
    EXPECT_EQ(certs[t + 1].verdict, Verdict::counterexample) << certs[t + 1].details.dump();
    EXPECT_TRUE(certs[t].as_paper_states());
    EXPECT_TRUE(certs[t + 1].as_paper_states());
  }
  // gemma-7b (d = 256, theta = 1e4): tr(R^r) first turns negative where fig-2a's f does, r = 2653.
  EXPECT_EQ(certs[1].details.at("first_negative_r").get<long long>(), 2653);
}

TEST(Prop32, NoPEAndBadInputs) {
  ClaimOptions o;
  o.spectrum.dim = 8;
  o.spectrum.variant = Variant::nope;
  o.max_n = 20;
  const auto certs = check_prop_3_2(o);
  ASSERT_EQ(certs.size(), 2u);
  EXPECT_EQ(certs[0].verdict, Verdict::holds);           // R^r = I: still variance d
  EXPECT_EQ(certs[1].verdict, Verdict::counterexample);  // tr(I) = d != 0 at every r
  o.max_n = 0;
  EXPECT_THROW(check_prop_3_2(o), InputError);
  o.max_n = 20;
  o.trials = 0;
  EXPECT_THROW(check_prop_3_2(o), InputError);
}

}  // namespace
}  // namespace ropecheck::proofs

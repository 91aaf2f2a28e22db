#include "proofs/prop-3.1.h"

#include <gtest/gtest.h>

#include "io/input_error.h"
#include "numeric/decimal.h"
#include "numeric/precision.h"
#include "random/counter_rng.h"
#include "spectrum/frequencies.h"

namespace ropecheck::proofs {
namespace {

// The margin by the proof's closed form, a_r - a_j = sum_p 2 ||q_p||^2 sin^2((r-j) g_p / 2), at
// 700 bits: independent of the rotate-then-dot path distance_margins takes.
Real closed_form_margin(const Spectrum& s, const std::vector<double>& q, long long r, long long N) {
  ScopedPrecision p(700);
  const auto g = frequencies<Real>(s);
  Real best = std::numeric_limits<double>::infinity();
  for (long long j = 0; j <= N; ++j) {
    if (j == r) continue;
    Real sum(0);
    for (size_t t = 0; t < g.size(); ++t) {
      const Real half = Real(Real(r - j) * g[t]) / 2;
      const Real sn = sin(half);
      const Real x = q[2 * t], y = q[2 * t + 1];  // exact dyadics, squared in MPFR, not in double
      sum += 2 * (x * x + y * y) * sn * sn;
    }
    if (sum < best) best = sum;
  }
  return best;
}

TEST(Prop31, CertifiedMarginsContainTheClosedForm) {
  const Spectrum s(8, "10");
  const long long N = 300;
  const CounterRng rng(9, 1);
  std::vector<double> qd(8);
  for (int i = 0; i < 8; ++i) qd[i] = rng.uniform_dyadic(static_cast<std::uint64_t>(i));
  std::vector<DistanceMargin> margins;
  {
    ScopedPrecision p(256);
    Vector<Interval> q(8);
    for (int i = 0; i < 8; ++i) q[i] = Interval(qd[i]);
    margins = distance_margins(q, frequencies<Interval>(s), {0, 1, 44, 300}, N);
  }
  for (const DistanceMargin& m : margins) {
    const Real exact = closed_form_margin(s, qd, m.r, N);
    EXPECT_LE(m.margin_lower, exact) << "r=" << m.r << " lower=" << to_decimal(m.margin_lower, 30) << " exact=" << to_decimal(exact, 30);
    EXPECT_GE(m.margin_upper, exact) << "r=" << m.r << " upper=" << to_decimal(m.margin_upper, 30) << " exact=" << to_decimal(exact, 30);
    EXPECT_GT(m.margin_lower, 0);
    EXPECT_EQ(m.witness, -1);
  }
}

TEST(Prop31, NoPEIsInconclusiveNotAPass) {
  ClaimOptions o;
  o.spectrum.dim = 8;
  o.spectrum.variant = Variant::nope;
  o.spectrum.context = 50;
  o.distances = {3};
  const auto certs = check_prop_3_1(o);
  ASSERT_EQ(certs.size(), 1u);
  EXPECT_EQ(certs[0].verdict, Verdict::inconclusive);
  EXPECT_FALSE(certs[0].as_paper_states());
  // Every margin is exactly 0 (a true tie): the retry ladder must not climb for nothing.
  EXPECT_EQ(certs[0].details["precision_attempts"], nlohmann::json({256})) << certs[0].details.dump();
}

TEST(Prop31, GivenQueryAndBadInputs) {
  ClaimOptions o;
  o.spectrum.dim = 4;
  o.spectrum.context = 40;
  o.distances = {5};
  o.query = {"1", "0", "0.5", "-2"};
  EXPECT_EQ(check_prop_3_1(o)[0].verdict, Verdict::holds);
  o.query = {"1", "0"};
  EXPECT_THROW(check_prop_3_1(o), InputError);
  o.query = {"0", "0", "0", "0"};
  EXPECT_THROW(check_prop_3_1(o), InputError);
  o.query = {};
  o.distances = {41};
  EXPECT_THROW(check_prop_3_1(o), InputError);
}

}  // namespace
}  // namespace ropecheck::proofs

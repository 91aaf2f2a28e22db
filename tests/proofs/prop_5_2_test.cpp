#include "proofs/prop-5.2.h"

#include <gtest/gtest.h>

#include "io/input_error.h"
#include "numeric/decimal.h"
#include "numeric/precision.h"
#include "random/counter_rng.h"
#include "spectrum/frequencies.h"
#include "tests/support/show.h"

namespace ropecheck::proofs {
namespace {

// A small NoPE head with exact dyadic weights and tokens from Philox (d = m = 4).
struct Plain {
  std::vector<double> wq, wk, bos, mid, x;
};
Plain plain_head(std::uint64_t seed) {
  const CounterRng rng(seed, 77);
  Plain p;
  std::uint64_t i = 0;
  for (auto* v : {&p.wq, &p.wk})
    for (int k = 0; k < 16; ++k) v->push_back(rng.uniform_dyadic(i++) * 2);
  for (auto* v : {&p.bos, &p.mid, &p.x})
    for (int k = 0; k < 4; ++k) v->push_back(rng.uniform_dyadic(i++));
  return p;
}

AttentionHead to_head(const Plain& p) {
  AttentionHead h{Matrix<Interval>(4, 4), Matrix<Interval>(4, 4)};
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) {
      h.W_Q(r, c) = Interval(p.wq[static_cast<size_t>(4 * r + c)]);
      h.W_K(r, c) = Interval(p.wk[static_cast<size_t>(4 * r + c)]);
    }
  return h;
}

Vector<Interval> to_vector(const std::vector<double>& v) {
  Vector<Interval> out(static_cast<Eigen::Index>(v.size()));
  for (size_t k = 0; k < v.size(); ++k) out[static_cast<Eigen::Index>(k)] = Interval(v[k]);
  return out;
}

// The paper's formula on [bos, mid..., x, x], independently of causal_attention: a_(n,k) = (W_Q x)^T
// (W_K t_k) in 1200-bit MPFR (the dyadic inputs make every product exact; the few sums and exps
// round at 2^-1200, far inside a 257-bit enclosure), then alpha_(n,n) = 1/(2 + sum_k exp(a_(n,k) -
// a_(n,n))) over the tokens before the pair.
Real paper_alpha(const Plain& p, bool with_mid) {
  ScopedPrecision prec(1200);
  auto proj = [](const std::vector<double>& W, const std::vector<double>& t) {
    std::vector<Real> out(4, Real(0));
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) out[static_cast<size_t>(r)] += Real(W[static_cast<size_t>(4 * r + c)]) * Real(t[static_cast<size_t>(c)]);
    return out;
  };
  auto dot = [](const std::vector<Real>& a, const std::vector<Real>& b) {
    Real s(0);
    for (size_t k = 0; k < a.size(); ++k) s += a[k] * b[k];
    return s;
  };
  const auto q = proj(p.wq, p.x);
  const Real a_nn = dot(q, proj(p.wk, p.x));
  Real S = exp(Real(dot(q, proj(p.wk, p.bos)) - a_nn));
  if (with_mid) S += exp(Real(dot(q, proj(p.wk, p.mid)) - a_nn));
  return Real(1 / (2 + S));
}

TEST(Prop52, NoPEAttentionContainsThePapersFormula) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    for (bool with_mid : {false, true}) {
      const Plain p = plain_head(seed);
      const Real ref = paper_alpha(p, with_mid);
      ScopedPrecision prec(256);
      const auto g = frequencies<Interval>(Spectrum(4, "10000", Variant::nope));
      std::vector<Vector<Interval>> prefix = {to_vector(p.bos)};
      if (with_mid) prefix.push_back(to_vector(p.mid));
      const RepeatedTokenAttention r = repeated_token_attention(to_head(p), prefix, to_vector(p.x), g);
      EXPECT_EQ(r.n, with_mid ? 4 : 3);
      EXPECT_TRUE(contains(r.alpha_last, ref)) << "seed=" << seed << " alpha=" << show(r.alpha_last) << " ref=" << to_decimal(ref, 40);
      EXPECT_TRUE(contains(r.alpha_prev, ref)) << "seed=" << seed << " alpha=" << show(r.alpha_prev) << " ref=" << to_decimal(ref, 40);
      EXPECT_TRUE(contains(r.closed_form, ref)) << "seed=" << seed << " closed=" << show(r.closed_form);
      EXPECT_TRUE(r.certified_nope()) << "seed=" << seed << " alpha=" << show(r.alpha_last);
      EXPECT_TRUE(r.at_most_half);
      // The row is a distribution: its enclosures sum to an interval containing 1.
      Interval total(0);
      for (Eigen::Index k = 0; k < r.row.size(); ++k) total += r.row[k];
      EXPECT_TRUE(contains(total, Real(1))) << show(total);
    }
  }
}

TEST(Prop52, SharpNoPEHeadIsDecidedByTheClosedFormMargin) {
  // W = 16 I, bos = e_0, x = e_1: alpha_(3,3) = 1/(2 + e^-256), 1/2 - alpha = e^-256/(2(2 + e^-256))
  // ~ 1.66e-112 ~ 2^-371: inside the 2^-257 width of the direct enclosure, so only the margin decides.
  Real ref_margin;
  {
    ScopedPrecision p(1200);
    const Real e = exp(Real(-256));
    ref_margin = e / (2 * (2 + e));
  }
  ScopedPrecision p(256);
  const int d = 8;
  Matrix<Interval> W = Matrix<Interval>::Constant(d, d, Interval(0));
  for (int k = 0; k < d; ++k) W(k, k) = Interval(16);
  Vector<Interval> bos = Vector<Interval>::Constant(d, Interval(0)), x = bos;
  bos[0] = Interval(1);
  x[1] = Interval(1);
  const auto g = frequencies<Interval>(Spectrum(d, "10000", Variant::nope));
  const RepeatedTokenAttention r = repeated_token_attention({W, W}, {bos}, x, g);
  EXPECT_FALSE(upper_of(r.alpha_last) < 0.5) << show(r.alpha_last);  // the direct enclosure touches 1/2
  EXPECT_TRUE(r.below_half);
  EXPECT_TRUE(r.certified_nope());
  EXPECT_TRUE(contains(r.closed_form_margin, ref_margin)) << show(r.closed_form_margin) << " ref=" << to_decimal(ref_margin, 40);
}

TEST(Prop52, UnderflowedMarginIsNotCertifiedStrict) {
  // a_(3,3) - a_(3,1) = 1e9: exp(-1e9) underflows MPFR's exponent range (down to ~ e^-7.4e8), S's
  // lower bound is 0 and strictness cannot be certified; "at most 1/2" still is, from 1/(2 + S).
  ScopedPrecision p(256);
  const auto g = frequencies<Interval>(Spectrum(2, "10000", Variant::nope));
  Matrix<Interval> W(2, 2);
  W << Interval(from_decimal<Interval>("31622.7766")), Interval(0), Interval(0), Interval(from_decimal<Interval>("31622.7766"));
  Vector<Interval> bos(2), x(2);
  bos << Interval(1), Interval(0);
  x << Interval(0), Interval(1);
  const RepeatedTokenAttention r = repeated_token_attention({W, W}, {bos}, x, g);
  EXPECT_TRUE(r.equal_by_construction);
  EXPECT_TRUE(r.at_most_half) << show(r.closed_form);
  EXPECT_FALSE(r.below_half) << show(r.closed_form_margin);
  EXPECT_FALSE(r.certified_nope());
}

TEST(Prop52, RoPEBreaksTheObstructionAndIsNeverCertifiedAsNoPE) {
  // Theorem 5.3's diagonal weights, psi = 3 e_0 on the g_1 = 1 pair, positions 0, 1, 2:
  // alpha_(3,3) = 1/(1 + e^(9 (cos 1 - 1)) + e^(9 (cos 2 - 1))) ~ 0.984.
  Real ref;
  {
    ScopedPrecision p(1200);
    ref = 1 / (1 + exp(Real(9 * (cos(Real(1)) - 1))) + exp(Real(9 * (cos(Real(2)) - 1))));
  }
  ScopedPrecision p(256);
  const Spectrum s(4, "10000");
  const auto g = frequencies<Interval>(s);
  Matrix<Interval> W = Matrix<Interval>::Constant(4, 4, Interval(0));
  W(0, 0) = Interval(3);
  W(0, 1) = Interval(3);
  Vector<Interval> bos = Vector<Interval>::Constant(4, Interval(0)), x = bos;
  bos[0] = Interval(1);
  x[1] = Interval(1);
  const RepeatedTokenAttention r = repeated_token_attention({W, W}, {bos}, x, g);
  EXPECT_TRUE(contains(r.alpha_last, ref)) << show(r.alpha_last) << " ref=" << to_decimal(ref, 40);
  EXPECT_TRUE(r.last_above_half);
  EXPECT_FALSE(r.equal_by_construction);
  EXPECT_FALSE(r.certified_nope());
  // A single non-zero frequency, however slow, already voids the symbolic equality.
  std::vector<Interval> almost = frequencies<Interval>(Spectrum(4, "10000", Variant::nope));
  almost[1] = from_decimal<Interval>("1e-30");
  EXPECT_FALSE(repeated_token_attention({W, W}, {bos}, x, almost).equal_by_construction);
}

TEST(Prop52, CheckHoldsWithTheContrast) {
  ClaimOptions o;
  o.trials = 20;
  const auto certs = check_prop_5_2(o);
  ASSERT_EQ(certs.size(), 3u);
  for (const Certificate& c : certs) EXPECT_EQ(c.verdict, Verdict::holds) << c.statement << "\n" << c.details.dump();
  // Under NoPE the Theorem 5.3 weights give exactly 1/3 to each token.
  const auto& heads = certs[0].details["heads"];
  ASSERT_EQ(heads.size(), 4u);
  EXPECT_EQ(heads[0]["alpha_nn"]["lower"].get<std::string>().substr(0, 8), "3.333333");
  // Asking for a NoPE spectrum turns the contrast into a certified failure: < 1/2 with NoPE too.
  o.spectrum.variant = Variant::nope;
  o.spectrum.dim = 8;
  const auto nope = check_prop_5_2(o);
  EXPECT_EQ(nope[0].verdict, Verdict::holds);
  EXPECT_EQ(nope[2].verdict, Verdict::fails);
}

TEST(Prop52, BadInputs) {
  ClaimOptions o;
  o.max_n = 2;
  EXPECT_THROW(check_prop_5_2(o), InputError);
  o.max_n = 513;
  EXPECT_THROW(check_prop_5_2(o), InputError);
  ScopedPrecision p(256);
  const auto g = frequencies<Interval>(Spectrum(2, "10000", Variant::nope));
  const Matrix<Interval> W = Matrix<Interval>::Constant(2, 2, Interval(1));
  const Vector<Interval> x = Vector<Interval>::Constant(2, Interval(1));
  EXPECT_THROW(repeated_token_attention({W, W}, {}, x, g), std::invalid_argument);
  EXPECT_THROW(repeated_token_attention({W, W}, {Vector<Interval>::Constant(3, Interval(1))}, x, g), std::invalid_argument);
  EXPECT_THROW(repeated_token_attention({W, W}, {x}, x, frequencies<Interval>(Spectrum(4, "10000"))), std::invalid_argument);
}

}  // namespace
}  // namespace ropecheck::proofs

// Properties of Lemma A.3 and Proposition 5.2 over generated activation rows and NoPE heads.
// Inputs are binary32 values from bit patterns and edge values (gen::components), exact in MPFI, so
// the hypotheses (a_i < a_j, the repeated token) hold for the exact reals the intervals enclose.
// The certificates are computed at 256 bits and climb the ladder (x2 up to 4096 bits) while
// undecided, as the claim checks do.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <limits>

#include "generators.h"
#include "certificate/retry.h"
#include "numeric/decimal.h"
#include "numeric/precision.h"
#include "proofs/lemma-a3.h"
#include "proofs/prop-5.2.h"
#include "spectrum/frequencies.h"
#include "tests/support/show.h"

namespace ropecheck {
namespace {

constexpr unsigned kStartBits = 256;
constexpr unsigned kCapBits = 4096;

Vector<Interval> to_interval(const std::vector<float>& v) {
  Vector<Interval> out(static_cast<Eigen::Index>(v.size()));
  for (size_t k = 0; k < v.size(); ++k) out[static_cast<Eigen::Index>(k)] = Interval(static_cast<double>(v[k]));
  return out;
}

// Lemma A.3 on any finite row with a_i < a_j. Distinct binary32 values differ by at least 2^-149,
// so 1/2 - alpha_i >= 1/2 - s ~ (a_j - a_i)/4 >= 2^-151 whenever alpha_i is near 1/2 (which needs
// small activations, hence an accurate log-sum-exp): 257 bits decide every row, and the ladder
// covers the rest, so "not certified at 4096 bits" is a real failure, not bad luck.
RC_GTEST_PROP(SoftmaxProperties, NonMaximalActivationGetsLessThanHalf, ()) {
  const int n = *rc::gen::inRange(2, 13);
  std::vector<float> a = *gen::vectors(n);
  const int i = *rc::gen::inRange(0, n);
  int j = 0;
  for (int k = 1; k < n; ++k)
    if (a[static_cast<size_t>(k)] > a[static_cast<size_t>(j)]) j = k;
  // Half the time, squeeze a_j down to the next float above a_i: the smallest gap binary32 allows.
  if (*rc::gen::arbitrary<bool>() && j != i) {
    const float next = std::nextafter(a[static_cast<size_t>(i)], std::numeric_limits<float>::infinity());
    if (std::isfinite(next)) a[static_cast<size_t>(j)] = next;
  }
  RC_PRE(i != j && a[static_cast<size_t>(i)] < a[static_cast<size_t>(j)]);
  RC_LOG() << "i=" << i << " j=" << j << " a_i=" << a[static_cast<size_t>(i)] << " a_j=" << a[static_cast<size_t>(j)];

  std::vector<unsigned> attempts;
  const proofs::SoftmaxBound b = climb_precision(
      kStartBits, kCapBits,
      [&](unsigned precision_bits) {
        ScopedPrecision p(precision_bits);
        return proofs::certified_softmax_bound(to_interval(a), i, j);
      },
      [](const proofs::SoftmaxBound& x) { return x.certified(); }, attempts);
  const unsigned bits = attempts.back();
  RC_LOG() << "bits=" << bits << " alpha=" << show(b.alpha) << " s=" << show(b.sharp) << " rho=" << show(b.rest);
  RC_TAG(n == 2 ? "n=2" : "n>2", a[static_cast<size_t>(j)] == std::nextafter(a[static_cast<size_t>(i)], INFINITY) ? "adjacent floats" : "wider gap",
         bits > kStartBits ? "climbed" : "257 bits");
  RC_ASSERT(b.hypothesis);
  RC_ASSERT(!b.refuted);
  RC_ASSERT(b.consistent);
  RC_ASSERT(b.certified());
}

// Proposition 5.2 on any NoPE head and any sequence [bos, ..., x, x]: alpha_(n,n) = alpha_(n,n-1) <= 1/2
// always certified (the closed form 1/(2 + S) has upper bound <= 1/2 exactly), and < 1/2 certified
// whenever some exp(a_(n,k) - a_(n,n)) stays inside MPFR's exponent range, which reaches down to
// about e^-7.4e8 (checked with a safety factor: arguments > -1e8). Below that, S's lower bound is 0
// at every precision and strictness is, correctly, left undecided.
RC_GTEST_PROP(SoftmaxProperties, NoPEHeadSplitsTheRepeatedToken, ()) {
  const int d = *gen::dimensions(8);
  const int prefix_length = *rc::gen::inRange(1, 6);
  const std::vector<float> wq = *gen::vectors(d * d), wk = *gen::vectors(d * d);
  std::vector<std::vector<float>> prefix;
  for (int t = 0; t < prefix_length; ++t) prefix.push_back(*gen::vectors(d));
  const std::vector<float> x = *gen::vectors(d);

  // Strictness is decidable only when some exp(a_(n,k) - a_(n,n)) stays inside MPFR's range.
  auto strictness_decidable = [](const proofs::RepeatedTokenAttention& x) {
    bool decidable = false;
    for (Eigen::Index k = 0; k + 2 < x.n; ++k) decidable = decidable || lower_of(Interval(x.activations[k] - x.a_last)) > -1e8;
    return decidable;
  };
  std::vector<unsigned> attempts;
  const proofs::RepeatedTokenAttention r = climb_precision(kStartBits, kCapBits, [&](unsigned precision_bits) {
    ScopedPrecision p(precision_bits);
    proofs::AttentionHead head{Matrix<Interval>(d, d), Matrix<Interval>(d, d)};
    for (int row = 0; row < d; ++row)
      for (int col = 0; col < d; ++col) {
        head.W_Q(row, col) = Interval(static_cast<double>(wq[static_cast<size_t>(row * d + col)]));
        head.W_K(row, col) = Interval(static_cast<double>(wk[static_cast<size_t>(row * d + col)]));
      }
    std::vector<Vector<Interval>> tokens;
    for (const auto& t : prefix) tokens.push_back(to_interval(t));
    return proofs::repeated_token_attention(head, tokens, to_interval(x), frequencies<Interval>(Spectrum(d, "10000", Variant::nope)));
  }, [&](const proofs::RepeatedTokenAttention& x) { return x.below_half || !strictness_decidable(x); }, attempts);
  const unsigned bits = attempts.back();
  const bool strict_expected = strictness_decidable(r);
  RC_LOG() << "d=" << d << " n=" << r.n << " bits=" << bits << " a_nn=" << show(r.a_last) << " alpha_nn=" << show(r.alpha_last)
           << " alpha_n,n-1=" << show(r.alpha_prev) << " closed=" << show(r.closed_form) << " margin=" << show(r.closed_form_margin);
  RC_TAG(strict_expected ? "strictness decidable" : "exp underflows: only <= 1/2",
         upper_of(r.alpha_last) < 0.5 ? "direct enclosure decides" : "closed form needed");
  RC_ASSERT(r.equal_by_construction);
  RC_ASSERT(r.enclosures_identical);
  RC_ASSERT(r.routes_agree);
  RC_ASSERT(r.at_most_half);
  // The margin is 1/2 - closed_form rearranged: two enclosures of one number.
  RC_ASSERT(overlaps(r.closed_form_margin, Interval(Interval(0.5) - r.closed_form)));
  RC_ASSERT(!r.last_above_half);
  RC_ASSERT(!r.prev_above_half);
  if (strict_expected) RC_ASSERT(r.below_half);
}

}  // namespace
}  // namespace ropecheck

// File: lemma-a3.h
// Lemma A.3 (a non-maximal activation gets less than half the attention): if a_i < a_j for some j,
// then alpha_i = softmax(a)_i < 1/2; sharply, alpha_i <= 1/(1 + exp(a_j - a_i)) < 1/2.
// Certified per instance with MPFI on constructed edge cases and seeded random activation rows.
#pragma once

#include <vector>

#include "claims/claim.h"
#include "rotation/rotation.h"

namespace ropecheck::proofs {

// The certified evidence for one activation row a and one pair (i, j). Every Interval encloses the
// exact real value for the exact reals that the entries of `a` enclose.
struct SoftmaxBound {
  Interval gap;               // a_j - a_i
  Interval alpha;             // softmax(a)_i, by the project's log-sum-exp softmax (attention/softmax.h)
  Interval sharp;             // s = 1 / (1 + exp(a_j - a_i)), the sharp bound
  Interval rest;              // rho = sum over k != i, j of exp(a_k - a_i) (exactly 0 when n = 2)
  Interval alpha_from_sharp;  // alpha_i again, by the identity 1/alpha_i = 1/s + rho: s / (1 + s rho)
  bool hypothesis = false;        // a_i < a_j certified: lower(gap) > 0
  bool below_half = false;        // upper(alpha) < 1/2: the lemma's conclusion, in its strict form
  bool sharp_below_half = false;  // upper(s) < 1/2
  bool below_sharp = false;       // alpha_i <= s certified: lower(rho) >= 0 and the identity above
  bool strictly_below_sharp = false;  // upper(alpha) < lower(s): the two enclosures are separated
  bool consistent = false;        // alpha and alpha_from_sharp overlap (two routes to one number)
  bool refuted = false;           // lower(alpha) >= 1/2: the strict conclusion is certainly false

  // Returns: true when the hypothesis and every conclusion above are certified.
  bool certified() const { return hypothesis && below_half && sharp_below_half && below_sharp && consistent; }
};

// Returns: the certified bounds of Lemma A.3 for the activation row `a` and indices i != j, computed
// at the current precision (ScopedPrecision). Entries of `a` may be wide intervals or contain huge
// values: exp overflow/underflow in MPFR's exponent range (|x| up to ~7.4e8) is enclosed, not lost.
// Throws std::invalid_argument when i or j is out of range or i == j.
SoftmaxBound certified_softmax_bound(const Vector<Interval>& a, Eigen::Index i, Eigen::Index j);

// The `lemma-a3` check: two certificates, each on the precision ladder (certify_with_retry):
// constructed edge cases (tiny gaps 1e-30 and 1e-100 next to 1/2, activations 1e6 apart, many equal
// distractors, negative activations) and seeded random rows (--trials, default 1000; n in
// [2, --max-n], default 32; --seed). Reads precision_bits, max_precision_bits, seed, trials, max_n.
std::vector<Certificate> check_lemma_a3(const ClaimOptions& options);

}  // namespace ropecheck::proofs

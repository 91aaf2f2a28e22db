// File: roformer-decay.h
// RoFormer's long-term decay bound (Su et al., Section 3.4.3): by Abel summation, with
// S_j(r) = sum_{k<j} e^(i r g_k) (S_0 = 0) and h_{P} = 0 (P = d/2 pairs),
//   |sum_{k<P} h_k e^(i r g_k)| <= (max_k |h_{k+1} - h_k|) sum_{j=1..P} |S_j(r)|.
// The curve RoFormer plots is B(r) = (1/P) sum_{j=1..P} |S_j(r)|. For all-ones q = k every chunk
// gives h_k = (1 + i)(1 - i) = 2 and the only non-zero difference is |h_P - h_{P-1}| = 2, so
// |q^T R^r k| <= 2 sum_j |S_j(r)|, i.e. |f(r)| <= B(r) with f(r) = (1/d) q^T R^r k (fig-2a.h).
#pragma once

#include <vector>

#include "claims/claim.h"

namespace ropecheck::proofs {

// Returns: enclosures of B(r) = (1/P) sum_{j=1..P} |sum_{k<j} e^(i r g_k)| for r = 0..r_max, P =
// g.size(), the partial sums taken in the order of g (the spectrum's pair order, fastest first: the
// bound depends on that order). B(0) = (P + 1)/2 exactly. At the current precision.
// Preconditions: g non-empty, 0 <= r_max < 2^52.
std::vector<Interval> roformer_bound(const std::vector<Interval>& g, long long r_max);

// The envelope |f(r)| <= B(r) of an activation f under the bound B, decided at each r separately:
// certified when upper(|f(r)|) <= lower(B(r)) (a tie, e.g. d = 2 at r = 0 where both are exactly 1,
// is still certified by the non-strict comparison), violated when lower(|f(r)|) > upper(B(r)),
// undecided otherwise.
struct EnvelopeCounts {
  long long certified = 0;
  long long violated = 0;
  long long undecided = 0;
  long long first_violation = -1;  // the first violated r; -1 when none
};
// Returns: the counts over r = 0..B.size()-1. Throws std::invalid_argument unless B.size() == f.size().
EnvelopeCounts roformer_envelope(const std::vector<Interval>& B, const std::vector<Interval>& f);

// The `roformer-decay` check: default d = 128, theta = 1e4 (a --config or --dim replaces it),
// r = 0..N with N = --max-n (default 256, at least 8). Certifies B(0) = (d/2 + 1)/2, |f(r)| <= B(r)
// at every r, a decay on average (mean of B over [0, N/8] > mean over [N - N/8, N]) and that B is
// not monotone (certified r with B(r+1) > B(r), the first ones listed). Reads spectrum,
// precision_bits, max_precision_bits, max_n.
std::vector<Certificate> check_roformer_decay(const ClaimOptions& options);

}  // namespace ropecheck::proofs

// File: prop-3.2.h
// Proposition 3.2 (Gaussian queries and keys do not decay): for independent q, k ~ N(0, I) and
// every distance r, E[q^T R^r k] = 0; stronger, q^T R^r k has the law of q^T k (variance d) for
// every r. With q = k (dependent) the mean is E[k^T R^r k] = trace(R^r) = 2 sum_k cos(r g_k) != 0.
#pragma once

#include <vector>

#include "claims/claim.h"
#include "rotation/rotation.h"

namespace ropecheck::proofs {

// The moments of q^T R^r k that depend on R^r only, for r = 0..r_max, from the 2x2 blocks
// rho(r g_k) = [[c, -s], [s, c]] (unrotated pairs: c = 1, s = 0 exactly):
//   frobenius[r] = ||R^r||_F^2 = sum_k 2 (c^2 + s^2)        = E[(q^T R^r k)^2] for independent
//                                                             centred q, k with identity covariance;
//   fourth[r]    = 3 (tr(A)^2 + 2 tr(A^2)), A = (R^r)^T R^r = blockdiag((c^2 + s^2) I_2)
//                                                           = E[(q^T R^r k)^4] for Gaussian q, k;
//   trace[r]     = tr(R^r) = sum_k 2 c                      = E[k^T R^r k] for k ~ N(0, I) (q = k).
// For exact rotations frobenius = d and fourth = 3(d^2 + 2d) at every r; the enclosures are computed
// from enclosures of c and s, not from that identity.
struct RotationMoments {
  std::vector<Interval> frobenius;
  std::vector<Interval> fourth;
  std::vector<Interval> trace;
  Real frobenius_width_bound;  // a-priori bound on the width of every frobenius[r] (see the .cpp)
};

// Norm preservation ||R^r k||^2 = ||k||^2 for given keys at given distances, R^r k computed by
// rotating each chunk with the enclosed cos/sin (not from the identity c^2 + s^2 = 1).
struct NormCheck {
  long long checked = 0;     // (key, distance) pairs
  long long mismatches = 0;  // enclosures of ||R^r k||^2 and ||k||^2 that do not overlap (certainly different)
  Interval deviation;        // hull of ||R^r k||^2 - ||k||^2 over every pair checked (contains 0)
};

// Returns: the moments at every r in 0..r_max and, for every key in `keys` and every r in
// `key_distances` (each in [0, r_max]), the norm check, all from one sweep of cos/sin(r g_k).
// Preconditions: g non-empty; every key of size 2 * g.size(); 0 <= r_max < 2^52.
RotationMoments rotation_moments(const std::vector<Interval>& g, long long r_max, const std::vector<Vector<Interval>>& keys,
                                 const std::vector<long long>& key_distances, NormCheck& norms);

// The `prop-3.2` check: per configuration (default gemma-7b and llama-3.1-8b; --config or --dim gives
// one) two certificates over r = 0..N, N = --max-n (default min(8192, context)):
//  - independent q, k: E = 0 (an identity), ||R^r||_F^2 = d with a width bound, the fourth moment
//    3(d^2 + 2d), and ||R^r k||^2 = ||k||^2 for --trials seeded keys (default 4) at 64 distances
//    (0, 1, N and 61 seeded ones); verdict holds;
//  - q = k: E[k^T R^r k] = tr(R^r) certified non-zero (counterexample to the statement without its
//    independence hypothesis), with where it is negative and its range over 1..N.
// Reads spectrum, precision_bits, max_precision_bits, seed, max_n, trials.
std::vector<Certificate> check_prop_3_2(const ClaimOptions& options);

}  // namespace ropecheck::proofs

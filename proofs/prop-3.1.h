// File: prop-3.1.h
// Proposition 3.1 (RoPE can be maximal at any distance): for a non-zero query q and a distance r,
// the key k = R^r q makes the activation largest at distance r.
#pragma once

#include <cstdint>
#include <vector>

#include "claims/claim.h"
#include "rotation/rotation.h"

namespace ropecheck::proofs {

// Stream id of the check's seeded random query in the counter-based RNG (ASCII "prop-3.1"): the
// query is random_dyadic_vector(d, seed, kProp31QueryStream), here and in the finite-precision
// verdicts (finite/argmax_at_distance.h), which run the same construction through float arithmetic.
inline constexpr std::uint64_t kProp31QueryStream = 0x70726f702d332e31ULL;

// Certified margins of one (q, r): with k = R^r q and a_j = q^T R^(-j) k (the key j tokens before
// the query), margin = min over j != r, 0 <= j <= N of (a_r - a_j). Every bound is rigorous.
struct DistanceMargin {
  long long r = 0;
  Interval a_r;            // the activation at distance r (= ||q||^2 exactly)
  Real margin_lower;       // rigorous lower bound of the margin
  Real margin_upper;       // rigorous upper bound of the margin
  long long runner_up = 0; // a j != r whose lower bound is the smallest
  long long witness = -1;  // a j with a_j certainly > a_r, if any (a counterexample)
};

// Returns: the margins for each distance r in `distances` (each in [0, N]), all computed from one
// sweep over j = 0..N that evaluates the sin/cos table of j*g_k once for every r.
std::vector<DistanceMargin> distance_margins(const Vector<Interval>& q, const std::vector<Interval>& g,
                                             const std::vector<long long>& distances, long long N);

// The `prop-3.1` check: default gemma-7b, r in {1, 7, 100, 4000}, N = the context, q seeded random
// (dyadic uniform in [-1, 1)^d from Philox, --seed) or given by --query.
std::vector<Certificate> check_prop_3_1(const ClaimOptions& options);

}  // namespace ropecheck::proofs

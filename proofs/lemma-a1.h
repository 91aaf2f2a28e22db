// File: lemma-a1.h
// Lemma A.1 (no return): for g != 0 with g/pi irrational, n*g is a multiple of 2*pi only at n = 0.
// Checked per frequency over 1 <= n <= N with rigorous lower bounds on dist(n*g, 2*pi*Z).
#pragma once

#include <vector>

#include "claims/claim.h"

namespace ropecheck::proofs {

// Rigorous bounds on D(g, N) = min over 1 <= n <= N of dist(n*g, 2*pi*Z), for every real g in the
// interval `g`: D lies in [lower, upper]; n_at_lower is an n whose lower bound is the smallest.
// lower > 0 certifies that no n in 1..N returns to a multiple of 2*pi (and by symmetry no n in
// -N..-1). Computed in MPFI at the precision of g.
struct ClosestReturn {
  long long n_at_lower = 0;
  Real lower;
  Real upper;
};
ClosestReturn closest_return(const Interval& g, long long N);

// The `lemma-a1` check: one certificate per configuration (default: gemma-7b and llama-3.1-8b),
// N = the configuration's context. Reads options.spectrum and options.precision_bits.
std::vector<Certificate> check_lemma_a1(const ClaimOptions& options);

}  // namespace ropecheck::proofs

// File: lemma-a2.h
// Lemma A.2 (density): {n*g mod 2*pi : n in Z} is dense in [0, 2*pi], which needs g/(2*pi)
// irrational. Checked constructively: for a frequency g, a target angle phi and a tolerance delta,
// an n in 1..N with dist(n*g - phi, 2*pi*Z) < delta is built from the continued fraction of
// g/(2*pi) and certified in interval arithmetic; the smallest such n is found by an exact scan.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "claims/claim.h"

namespace ropecheck::proofs {

// The continued fraction [a_0; a_1, a_2, ...] shared by EVERY real in the interval alpha, with its
// convergents p_k/q_k. Computed in MPFI (x_{k+1} = 1/(x_k - a_k) on intervals), so a partial
// quotient is listed only when floor() is the same integer over the whole enclosure: for alpha
// enclosing a rational (2*pi/7 over 2*pi) the list stops where the rational's expansion ends.
// Stops before q_k would exceed max_denominator. Preconditions: alpha > 0 certainly.
struct CertifiedContinuedFraction {
  std::vector<long long> quotients;  // a_0, a_1, ...
  std::vector<long long> p;          // p_k
  std::vector<long long> q;          // q_k (q_0 = 1)
};
CertifiedContinuedFraction certified_continued_fraction(const Interval& alpha, long long max_denominator);

// Returns: |n*g - phi - 2*pi*m| enclosed in MPFI at the precision of g, with m (set here) the
// integer nearest (n*g - phi)/(2*pi) at the midpoint; any m gives an upper bound of
// dist(n*g - phi, 2*pi*Z), the nearest makes it the distance itself whenever the result is < pi.
Interval orbit_offset(const Interval& g, long long n, const Interval& phi, long long& m);

// One target: the construction, its certificate and the smallest n.
struct DensityWitness {
  // Construction (from the convergents): j is the first index with ||q_j alpha|| < delta/(2 pi)
  // certified; the points n*alpha, 1 <= n <= q_j + q_{j-1}, have gaps at most ||q_{j-1} alpha||
  // (three-distance theorem), so the target has a neighbour `start` there at circular distance
  // <= that gap on the side from which steps of q_j (each moving by ||q_j alpha|| < delta/(2 pi))
  // approach it; n = start + steps * q_j. a_priori_bound = q_j + q_{j-1} + q_j * ceil(gap/step),
  // from certified upper and lower bounds on the two distances: every run of the construction
  // returns n <= a_priori_bound.
  bool constructed = false;
  std::string reason;            // why no n was constructed or certified, when that happens
  int convergent_index = -1;     // j
  long long q_j = 0, q_prev = 0;
  long long a_priori_bound = 0;
  long long start = 0, steps = 0;
  long long n = 0;               // the witness (constructed, or found by the fallback scan)
  bool n_by_scan = false;        // the witness comes from the exhaustive scan, not the construction
  long long m = 0;
  Interval distance;             // |n g - phi - 2 pi m|
  bool certified = false;        // upper(distance) < lower(delta) and 1 <= n <= N
  // Smallest n: every n' < smallest is certainly NOT within delta (fixed-point scan with a rigorous
  // error bound) and smallest is certainly within (and re-certified in MPFI: smallest_distance).
  bool smallest_known = false;
  long long smallest = 0;
  Interval smallest_distance;
  long long scanned_to = 0;      // the scan covered 1..scanned_to
  std::string smallest_note;     // why the smallest n is not known, when it is not
};

// Builds and certifies a witness n in 1..N for one target (see DensityWitness). scan_limit caps
// every exhaustive scan (the neighbour search, the search for the smallest n, and the fallback
// when the continued fraction cannot be certified far enough, e.g. for a rational g/(2 pi)).
// Works at the precision of g; phi and delta must have been created at that precision.
// Preconditions: g > 0 certainly, 0 < delta < 1 certainly, N >= 1, scan_limit >= 1.
DensityWitness approach_angle(const Interval& g, const Interval& phi, const Interval& delta, long long N, long long scan_limit);

// The `lemma-a2` check. Defaults: g in {1 (g_1), g_119 of gemma-7b = 10000^(-236/256)}, phi in
// {pi/2, pi, 3*pi/2, 0.5}, delta in {1e-3, 1e-6}, N = 10^12; one certificate per (g, delta) with a row per
// target. --frequency, --phase, --tolerance, --max-n each replace one axis of that grid.
std::vector<Certificate> check_lemma_a2(const ClaimOptions& options);

}  // namespace ropecheck::proofs

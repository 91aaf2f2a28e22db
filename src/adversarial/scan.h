// File: scan.h
// The guided search: the shortest context at which a single-distractor head (the fill family,
// sequence.h) is broken by one swap, found by evaluating every distance at once.
//
// Why not sample: with one target and one distractor type, the head's attention at context L with
// the target at distance s is alpha_L(s) = E_t(s) / (E_t(s) + S_L - E_o(s)), E_x(s) = e^{a_x(s)},
// S_L = sum of E_o over distances 0..L (minus the BOS position) plus the BOS term. Hence
//   works at L  iff  max_{s <= L} [E_t(s) eps/(1-eps) + E_o(s)] > S_L,
//   breaks at L iff  min_{s <= L} [E_t(s) (1-b)/b   + E_o(s)] <= S_L,
// (notion attention; argmax uses the top two distractor activations), so ONE pass over distances
// with running extrema decides every context: O(L_max * active chunks), all positions at once.
// a_x(s) is a sum of cosines over the active chunks; its extrema over s are what random sampling
// misses. The per-distance cos/sin are the production kernel's (exactly range-reduced turns,
// error <= 2^-50, sincos_table.h) for the active chunks only; sums and exps in binary64, compared
// in log space so no activation up to 1e300 overflows.
//
// The float answer is a candidate: scan_and_certify re-checks the attack at the found context in
// MPFI (certify.h) and, if asked, certifies that no shorter context breaks. A candidate that does
// not certify is dropped and counted, and the scan resumes after it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "adversarial/certify.h"

namespace ropecheck::adversarial {

struct ScanCandidate {
  bool found = false;
  long long context = 0;         // L (the query at position L)
  long long distance_before = 0; // the target's distance when the head works (max over s)
  long long distance_after = 0;  // the target's distance after the swap (min over s)
  double alpha_before = 0, alpha_after = 0;  // binary64 estimates
  long long distances_evaluated = 0;         // activations computed (per distance, every type)
};

// Returns: the first context in [from_context, max_context] whose float test says "works and
// breaks", or found = false. Preconditions: validate(head); exactly one distractor type;
// 1 <= from_context <= max_context <= 2^31.
ScanCandidate guided_scan(const Head& head, long long max_context, long long from_context = 1);

// Returns: the target distance s in [1, context] (BOS heads: [1, context - 1]) that minimises the
// target's attention in the fill family at this context (binary64 estimate; the argmax notion:
// minimises a_target(s) - max over the other distances of a_distractor). The one swap of
// Theorem 6.1's proof moves the target there. Preconditions: as guided_scan; context >= 2.
long long most_breaking_distance(const Head& head, long long context);

struct ScanResult {
  bool found = false;             // a certified counterexample
  ScanCandidate candidate;        // the float candidate that certified
  Sequence before;                // fill_sequence(head, L, distance_before)
  std::vector<Swap> swaps;        // one transposition: target <-> distractor at distance_after
  AttackCheck check;              // still_breaks
  MinimalityCheck minimal;        // when certify_minimal, and always when bounded_scan found the break
                                  // (it certifies minimality in the same pass): no shorter context breaks
  std::string search;             // how it was found: "bounded scan ..." or "guided scan ..., then MPFI"
  bool none_certified = false;    // not found, and certified: no context in [1, max_context] breaks
  long long dropped = 0;          // float candidates that did not certify
  long long distances_evaluated = 0;
};

// Returns: the shortest context in [1, max_context] at which one swap breaks the head in the fill
// family, certified. First by bounded_scan (binary64 with a proved error budget: the shortest
// context, its minimality and, when nothing breaks, none_certified, in one pass), its attack then
// re-checked by check_attack. When that scan cannot decide, or the head is outside its budget:
// guided_scan, check_attack on its candidate, resuming after a dropped candidate (at most
// max_dropped), and, if asked, certify_no_shorter_break.
ScanResult scan_and_certify(const Head& head, long long max_context, bool certify_minimal, int max_dropped = 8);

}  // namespace ropecheck::adversarial

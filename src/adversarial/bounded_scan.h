// File: bounded_scan.h
// The certified scan in binary64: for every context L in [1, max_context], in ONE pass over
// distances, decides whether the fill family (sequence.h: one target, distractor 0 elsewhere, BOS
// at 0 if any) has a target distance at which the head works and one at which it breaks (the
// per-context test of scan.h), with every comparison proved by an a-priori error budget instead of
// interval arithmetic:
//   activations    |a^ - a| <= E_i                   (detail/float_activations.h)
//   exponentials   e^a within relative r_i of e^^    (numeric/bounded_exp.h, ditto)
//   sums           blocks of <= 256 terms added in binary64 (gamma_255), the block sums added
//                  exactly (numeric/exact_sum.h), the total rounded once per block and once per L
//   thresholds     eps/(1-eps) and (1-b)/b from their MPFI enclosures (detail/thresholds.h)
// so each quantity X (a sum, a running max/min of w(s) or c(s)) is known as X^ with the exact X in
// [X^ (1 - r_X), X^ (1 + r_X)]; bounded_scan.cpp derives every r and the comparisons.
//
// It answers what guided_scan + check_attack + certify_no_shorter_break answer together (the first
// context that breaks, certified minimal), at ~0.1 us per distance for a band of 8 chunks instead
// of ~5 us in MPFI. Its resolution is coarser: a context whose decisive margin is below ~1e-12
// relative is `undecided` here, where the MPFI pass (128 bits) may still decide it; callers then
// fall back to MPFI.
#pragma once

#include <string>

#include "adversarial/head.h"

namespace ropecheck::adversarial {

struct BoundedScan {
  enum class Outcome {
    found,           // `context`: the head certainly works and certainly breaks there; at every
                     // shorter context one of the two is certainly false (so it is the shortest)
    none,            // at every context in [1, max_context] works or breaks is certainly false
    undecided,       // `context`: the first context the budget cannot decide (all earlier: neither)
    not_applicable,  // the head is outside what the budget covers (`reason`)
  };
  Outcome outcome = Outcome::not_applicable;
  long long context = 0;
  long long distance_before = 0;  // found: a target distance at which the head certainly works
  long long distance_after = 0;   // found: one at which it certainly breaks
  long long distances_evaluated = 0;
  double relative_radius = 0;     // the largest r_X any decision used (the budget's total)
  std::string reason;
};

// Contexts below `from_context` are summed over but not decided (a caller that certified them
// another way, e.g. the MPFI pass over a short prefix where every term of the large-activation
// heads is dropped: float_activations.h); outcome none then speaks of [from_context, max_context].
// Preconditions: validate(head); 1 <= from_context <= max_context <= 2^31. Heads with several
// distractor types or the argmax notion, an activation error bound above 2^-20, or thresholds
// outside [2^-100, 2^100] are not_applicable (the MPFI certificates in certify.h handle them).
BoundedScan bounded_scan(const Head& head, long long max_context, long long from_context = 1);

// The contexts the binary64 pass hands to MPFI when it is undecided among the first of them: the
// shortest contexts of a head with large activations, whose few terms may all lie more than 600
// below the common shift. scan_and_certify and certify_no_shorter_break certify [1, this] by the
// MPFI pass (~5 us per context) and resume the binary64 pass after it.
inline constexpr long long kMpfiPrefixContexts = 4096;

std::string outcome_name(BoundedScan::Outcome o);

}  // namespace ropecheck::adversarial

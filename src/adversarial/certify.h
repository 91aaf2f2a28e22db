// File: certify.h
// Certified (MPFI) evaluation of a head on a sequence: the activation of every token, the query's
// attention to the target, and the three-valued decisions "works" and "breaks" (head.h).
//
// Precision: an explicit argument (bits); the caller's ScopedPrecision is not used. Frequencies
// are enclosed by frequencies<Interval> (exact real theta^(-e/D)); the components are binary64,
// exact in MPFI; cos/sin of (distance * g) are MPFI enclosures. Every decision compares endpoints
// (decision.h): an overlap is `undecided`, never a pass. Cost: O(length * active chunks) interval
// sin/cos, i.e. ~1 s per 10^5 positions and chunk at 128 bits.
#pragma once

#include <string>
#include <vector>

#include "adversarial/bounded_scan.h"
#include "adversarial/sequence.h"
#include "certificate/decision.h"
#include "certificate/replay_verdict.h"
#include "numeric/scalar.h"

namespace ropecheck::adversarial {

inline constexpr unsigned kCertifyBits = 128;

struct AttentionEnclosure {
  long long target_position = 0;
  Interval a_target;     // the target's activation
  Interval a_other_max;  // the largest activation of any other token (hull of the maxima)
  Interval alpha;        // the query's attention to the target (softmax over positions 0..L)
  Decision works = Decision::undecided;   // the head's criterion (head.h)
  Decision breaks = Decision::undecided;
};

// Returns: the enclosures for `sequence` under `head` at `bits` of precision.
// Preconditions: validate(head), validate(sequence, head).
AttentionEnclosure certified_attention(const Head& head, const Sequence& sequence, unsigned bits = kCertifyBits);

struct AttackCheck {
  ReplayVerdict verdict = ReplayVerdict::inconclusive;
  AttentionEnclosure before, after;
  unsigned bits = 0;     // the precision that decided (or the last one tried); 53: the binary64 route
  std::string method;    // "binary64 with proved error bounds" or "MPFI at N bits"
  std::string detail;    // one line: alpha before/after with their bounds
};

// Re-checks an attack by value: still_breaks when the head certainly works on `before` and
// certainly breaks on apply_swaps(before, swaps); no_longer_breaks when either is certainly false;
// inconclusive otherwise. Evaluated first in binary64 with a proved error budget
// (detail/bounded_attention.h: enclosures ~1e-13 wide, one pass at ~0.1 us per position), then, if
// that leaves the verdict open or the head is outside the budget, in MPFI from 128 bits, retried
// at 2x the bits up to 1024.
AttackCheck check_attack(const Head& head, const Sequence& before, const std::vector<Swap>& swaps);

// Certifies that NO arrangement in the fill family (sequence.h: one target, distractor 0
// everywhere else, BOS at 0 if the head has one; every permutation of such a sequence that keeps
// BOS and the query in place is again in the family) is both worked on and broken at any context
// L in [1, context - 1]: for every such L either no target distance makes the head work or none
// makes it break. yes = certified for every L; no = some L certainly has both (the first such L
// is returned in `first_break`); undecided otherwise. One O(context) pass with running
// extrema: first in binary64 with a proved error budget (bounded_scan.h), then, for a context
// that budget leaves open or a head outside it, in MPFI at `bits`. Preconditions: context >= 1. Only notion attention with one distractor type is decided (argmax and
// several distractor types return undecided: their arrangement is not a single distance).
struct MinimalityCheck {
  Decision none_shorter = Decision::undecided;
  long long first_break = 0;   // when none_shorter == no: a certified shorter context
  long long undecided_at = 0;  // when undecided: the first context not decided
  std::string method;          // "binary64 with proved error bounds" or "MPFI at N bits"
};
MinimalityCheck certify_no_shorter_break(const Head& head, long long context, unsigned bits = kCertifyBits);
// bounded_scan (bounded_scan.h) over [1, max_context]; when it is undecided at a context <=
// kMpfiPrefixContexts, those contexts are certified by the MPFI pass instead and the binary64 pass
// resumes after them (outcome none/found then covers [1, max_context] together with the prefix).
BoundedScan bounded_scan_with_mpfi_prefix(const Head& head, long long max_context);

// The MPFI pass alone (what certify_no_shorter_break falls back to): the independent route the
// tests compare the binary64 pass with.
MinimalityCheck certify_no_shorter_break_mpfi(const Head& head, long long context, unsigned bits = kCertifyBits);

// The certified reason a head can never be broken: when position_free(head), every type's
// activation is enclosed by the same interval at every distance (cos 0 = 1 and sin 0 = 0 are exact),
// so alpha depends only on the multiset of types and no permutation changes it; works and breaks
// are disjoint (1 - epsilon > break_at), so no sequence is both worked on and, after any
// permutation, broken. `decided` = yes when that argument is certified for this head: the
// activations at distances 0, 1 and `probe` (any distance) have identical endpoints.
struct PositionFreeCertificate {
  Decision holds = Decision::undecided;
  std::vector<Interval> activation;  // per type, in the order target, d0, d1, ..., bos
  std::string reason;                // one line for the fuzz summary and the docs
};
PositionFreeCertificate certify_position_free(const Head& head, long long probe, unsigned bits = kCertifyBits);

}  // namespace ropecheck::adversarial

// File: prop-5.2.h
// Proposition 5.2 (NoPE cannot make a diagonal or previous-token head): on a sequence whose last
// token repeats the one before it, [x_bos, ..., x, x], a NoPE head has k_n = k_(n-1), hence
// a_(n,n) = a_(n,n-1), alpha_(n,n) = alpha_(n,n-1) < 1/2, and neither alpha_(n,n) > 1 - eps nor
// alpha_(n,n-1) > 1 - eps can hold for eps <= 1/2. Certified on given heads with the project's causal
// attention; with RoPE (Theorem 5.3's constructions) the same sequence can exceed 1/2.
#pragma once

#include <vector>

#include "claims/claim.h"
#include "rotation/rotation.h"

namespace ropecheck::proofs {

// One attention head in isolation: q = W_Q x, k = W_K x (W_Q, W_K of size d x m: head dimension
// d = the spectrum's dim, model dimension m), activations a_(i,j) = q_i^T R^(j-i) k_j (activation.h).
struct AttentionHead {
  Matrix<Interval> W_Q;
  Matrix<Interval> W_K;
};

// Certified attention of the last query on [prefix..., x, x] (n = prefix.size() + 2 tokens at
// positions 0..n-1). The paper's 1-based alpha_(n,n) and alpha_(n,n-1) are `alpha_last`, `alpha_prev`.
struct RepeatedTokenAttention {
  long long n = 0;
  Vector<Interval> activations; // a_(n,1..n), from causal_activations
  Vector<Interval> row;         // alpha_(n,1..n), from causal_attention of those
  Interval a_last, a_prev;      // a_(n,n), a_(n,n-1)
  Interval alpha_last, alpha_prev;
  // The proof's closed form, valid when a_(n,n-1) = a_(n,n): alpha_(n,n) = 1/(2 + S) with
  // S = sum over k <= n-2 of exp(a_(n,k) - a_(n,n)), and 1/2 - alpha_(n,n) = S/(2(2 + S)). Computed only
  // when equal_by_construction (otherwise left at 0 and not used).
  Interval closed_form;
  Interval closed_form_margin;
  // Every frequency of the encoding is exactly 0 (NoPE): R^(j-i) = I, and since the last two tokens
  // are the same x, k_n = k_(n-1) and a_(n,n) = a_(n,n-1) as real numbers (a symbolic fact, not a
  // numerical comparison).
  bool equal_by_construction = false;
  // The computed enclosures of alpha_last and alpha_prev have identical endpoints: the arithmetic
  // saw identical inputs, as the symbolic argument says it must.
  bool enclosures_identical = false;
  bool routes_agree = false;    // closed_form overlaps alpha_last (NoPE only; true otherwise)
  bool at_most_half = false;    // alpha_last = alpha_prev <= 1/2 certified (upper(closed_form) <= 1/2)
  bool below_half = false;      // both < 1/2 certified: upper(alpha_last), upper(alpha_prev) < 1/2, or
                                // (NoPE) lower(closed_form_margin) > 0
  bool last_above_half = false;  // lower(alpha_last) > 1/2: a diagonal-looking last row
  bool prev_above_half = false;  // lower(alpha_prev) > 1/2: a previous-token-looking last row

  // Returns: the NoPE statement is certified for this head and sequence.
  bool certified_nope() const { return equal_by_construction && enclosures_identical && routes_agree && below_half; }
};

// Returns: the certified last row of the head's causal attention on [prefix..., x, x] with the
// frequencies g (one per pair; all exactly 0 for NoPE), at the current precision.
// Preconditions: prefix non-empty (the BOS at least); W_Q, W_K both d x m with d = 2 g.size();
// every token of size m. Throws std::invalid_argument otherwise.
RepeatedTokenAttention repeated_token_attention(const AttentionHead& head, const std::vector<Vector<Interval>>& prefix,
                                                const Vector<Interval>& x, const std::vector<Interval>& g);

// The `prop-5.2` check: three certificates, each on the precision ladder.
//   constructed NoPE heads (d = the spectrum's dim, default gemma-7b's 256): Theorem 5.3's diagonal
//     and previous-token weights with NoPE, W_Q = W_K = 16 I (as diagonal as NoPE gets), and a head
//     that attends to the BOS as hard as it can;
//   seeded random NoPE heads (--trials, default 200; d = m = 16 unless --dim/--config is given;
//     sequence length n uniform in [3, --max-n], default 8; --seed);
//   the contrast: Theorem 5.3's two constructions under RoPE (default gemma-7b spectrum) on
//     [bos, x, x], where alpha_(3,3) resp. alpha_(3,2) is certified > 1/2.
std::vector<Certificate> check_prop_5_2(const ClaimOptions& options);

}  // namespace ropecheck::proofs

// File: semantic-channel.h
// The mathematics of Theorem 6.1's semantic channels (statement in thm-6.1.md), shared by the
// `thm-6.1` check (thm-6.1.h), Table 1's semantic cells, the report's adversarial section and the
// adversarial properties: a single RoPE frequency g (d = 2) carrying a head that attends to a target
// token, the shortest context at which a token swap breaks it, Lemma A.3's context bound, and the
// paper's own apostrophe-head channel (gemma-7b, pair 119, Appendix E.1) with a sink token.
//
// The single-frequency pieces (channel_activation, TwoTypeChannel, SinkChannel) are meant to be
// reused by multi-frequency checks: a multi-pair head is a sum of such channels.
#pragma once

#include <string>
#include <vector>

#include "attention/activation.h"

namespace ropecheck::proofs {

// Returns: the activation in one rotating pair of frequency g of a key s >= 0 tokens before the
// query, q^T rho(g)^(-s) k (the paper's eq. 3 with j - i = -s), from the pair products of q and k
// (attention/activation.h): cos(s g) u - sin(s g) w. Enclosed in MPFI.
Interval channel_activation(const PairProducts<Interval>& qk, const Interval& g, long long s);

// The proof's sequence in its simplest form: positions 0..L, the query token at L; ONE target
// token at distance s (1 <= s <= L, position L - s) and the same distractor token at every other
// position, the query's own position (distance 0) included. `target` and `other` are the pair
// products of the query with the target key and with the distractor key.
// Because every distractor is the same token, the target's attention depends only on L and s:
//   alpha_L(s) = e^{a_t(s)} / (e^{a_t(s)} + sum_{s' in 0..L, s' != s} e^{a_o(s')}),
// and a transposition (target at s) <-> (distractor at s') turns alpha_L(s) into alpha_L(s').
struct TwoTypeChannel {
  Interval g;
  PairProducts<Interval> target;
  PairProducts<Interval> other;
};

// Returns: the L + 1 activations of the query at position L, indexed by key position 0..L, with
// the target at distance s. Preconditions: 1 <= s <= L.
Vector<Interval> two_type_activations(const TwoTypeChannel& ch, long long L, long long s);

// Returns: alpha_L(s), the attention of the query at L to the target at distance s, from all L + 1
// activations and the library softmax (O(L): the reference every scan result is checked against).
Interval attention_to(const TwoTypeChannel& ch, long long L, long long s);

// The shortest context with a breaking swap, and the swap. A swap breaks the target at context L
// when some s' in 1..L has alpha_L(s') <= 1/2, i.e. e^{a_t(s')} + e^{a_o(s')} <= S_L with
// S_L = sum_{s=0..L} e^{a_o(s)} (no subtraction: no cancellation in intervals). S_L grows with L
// and the candidates s' only accumulate, so once a break exists it exists at every longer context:
// L_break is certified by a certified break at L_break and a certified absence at every shorter
// context (the scan certifies each L, not only L_break - 1).
struct BreakingSwap {
  bool decided = false;        // every context up to L (or max_L) was decided, and the break confirmed
  bool found = false;          // a break was certified at L <= max_L
  long long L = 0;             // L_break
  bool attended = false;       // some s0 has alpha_L(s0) > 1 - epsilon certified (by attention_to)
  long long s_before = 0;      // that s0: the target's distance before the swap
  long long s_after = 0;       // s': the target's distance after the swap (the distractor moves to s0)
  Interval alpha_before;       // alpha_L(s0), certified > 1 - epsilon when attended
  Interval alpha_after;        // alpha_L(s'), certified <= 1/2 when found
  Interval a_target_before;    // a_t(s0): its sign is the proof's case
  Interval a_target_after;     // a_t(s')
  Interval a_other_max_after;  // the largest distractor activation after the swap
  bool lemma_a3 = false;       // a_other_max_after > a_target_after certified: Lemma A.3 alone explains the break
  std::string note;
};
BreakingSwap shortest_breaking_context(const TwoTypeChannel& ch, const Interval& epsilon, long long max_L);

// Lemma A.3's context bound for a single rotating pair of frequency g, 0 < g < pi: at every context
// L >= lemma_a3_context_bound(g), in the fill family of BreakingSwap (one target, the same
// distractor everywhere else, query at distance 0), some target distance s' in 1..L has
// alpha_L(s') < 1/2, whatever the query and key vectors of the pair are (not both products zero).
//
// Proof. In one pair, a_x(s) = A_x cos(s g - phi_x) with A_x >= 0 (the pair products u, w of
// channel_activation: A_x = sqrt(u^2 + w^2)), A_t + A_o > 0. Let T = ceil(2 pi / g) + 1, so
// (T - 1) g >= 2 pi. The T angles s g of T consecutive distances are spaced by g and span at least
// a full turn, so every angle is within g/2 (mod 2 pi) of one of them. Distances 1..T therefore
// hold an s' with |s' g - (phi_t + pi)| <= g/2 (mod 2 pi), i.e. a_t(s') <= -A_t cos(g/2), and the
// disjoint distances T+1..2T hold an s'' != s' with a_o(s'') >= A_o cos(g/2). As g/2 < pi/2,
// cos(g/2) > 0, hence a_o(s'') >= a_t(s'): the distractor at s'' is at least as active as the
// target at s'. With L >= 2T, both are in 0..L, and Lemma A.3 gives alpha_L(s') <= 1/2 (strictly
// below: the query's own token at distance 0 adds a positive term to the denominator). The
// swap target@s0 <-> distractor@s' makes it so from any arrangement.
// Returns: 2 * ceil(2 pi / g) + 2, with 2 pi / g enclosed in MPFI (at the current precision) and the
// ceiling taken of its upper endpoint, so the returned bound is never below the exact one.
// Throws InputError("g", "an interval certainly inside (0, pi)", ...) when g is not certainly in
// (0, pi), or when the bound exceeds 2^62.
long long lemma_a3_context_bound(const Interval& g);

// The apostrophe head's situation: a sink token (BOS) at position 0 that never moves, the same
// distractor token at positions 1..L, the query (a distractor) at L. The query's attention to the
// sink is alpha_L = e^{a_b(L)} / (e^{a_b(L)} + sum_{s=0..L-1} e^{a_o(s)}); no swap is needed, the
// rotation alone moves both activations as L grows.
struct SinkChannel {
  Interval g;
  PairProducts<Interval> sink;   // query . sink key
  PairProducts<Interval> other;  // query . distractor key
};

// First contexts at which the sink loses its grip. For point inputs first_sharp_lo == first_sharp_hi
// (when decided): the first L with alpha_L <= 1 - epsilon, every shorter context certified above;
// likewise for 1/2. For inputs that are boxes (interval vectors), [lo, hi] bounds the first L over
// every point of the box: below lo alpha_L > threshold for all of them, at hi alpha_L <= threshold
// for all of them. hi = 0 means not reached by max_L.
struct SinkBreak {
  long long first_sharp_lo = 0, first_sharp_hi = 0;  // threshold 1 - epsilon
  long long first_half_lo = 0, first_half_hi = 0;    // threshold 1/2
  long long context = 0;
  Interval one_minus_alpha_at_context;                // 1 - alpha_context = S / (e^{a_b} + S)
  bool decided() const { return first_sharp_lo == first_sharp_hi && first_half_lo == first_half_hi && first_half_hi > 0; }
};
SinkBreak sink_channel_break(const SinkChannel& ch, const Interval& epsilon, long long context, long long max_L);

// Appendix E.1, gemma-7b pair 119 of the apostrophe head, as printed (one decimal).
inline constexpr const char* kApostropheQuery[2] = {"-4.1", "11.3"};     // q_notBOS
inline constexpr const char* kApostropheSinkKey[2] = {"-2.5", "1.3"};    // k_BOS
inline constexpr const char* kApostropheOtherKey[2] = {"11.2", "-3.5"};  // k_notBOS

// Returns: the apostrophe head's channel of Appendix E.1 (gemma-7b pair 119) at frequency g, with
// the vectors exactly as printed: query q_notBOS = (-4.1, 11.3), sink key k_BOS = (-2.5, 1.3),
// distractor key k_notBOS = (11.2, -3.5), enclosed at the current precision.
SinkChannel apostrophe_channel(const Interval& g);

// Returns: the same channel over the rounding box of the printed vectors: every component x
// widened to the interval [x - h, x + h], h the decimal `halfwidth` (e.g. "0.05" for one printed
// decimal). The pair products of interval vectors lose the correlation between u and w, so the
// channel's activations are outer bounds of the spread over the box.
SinkChannel apostrophe_channel_box(const Interval& g, const std::string& halfwidth);

}  // namespace ropecheck::proofs

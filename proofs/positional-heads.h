// File: positional-heads.h
// The mathematics of Theorem 5.3's positional heads (Proposition 5.3 in Appendix A.2; statement in
// thm-5.3.md), shared by the `thm-5.3` check (thm-5.3.h), Table 1's positional cells, the report's
// minimal-norm figure and the finite-precision verdicts. RoPE can build a diagonal head
// (q_i = k_j = psi) and a previous-token head (q_i = psi, k_j = R psi). For a given epsilon and size
// N this computes the smallest squared norm ||psi||^2 = s that makes alpha_{i,target} > 1 - epsilon
// for every i <= N, as a certified bracket [s_lo, s_hi].
//
// Indexing (Definition 5.1, "for all i <= N"): positions 1..N, the first one (BOS) a token like the
// others that carries the same construction; row i attends to the keys j = 1..i. The target of row
// i is j = i (diagonal, rows 1..N) or j = i - 1 (previous-token, rows 2..N).
//
// The reduction. With psi's squared norm s spread over chunks with weights w_k = ||psi^(k)||^2 / s
// (sum w_k = 1), a_{i,j} = s c(i - j) for the diagonal and a_{i,j} = s c(i - 1 - j) for the
// previous-token head, where c(m) = sum_k w_k cos(m g_k) is even in m and c(0) = 1. So
//   alpha_{i,target} = 1 / (1 + T_i(s)),  T_i(s) = sum over offsets m of row i of exp(-s (1 - c(m))),
// with offsets m = 1..i-1 (diagonal) or m = 1 (the key j = i) and m = 1..i-2 (previous-token).
// Every row's offsets are a sub-multiset of row N's, and each term is positive, so T_i <= T_N:
// row N is the hardest and "alpha > 1 - eps for every i <= N" is exactly T_N(s) < eps / (1 - eps).
// 1 - c(m) = sum_k 2 w_k sin^2(m g_k / 2) >= 0, so T_N is non-increasing in s: the working s form
// a ray (s*, inf) (or [s*, inf)), and a failing s_lo and a working s_hi bracket s*.
#pragma once

#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "attention/softmax.h"
#include "spectrum/spectrum.h"

namespace ropecheck::proofs {

enum class PositionalHead { diagonal, previous_token };

// Returns: "diagonal" or "previous-token".
std::string head_name(PositionalHead head);

// Returns: weights w_k (one per pair of `spectrum`) equal to 1/K on the K fastest rotating pairs
// (largest g_k; ties by index) and 0 elsewhere, enclosed at the current precision. Unrotated pairs
// (g = 0: p-RoPE's removed pairs, NoPE) never get weight: they add cos(0) = 1 to c(m) for every m,
// so norm put there raises every activation equally and buys no sharpness.
// Throws std::invalid_argument unless 1 <= K <= spectrum.rotated_pairs().
std::vector<Interval> fastest_pairs_weights(const Spectrum& spectrum, int K);

// Returns: gaps[m] enclosing 1 - c(m) = sum_k 2 w_k sin^2(m g_k / 2), m = 0..M (gaps[0] = 0), at the
// current precision. The sin^2 form has no cancellation near a return (1 - cos would lose all digits
// at 1 - c ~ 1e-10), and sin(m h) = sin(aBh) cos(bh) + cos(aBh) sin(bh) with m = aB + b, B ~ sqrt(M)
// costs 2 sqrt(M) interval sin/cos per pair plus 2 interval products per m, instead of M sin/cos
// (rotation/angle_sweep.h).
// Pairs whose weight is exactly 0 are skipped. Preconditions (std::invalid_argument otherwise):
// g.size() == weights.size(); every weight certainly >= 0; 0 <= M < 2^40.
std::vector<Interval> alignment_gaps(const std::vector<Interval>& g, const std::vector<Interval>& weights, long long M);

// Returns: for each K of Ks (increasing), alignment_gaps(g, fastest_pairs_weights(spectrum, K), M),
// sharing the per-pair work: the pairs are added fastest first and each table is a snapshot.
// Throws std::invalid_argument unless every K is in [1, rotated_pairs] and Ks increases.
std::vector<std::vector<Interval>> even_spread_gaps(const Spectrum& spectrum, const std::vector<int>& Ks, long long M);

// Returns: an enclosure of T_i(s), the off-target softmax mass of row i relative to the target
// (every term summed, no pruning), so that alpha_{i,target} = 1 / (1 + T_i(s)).
// Preconditions: i >= 1 (diagonal) or i >= 2 (previous-token); gaps.size() >= i; s >= 0.
Interval off_target_mass(const std::vector<Interval>& gaps, PositionalHead head, long long i, const Interval& s);

// Returns: an enclosure of alpha_{i,target} = 1 / (1 + off_target_mass(gaps, head, i, s)).
Interval target_attention(const std::vector<Interval>& gaps, PositionalHead head, long long i, const Interval& s);

// A certified bracket of s* = inf { s : alpha_{i,target} > 1 - eps for every i <= N }.
struct NormBracket {
  bool certified = false;  // s_lo, s_hi below are certified; otherwise see `note`
  Real s_lo;               // row N certainly has alpha <= 1 - eps here: s* >= s_lo
  Real s_hi;               // every row i <= N certainly has alpha > 1 - eps here: s* <= s_hi
  Interval attention_at_lo;  // enclosure of alpha_{N,target}(s_lo)
  Interval attention_at_hi;  // enclosure of alpha_{N,target}(s_hi)
  long long min_gap_offset = 0;  // the offset m of row N whose lower bound of 1 - c(m) is smallest
  Real min_gap_lower;            // rigorous bounds of min over row N's offsets of 1 - c(m)
  Real min_gap_upper;
  int evaluations = 0;  // certified evaluations of T_N
  std::string note;     // why not certified
};

// Returns: the bracket for row N of `head`, s_hi / s_lo - 1 <= relative_tolerance when certified.
// Method: binary64 Newton steps on ln T_N(s) = ln t over the gaps' midpoints propose s_c; T_N is
// then enclosed at s_c (1 -+ tol/3) in MPFI (widened or bisected further while the guess is off).
// Terms with s (1 - c(m)) certainly >= X are bounded together by count e^-X, X chosen so that this
// tail is ~1e-3 of what separates T_N from t at the bracket ends (see MassEvaluator). Cost: one
// interval product per offset plus one exponential per offset below the cutoff, per evaluation;
// usually 2 evaluations.
// Not certified when some 1 - c(m) of row N is not certainly > 0 (a true return: no finite s works,
// since that term alone is e^0 = 1 >= t) or an evaluation stays undecided at this precision.
// Preconditions (std::invalid_argument): N >= 2; gaps.size() >= N; 0 < eps < 1/2 certainly;
// relative_tolerance > 0.
NormBracket minimal_norm(const std::vector<Interval>& gaps, PositionalHead head, long long N, const Interval& epsilon,
                         double relative_tolerance);

// Returns: minimal_norm on alignment_gaps(frequencies of spectrum, weights, N) (any spectrum: p-RoPE,
// scaled, ...; weights as in alignment_gaps).
NormBracket minimal_norm(const Spectrum& spectrum, const std::vector<Interval>& weights, PositionalHead head, long long N,
                         const Interval& epsilon, double relative_tolerance);

// Returns: psi with chunk k = (sqrt(w_k s), 0): ||psi^(k)||^2 = w_k s. Preconditions: w_k, s >= 0.
template <Scalar T>
Vector<T> construction_query(const std::vector<T>& weights, const T& s) {
  Vector<T> psi(2 * static_cast<Eigen::Index>(weights.size()));
  for (size_t k = 0; k < weights.size(); ++k) {
    if constexpr (std::is_floating_point_v<T>) psi[2 * k] = std::sqrt(weights[k] * s);
    else psi[2 * k] = T(sqrt(T(weights[k] * s)));
    psi[2 * k + 1] = T(0);
  }
  return psi;
}

// Returns: the n x n causal attention matrix of the construction on explicit vectors, through
// causal_activations and causal_attention (the reference the reduction is tested against): every
// query is psi, every key psi (diagonal) or R psi (previous-token), positions 1..n. Row/column i-1
// of the matrix is position i. Cost O(n^2 d): for small n.
template <Scalar T>
Matrix<T> construction_attention(const Vector<T>& psi, const std::vector<T>& g, PositionalHead head, long long n) {
  const Vector<T> key = head == PositionalHead::diagonal ? psi : rotate(psi, 1, g);
  Matrix<T> Q(n, psi.size()), K(n, psi.size());
  std::vector<std::int64_t> positions(static_cast<size_t>(n));
  for (long long i = 0; i < n; ++i) {
    Q.row(i) = psi.transpose();
    K.row(i) = key.transpose();
    positions[static_cast<size_t>(i)] = i + 1;
  }
  return causal_attention(causal_activations(Q, K, positions, g));
}

}  // namespace ropecheck::proofs

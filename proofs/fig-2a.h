// File: fig-2a.h
// Figure 2(a): RoPE on constant all-ones queries and keys, the one setting where activations
// "decay" with distance. For q = k = (1, ..., 1), each chunk gives (1,1) rho(r g_k) (1,1)^T =
// 2 cos(r g_k), so q^T R^r k = 2 sum_k cos(r g_k) = trace(R^r), and the normalised activation is
//   f(r) = (1/d) q^T R^r k = (2/d) sum_k cos(r g_k),   f(0) = 1.
#pragma once

#include <vector>

#include "claims/claim.h"

namespace ropecheck::proofs {

// Returns: enclosures of f(r) for r = 0..r_max, f(r) = (1/P) sum_{k<P} cos(r g_k) with P = g.size()
// pairs (= (2/d) sum_k cos(r g_k)), for every real g_k in its enclosure; at the current precision.
// Unrotated pairs (g_k = 0) contribute exactly 1/P each. Cost: r_max * P interval products
// (rotation/angle_sweep.h). Preconditions: g non-empty, 0 <= r_max < 2^52.
std::vector<Interval> all_ones_activation(const std::vector<Interval>& g, long long r_max);

// The `fig-2a` check: one certificate per head dimension, default d = 128 and d = 256 at theta 1e4
// (a --config or --dim gives one certificate for that spectrum), r = 0..N with N = --max-n
// (default 5000, at least 50). Certifies f(0) = 1 > f(r) for 1 <= r <= N, the first r where f is
// negative, the maximum over [N/5, N], a decay on average (mean over [0, N/50] > mean over [N/5, N])
// and non-monotonicity (certified steps f(r+1) > f(r)). Reads spectrum, precision_bits,
// max_precision_bits, max_n.
std::vector<Certificate> check_fig_2a(const ClaimOptions& options);

}  // namespace ropecheck::proofs

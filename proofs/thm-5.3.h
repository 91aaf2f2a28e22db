// File: thm-5.3.h
// Theorem 5.3 (Proposition 5.3 in Appendix A.2; statement in thm-5.3.md): RoPE can build a diagonal
// head (q_i = k_j = psi) and a previous-token head (q_i = psi, k_j = R psi). The check certifies the
// minimal squared norm ||psi||^2 that makes alpha_{i,target} > 1 - epsilon for every i <= N; the
// reduction, the gap tables and the bracket search are in positional-heads.h.
#pragma once

#include <vector>

#include "claims/claim.h"

namespace ropecheck::proofs {

// The `thm-5.3` check. Default: gemma-7b and llama-3.1-8b, both heads, norm spread evenly over the
// K = 1, 16 and all fastest rotating pairs, N = min(context, 8192) for every K plus N = context for
// K <= 16, epsilon in {0.1, 0.01}; and a single-frequency sweep (g = --frequency, default 1) over N
// at the near-returns of n g to 2 pi Z. Reads options.spectrum, epsilon, max_n (N for every row;
// the sweep's largest N), frequency, tolerance (relative bracket width, default 1e-6),
// precision_bits and max_precision_bits.
std::vector<Certificate> check_thm_5_3(const ClaimOptions& options);

}  // namespace ropecheck::proofs

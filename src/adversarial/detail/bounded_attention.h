// File: detail/bounded_attention.h
// The enclosures of certified_attention (certify.h) computed in binary64 with a proved error
// budget instead of MPFI: one pass over distances, per position the kernel's sin/cos of the active
// chunks, the activation of that position's type (within E_i, float_activations.h) and its
// bounded_exp after the common shift e^-A (within r_i, or dropped below e^-599: float_activations.h);
// per sequence and type the exact sum (numeric/exact_sum.h) of those exponentials, so the only
// summation error is none, and the count of dropped terms, each adding [0, 1e-260]. The results are MPFI intervals built from
// the binary64 values and their radii:
//   a_target   = [a^ - E_t, a^ + E_t]
//   a_other_max= [max a^ - E, max a^ + E], E = the largest E_i of the types present
//   alpha      = e^_t [1 - r_t, 1 + r_t] / sum over types of ((exact sum_t) [1 - r_t, 1 + r_t]
//                + [0, dropped_t 1e-260]) (the factor e^-A cancels),
//                intersected with [0, 1] (alpha is a share of the attention)
// Widths are ~1e-13 relative (MPFI at 128 bits: ~1e-38), at ~0.1 us per position instead of ~5 us.
// Decisions (works/breaks) are left to the caller (certify.cpp judges both kinds alike).
#pragma once

#include <optional>
#include <vector>

#include "adversarial/certify.h"

namespace ropecheck::adversarial::detail {

// Returns: the enclosures (decisions undecided) for sequences of one length, MPFI values at
// `bits`; nullopt when the head is outside the budget (FloatActivations::exp_applicable).
// Preconditions: as certified_attention for each sequence; all of the same length.
std::optional<std::vector<AttentionEnclosure>> bounded_attention(const Head& head, const std::vector<Sequence>& seqs, unsigned bits);

}  // namespace ropecheck::adversarial::detail

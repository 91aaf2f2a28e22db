// File: thm-6.1.h
// Theorem 6.1 (semantic channels are not robust; statement in thm-6.1.md): with a single RoPE
// frequency g (d = 2), once the context is long enough, a head that attends to a target token with
// alpha > 1 - epsilon can be made to attend to it with alpha <= 1/2 by swapping tokens. Checked
// constructively on single-frequency channels (semantic-channel.h): the shortest context at which a
// breaking swap exists, the paper's own apostrophe-head channel (gemma-7b, pair 119, Appendix E.1),
// and the p-RoPE control (g = 0).
#pragma once

#include <vector>

#include "claims/claim.h"

namespace ropecheck::proofs {

// The `thm-6.1` check. Certificates: (1) the shortest breaking context for the channel family
// a_t(s) = 24.94 cos(s g - phi), a_o(s) = -85.47 cos(s g - phi) over a grid of phases phi, for
// g = g_119 of gemma-7b and g = 1; (2) the apostrophe channel (Appendix E.1 vectors) under RoPE;
// (3) its stability within gemma-7b's 8192 context; (4) the same channel under p-RoPE (g = 0).
// Reads --epsilon (default 0.1), --frequency, --phase, --max-n, --seed.
std::vector<Certificate> check_thm_6_1(const ClaimOptions& options);

}  // namespace ropecheck::proofs

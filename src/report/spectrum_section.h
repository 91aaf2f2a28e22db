// File: spectrum_section.h
// The report's spectrum and positional-head figures. The section orchestrates: every number comes
// from spectrum/ or proofs/ (certified where a number is a claim's):
//   spectrum-gemma-7b, spectrum-llama-3.1-8b: for each pair k, the number of full rotations
//     g_k * C / (2 pi) over the model's context C (8192, 131072 with llama3 scaling) on a log
//     axis, the line "one rotation" (below it a pair never turns fully: a semantic pair, the one
//     definition of spectrum/rotations.h that `ropecheck spectrum` also counts), and the pairs
//     p-RoPE 0.25 and 0.75 keep and remove (shaded bands);
//   thm-5.3-minimal-norm: the certified minimal ||psi||^2 (proofs/positional-heads.h minimal_norm
//     brackets, both ends plotted) against N (2 .. 8192, log x) for gemma-7b's diagonal and
//     previous-token heads with the norm on the 16 fastest pairs and on all pairs, epsilon 0.1;
//   roformer-bound: RoFormer's decay bound B(r) and its envelope counts (roformer-decay.h) and
//     |a(r)| of all-ones q = k (fig-2a.h) for d = 128, theta = 1e4, r = 0..(smoke 256, else 4096):
//     the bound decays, the activation itself does not have to.
// Sizes per mode: smoke uses N <= 256 and fewer points.
#pragma once

#include "report/section.h"

namespace ropecheck::report {

// Returns: key "spectrum"; data with the per-pair table (g_k, rotations, kept by p-RoPE 0.25/0.75)
// and the brackets; figures as above; no summary rows (the claims section certifies the claims).
SectionResult spectrum_section(const Context& context);

// Returns: what the section's data holds under spectra/<config> (the per-pair table, the semantic
// pairs of spectrum/rotations.h, the p-RoPE bands) for any named configuration (spectrum/config.h),
// at the section's precision. The section itself shows gemma-7b and llama-3.1-8b; this lets a caller
// (the tests) compare the section with `ropecheck spectrum` on every configuration.
// Throws InputError("--config", ...) for an unknown name.
nlohmann::json spectrum_data(const std::string& config);

}  // namespace ropecheck::report

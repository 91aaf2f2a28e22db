// File: models_section.h
// The report's models section: do real models' semantic channels survive their own context? For
// each zoo model and layer type with at least 8 rotating pairs (adversarial/model_bands.h, the
// same rows as `ropecheck channels`): its span, rotating and semantic pairs (spectrum/rotations.h's
// one definition, over the span; pass-through channels listed apart), the paper's channel over the
// 8 lowest rotating pairs with its certified shortest breaking context (minimal, or certified not
// to break up to the searched length) against the span, the p-RoPE 0.75 control, and Theorem
// 5.3's certified minimal ||psi||^2 for a diagonal head over the 16 fastest rotating pairs at N = the span
// (epsilon 0.1; the rotation's norm: with an attention factor a the model's vectors need s/a^2).
// Figure channels-break-vs-span: shortest breaking context against span, log-log, with the
// diagonal "breaks within its own span".
// Sizes per mode: smoke: llama-3.1-8b, glm-4-9b and gemma-3-27b, searches to 2^22, Theorem 5.3 at
// N = min(span, 4096); quick: every zoo model, searches to 2^25, N = the span; full: searches to 2^28.
#pragma once

#include "report/section.h"

namespace ropecheck::report {

// Returns: key "models"; summary row "models-llama-3.1-channel" (the paper, Section 6: Llama 3.1
// raised theta so its low-frequency channels last its 128k context; expected holds: no certified
// break within 131072 tokens); data with one row per model and layer type; the figure above.
SectionResult models_section(const Context& context);

}  // namespace ropecheck::report

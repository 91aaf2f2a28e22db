// File: usage_section.h
// The report's usage section: the paper's measurements of trained models (Sections 4-5, Figs. 3-7)
// run on the project's own learned model (examples/toy_model: a small Llama-style RoPE decoder
// trained on an induction task, whose captures are committed with their provenance), with the
// theorems applied to the heads found (usage/usage.h), set row by row beside what the paper found
// on Gemma 7B, and the toy Table 2 (examples/toy_model/results) beside the paper's Table 2.
// Everything here is a measurement on the committed capture (stated with its sample size), except
// the breaking distances, certified for the captured vectors. Same content in every mode, except
// the Gaussian null's size: 50 captures per analysed capture, 4 in the smoke report (CI's size).
#pragma once

#include "report/section.h"

namespace ropecheck::report {

// Returns: key "usage"; no summary rows (measurements are not claims' verdicts); data: the
// ropecheck-usage/2 document of the capture; the usage figures (report/usage_figures.h). When the
// example's files are absent (a source tree without examples/), `missing` says so.
SectionResult usage_section(const Context& context);

}  // namespace ropecheck::report

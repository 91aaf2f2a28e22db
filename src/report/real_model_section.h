// File: real_model_section.h
// The report's real-model section: the paper's Sections 4-5 measured on a real trained language
// model (SmolLM2-135M), as `scripts/real-model` wrote it and the repository commits it
// (reports/real-model/: real-model.md, real-model.json, figures/). The model's forward passes need
// PyPI's model tooling, which `ropecheck report` never needs, so the section is included as
// committed, not recomputed: its data are the committed JSON's headline numbers, its figures the
// committed files (copied byte for byte), and its text says when and how it was made.
#pragma once

#include "report/section.h"

namespace ropecheck::report {

// Returns: key "real_model"; no summary rows (measurements, not claims' verdicts). When
// reports/real-model/ is absent from the source tree, the section says how to make it; that is not
// `missing` (the default report needs no model).
SectionResult real_model_section(const Context& context);

}  // namespace ropecheck::report

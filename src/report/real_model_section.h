// File: real_model_section.h
// The report's real-model section: the paper's Sections 4-5 measured on real trained language
// models, as `scripts/real-model` wrote them into a directory (DIR/index.json: the models in order;
// DIR/<model>/section.md, run.json, figures/; DIR/comparison.md, figures/), which `ropecheck
// report --real-model DIR` includes as it is (the repository commits the reference run as
// reports/real-model/; scripts/run passes it). The models' forward passes need PyPI's model
// tooling, which `ropecheck report` never needs, so the section is included, not recomputed: its
// data are each run.json's headline numbers, its figures the directory's files (copied byte for
// byte), its text says when and how it was made.
#pragma once

#include "report/section.h"

namespace ropecheck::report {

// Returns: key "real_model"; no summary rows (measurements, not claims' verdicts). Without a
// directory (context.real_model_dir empty) the section says how to make and include one; that is
// not `missing` (the default report needs no model).
SectionResult real_model_section(const Context& context);

}  // namespace ropecheck::report

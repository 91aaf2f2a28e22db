// File: montecarlo_section.h
// The report's Monte Carlo part: fig2a (d = 256 and 128), fig2b, fig9 and fig8 (constant and
// Gaussian, L = n, 2n, 4n, 8n) through montecarlo/simulate.h and analysis.h, seeded by the Context
// seed, on Context threads (results identical for any count). Trials: smoke 64 and distances
// 0..200 (fig8 n = 100); quick the CLI defaults for fig2a/fig9/fig8 and fig2b; full 4x the
// default trials. Each experiment: summary row "mc-<name>", evidence/montecarlo/<name>.json (the
// analysis), figures fig2a, fig2b, fig8-ones, fig8-gaussian, fig9 (mean with its 99.9% band).
#pragma once

#include "report/section.h"

namespace ropecheck::report {

SectionResult montecarlo_section(const Context& context);

}  // namespace ropecheck::report

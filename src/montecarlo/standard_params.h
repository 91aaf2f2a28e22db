// File: standard_params.h
// The parameters of a Monte Carlo experiment as `ropecheck montecarlo` and `ropecheck report`
// build them from a few choices: one place, so that the report's fig2b is byte for byte the CLI's
// `montecarlo --experiment fig2b --seed S` (and so its partials merge with a CLI shard's).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "montecarlo/experiment.h"
#include "spectrum/request.h"

namespace ropecheck::montecarlo {

struct ExperimentChoice {
  Experiment experiment = Experiment::fig2b;
  Dtype arith = Dtype::f64;
  std::uint64_t seed = 1;
  SpectrumRequest spectrum;                 // neither config nor dim: the paper's d = 256
  std::optional<std::int64_t> trials;       // default: 1 for fig2a, else default_trials(d)
  std::optional<std::int64_t> max_distance; // default 5000 (not fig8)
  std::optional<std::int64_t> fig8_n;       // fig8: default 1000
  std::vector<std::int64_t> fig8_L;         // fig8: default n, 2n, 4n, 8n
  std::vector<Vectors> fig8_vectors;        // fig8: default {ones, gaussian}
  std::int64_t base_position = 0;           // f32/bf16 only
};

// Returns: the Params: series labels, stream codes (experiment * 16 + series index), trials and
// distances as the CLI documents them. Range checks are validate()'s (simulate.h), except those
// that need the experiment: InputError("--trials") when fig2a gets trials != 1,
// InputError("--base-position") with f64, InputError("--max-distance") for fig8,
// InputError("--fig8-n"/"--fig8-L"/"--vectors") for a non-fig8 experiment.
Params standard_params(const ExperimentChoice& choice);

}  // namespace ropecheck::montecarlo

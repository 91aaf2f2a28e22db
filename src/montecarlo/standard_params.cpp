#include "montecarlo/standard_params.h"

#include <string>

#include "io/input_error.h"
#include "spectrum/attention_factor.h"

namespace ropecheck::montecarlo {

Params standard_params(const ExperimentChoice& choice) {
  Params p;
  p.experiment = choice.experiment;
  p.arith = choice.arith;
  p.seed = choice.seed;
  if (choice.base_position != 0) {
    if (p.arith == Dtype::f64)
      throw InputError("--base-position", "used with --arith f32 or bf16 only", std::to_string(choice.base_position));
    p.base_position = choice.base_position;
  }
  const bool fig8 = p.experiment == Experiment::fig8;
  if (!fig8 && (choice.fig8_n || !choice.fig8_L.empty() || !choice.fig8_vectors.empty()))
    throw InputError(choice.fig8_n ? "--fig8-n" : !choice.fig8_L.empty() ? "--fig8-L" : "--vectors", "used with --experiment fig8 only",
                     "--experiment " + experiment_name(p.experiment));
  if (fig8 && choice.max_distance)
    throw InputError("--max-distance", "not used by fig8 (its distances are 0..n-1: use --fig8-n)", std::to_string(*choice.max_distance));
  if (p.deterministic() && choice.trials && *choice.trials != 1)
    throw InputError("--trials", "1 for the deterministic fig2a (or omitted)", std::to_string(*choice.trials));

  SpectrumRequest request = choice.spectrum;
  if (!request.config && !request.dim && !request.model) request.dim = 256;
  ResolvedSpectrum rs = resolve(request);
  // A yarn or longrope attention factor a multiplies every rotated pair's q and k by a, so every
  // activation by a^2 exactly; the three no-decay tests (slope t, KS, exceedance) are invariant
  // under a positive scale. The simulation runs the rotation (a set to 1, visible in the written
  // spectrum) and the series label states a.
  std::string factor_note;
  if (!unit_attention_factor(rs.spectrum.scaling())) {
    factor_note = " (rotation: attention factor " + attention_factor_text(rs.spectrum.scaling()) + " scales activations by its square)";
    rs.spectrum = rotation_only(rs.spectrum);
  }
  const int code_base = static_cast<int>(p.experiment) * 16;
  if (fig8) {
    p.fig8_n = choice.fig8_n.value_or(1000);
    p.max_distance = p.fig8_n - 1;
    const std::vector<std::int64_t> Ls =
        choice.fig8_L.empty() ? std::vector<std::int64_t>{p.fig8_n, 2 * p.fig8_n, 4 * p.fig8_n, 8 * p.fig8_n} : choice.fig8_L;
    const std::vector<Vectors> kinds = choice.fig8_vectors.empty() ? std::vector<Vectors>{Vectors::ones, Vectors::gaussian} : choice.fig8_vectors;
    for (Vectors v : kinds)
      for (std::int64_t L : Ls) {
        SeriesSpec s{"L=" + std::to_string(L) + (v == Vectors::ones ? " ones" : " gaussian") + factor_note, rs.name, rs.spectrum};
        s.vectors = v;
        s.L = L;
        p.series.push_back(std::move(s));
      }
  } else {
    p.max_distance = choice.max_distance.value_or(5000);
    SeriesSpec s{short_label(rs) + factor_note, rs.name, rs.spectrum};
    s.vectors = p.experiment == Experiment::fig2a ? Vectors::ones : Vectors::gaussian;
    p.series.push_back(std::move(s));
  }
  for (size_t i = 0; i < p.series.size(); ++i) {
    SeriesSpec& s = p.series[i];
    s.code = static_cast<std::uint32_t>(code_base + static_cast<int>(i));
    s.trials = p.deterministic() ? 1 : choice.trials.value_or(default_trials(s.spectrum.dim()));
  }
  return p;
}

}  // namespace ropecheck::montecarlo

// File: table.h
// The per-pair table `ropecheck spectrum` prints: what each frequency does over a context.
//
//   g_k                    radians per token (after variant and scaling)
//   wavelength             2*pi/g_k tokens per full turn
//   rotations              g_k*(N/(2*pi)) full turns over a context of N tokens (spectrum/rotations.h)
//   quarter-turn horizon   ceil(pi/(2*g_k)): the first distance at which a chunk's angle has turned
//                          by at least pi/2, i.e. how many tokens a channel on that pair keeps the
//                          sign of q^(k)T k^(k) when q and k are aligned. Informative only: it does
//                          not define a semantic pair.
//   semantic               yes / no / undecided: the definition of spectrum/rotations.h (a rotating
//                          pair that turns less than once over the context), the one the report uses.
// Values are computed in MPFI at the current precision; the decimal columns are midpoints
// rounded to 17 significant digits, the horizon an exact integer (its interval ceilings agree).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "numeric/decision.h"
#include "spectrum/spectrum.h"

namespace ropecheck {

struct SpectrumRow {
  int k = 0;                   // 1-based pair index
  bool kept = true;            // rotates (g != 0)
  std::string g;               // decimal
  std::string g_unscaled;      // before scaling (same as g when no scaling)
  std::string wavelength;      // "inf" when g = 0
  std::string rotations;       // over the context
  std::optional<long long> horizon;  // none when g = 0 (never turns) or undecided
  Decision semantic = Decision::no;  // semantic_pair (spectrum/rotations.h)
  double g_value = 0;          // g rounded to binary64 (JSON g_float64), for plots
};

std::vector<SpectrumRow> spectrum_rows(const Spectrum& s, long long context);

// Returns: the number of rows whose `semantic` is `d` (yes: the semantic pairs; undecided: the
// pairs counted neither way).
int count_semantic(const std::vector<SpectrumRow>& rows, Decision d = Decision::yes);

nlohmann::json spectrum_json(const Spectrum& s, const std::string& name, long long context, const std::vector<SpectrumRow>& rows);
std::string spectrum_text(const Spectrum& s, const std::string& name, long long context, const std::vector<SpectrumRow>& rows);

}  // namespace ropecheck

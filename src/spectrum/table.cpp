#include "spectrum/table.h"

#include <mpfr.h>

#include <cstdio>
#include <sstream>

#include "numeric/decimal.h"
#include "numeric/precision.h"
#include "spectrum/frequencies.h"
#include "spectrum/rotations.h"

namespace ropecheck {
namespace {

std::optional<long long> exact_ceiling(const Interval& x) {
  Real lo = lower_of(x), hi = upper_of(x);
  mpfr_ceil(lo.backend().data(), lo.backend().data());
  mpfr_ceil(hi.backend().data(), hi.backend().data());
  if (lo != hi || !mpfr_fits_slong_p(lo.backend().data(), MPFR_RNDN)) return std::nullopt;
  return mpfr_get_si(lo.backend().data(), MPFR_RNDN);
}

}  // namespace

std::vector<SpectrumRow> spectrum_rows(const Spectrum& s, long long context) {
  const std::vector<PairTurns> turns = pair_turns(s, context);
  const Spectrum unscaled(s.dim(), s.theta(), s.variant(), s.fraction(), Scaling{});
  const std::vector<Interval> g0 = frequencies<Interval>(unscaled);
  const Interval pi = pi_value<Interval>();
  std::vector<SpectrumRow> rows;
  for (int k = 0; k < s.pairs(); ++k) {
    const PairTurns& t = turns[static_cast<size_t>(k)];
    SpectrumRow row;
    row.k = t.pair;
    row.kept = t.rotated;
    row.g = to_decimal(midpoint(t.g), 17);
    row.g_unscaled = to_decimal(midpoint(g0[k]), 17);
    row.g_value = to_double(t.g);
    row.semantic = t.semantic;
    if (row.kept) {
      row.wavelength = to_decimal(midpoint(Interval(2 * pi / t.g)), 17);
      row.rotations = to_decimal(midpoint(t.rotations), 17);
      row.horizon = exact_ceiling(Interval(pi / (2 * t.g)));
    } else {
      row.wavelength = "inf";
      row.rotations = "0";
    }
    rows.push_back(row);
  }
  return rows;
}

int count_semantic(const std::vector<SpectrumRow>& rows, Decision d) {
  int n = 0;
  for (const auto& r : rows)
    if (r.semantic == d) ++n;
  return n;
}

nlohmann::json spectrum_json(const Spectrum& s, const std::string& name, long long context, const std::vector<SpectrumRow>& rows) {
  nlohmann::json out = {{"configuration", name},
                        {"spectrum", s.describe()},
                        {"dim", s.dim()},
                        {"theta", s.theta()},
                        {"variant", variant_name(s.variant())},
                        {"fraction", s.fraction()},
                        {"scaling", s.scaling().describe()},
                        {"context", context},
                        {"rotated_pairs", s.rotated_pairs()},
                        {"semantic_pairs", count_semantic(rows)},
                        {"semantic_pairs_undecided", count_semantic(rows, Decision::undecided)},
                        {"semantic_pairs_definition", kSemanticPairDefinition}};
  nlohmann::json r = nlohmann::json::array();
  for (const auto& row : rows) {
    r.push_back({{"k", row.k},
                 {"status", row.kept ? "kept" : "removed"},
                 {"g", row.g},
                 {"g_float64", row.g_value},
                 {"g_unscaled", row.g_unscaled},
                 {"wavelength", row.wavelength},
                 {"rotations_over_context", row.rotations},
                 {"quarter_turn_horizon", row.horizon ? nlohmann::json(*row.horizon) : nlohmann::json(nullptr)},
                 {"semantic", decision_name(row.semantic)}});
  }
  out["rows"] = r;
  return out;
}

std::string spectrum_text(const Spectrum& s, const std::string& name, long long context, const std::vector<SpectrumRow>& rows) {
  std::ostringstream out;
  out << "configuration " << name << ": " << s.describe() << ", context " << context << "\n";
  const int undecided = count_semantic(rows, Decision::undecided);
  out << s.rotated_pairs() << " of " << s.pairs() << " pairs rotate; " << count_semantic(rows)
      << " are semantic (turn less than once over the context: wavelength > " << context << ")";
  if (undecided > 0) out << ", " << undecided << " undecided at this precision";
  out << "\n";
  char line[256];
  std::snprintf(line, sizeof line, "%5s  %-8s %-24s %-24s %-24s %s\n", "k", "status", "g_k (rad/token)", "wavelength (tokens)",
                "rotations over context", "quarter-turn horizon");
  out << line;
  for (const auto& r : rows) {
    const std::string h = r.horizon ? std::to_string(*r.horizon) : (r.kept ? "undecided" : "never");
    std::snprintf(line, sizeof line, "%5d  %-8s %-24s %-24s %-24s %s\n", r.k, r.kept ? "kept" : "removed", r.g.c_str(),
                  r.wavelength.c_str(), r.rotations.c_str(), h.c_str());
    out << line;
  }
  return out.str();
}

}  // namespace ropecheck

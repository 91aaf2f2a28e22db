// File: certificate.h
// What a claim check returns: the verdict, how it was obtained, and the key quantities as rigorous
// decimal bounds, in a form a reader (table) and a program (JSON) can both check.
//
// Verdicts are three-valued at heart: a check says `holds` (or `fails`, `counterexample`, ...) only
// when the computation decided it; an interval comparison that cannot be decided is `inconclusive`,
// which is never counted as agreeing with the paper.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "numeric/decimal.h"

namespace ropecheck {

enum class Verdict { holds, fails, counterexample, confirmed, not_confirmed, inconclusive };

// Returns: {"lower": L, "upper": U}, x's decimal bounds at `digits` significant digits (L rounded
// down, U up), the form certificates use for an enclosure in their parameters and rows.
nlohmann::json bounds_json(const Interval& x, int digits = 20);

// Returns: "holds", "fails", "counterexample", "confirmed", "not-confirmed", "inconclusive".
std::string verdict_name(Verdict v);

// A named quantity with rigorous bounds: the exact value lies in [lower, upper] (decimal strings,
// lower rounded down, upper rounded up). A point estimate (no bound) says so in `kind`.
struct Quantity {
  std::string name;
  std::string lower;
  std::string upper;
  std::string kind = "enclosure";  // "enclosure" (certified), "exact" (an integer), "estimate"
};

Quantity enclosure(const std::string& name, const Interval& x, int digits = 20);
Quantity exact_integer(const std::string& name, long long v);
// A quantity known by rigorous real bounds rather than one interval: lower rounded down, upper up.
Quantity real_bounds(const std::string& name, const Real& lower, const Real& upper, int digits = 20);

struct Certificate {
  std::string claim_id;
  std::string statement;        // the claim as checked, with its finite range
  nlohmann::json parameters;    // configuration, spectrum, range, seed
  std::string method;           // "interval arithmetic (MPFI), 257 bits", ...
  Verdict verdict = Verdict::inconclusive;
  Verdict expected = Verdict::holds;  // what the paper states
  std::vector<Quantity> quantities;
  nlohmann::json details;       // per-item evidence (per frequency, per distance, ...)
  double seconds = 0;

  bool as_paper_states() const { return verdict == expected; }
};

nlohmann::json to_json(const Certificate& c);

// Returns: a terminal table, one row per certificate: claim, configuration, verdict, the first
// quantity, seconds; followed by every quantity of every certificate.
std::string format_table(const std::vector<Certificate>& certificates);

}  // namespace ropecheck

#include "certificate/certificate.h"

#include <cstdio>
#include <sstream>

namespace ropecheck {

nlohmann::json bounds_json(const Interval& x, int digits) {
  const DecimalBounds b = decimal_bounds(x, digits);
  return {{"lower", b.lower}, {"upper", b.upper}};
}

std::string verdict_name(Verdict v) {
  switch (v) {
    case Verdict::holds: return "holds";
    case Verdict::fails: return "fails";
    case Verdict::counterexample: return "counterexample";
    case Verdict::confirmed: return "confirmed";
    case Verdict::not_confirmed: return "not-confirmed";
    case Verdict::inconclusive: return "inconclusive";
  }
  return "inconclusive";
}

Quantity enclosure(const std::string& name, const Interval& x, int digits) {
  const DecimalBounds b = decimal_bounds(x, digits);
  return {name, b.lower, b.upper, "enclosure"};
}

Quantity real_bounds(const std::string& name, const Real& lower, const Real& upper, int digits) {
  return {name, to_decimal(lower, digits, Rounding::down), to_decimal(upper, digits, Rounding::up), "enclosure"};
}

Quantity exact_integer(const std::string& name, long long v) {
  return {name, std::to_string(v), std::to_string(v), "exact"};
}

nlohmann::json to_json(const Certificate& c) {
  nlohmann::json q = nlohmann::json::array();
  for (const auto& x : c.quantities) q.push_back({{"name", x.name}, {"lower", x.lower}, {"upper", x.upper}, {"kind", x.kind}});
  return {{"claim", c.claim_id},
          {"statement", c.statement},
          {"parameters", c.parameters},
          {"method", c.method},
          {"verdict", verdict_name(c.verdict)},
          {"paper_states", verdict_name(c.expected)},
          {"as_paper_states", c.as_paper_states()},
          {"quantities", q},
          {"details", c.details},
          {"seconds", c.seconds}};
}

std::string format_table(const std::vector<Certificate>& certificates) {
  std::ostringstream out;
  char line[512];
  std::snprintf(line, sizeof line, "%-14s %-24s %-14s %-7s %8s  %s\n", "claim", "configuration", "verdict", "paper", "seconds", "method");
  out << line;
  for (const auto& c : certificates) {
    const std::string config = c.parameters.value("configuration", std::string("-"));
    std::snprintf(line, sizeof line, "%-14s %-24s %-14s %-7s %8.2f  %s\n", c.claim_id.c_str(), config.c_str(),
                  verdict_name(c.verdict).c_str(), c.as_paper_states() ? "agrees" : "DIFFERS", c.seconds, c.method.c_str());
    out << line;
  }
  for (const auto& c : certificates) {
    out << "\n" << c.claim_id << " [" << c.parameters.value("configuration", std::string("-")) << "]: " << c.statement << "\n";
    out << "  parameters: " << c.parameters.dump() << "\n";
    for (const auto& q : c.quantities) {
      if (q.lower == q.upper) out << "  " << q.name << " = " << q.lower << " (" << q.kind << ")\n";
      else out << "  " << q.name << " in [" << q.lower << ", " << q.upper << "] (" << q.kind << ")\n";
    }
    // A check that reproduces a table of the paper (table-1) leaves it in details["table"].
    if (c.details.is_object() && c.details.contains("table") && c.details["table"].is_string()) {
      std::istringstream rows(c.details["table"].get<std::string>());
      for (std::string row; std::getline(rows, row);) out << "    " << row << "\n";
    }
  }
  return out.str();
}

}  // namespace ropecheck

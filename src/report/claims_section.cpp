#include "report/claims_section.h"

#include <algorithm>
#include <chrono>
#include <ostream>
#include <cctype>
#include <set>

#include "numeric/decimal.h"
#include "numeric/precision.h"
#include "numeric/scalar.h"
#include "proofs/registry.h"

namespace ropecheck::report {

namespace {

// The certificate as evidence: everything but its wall time, which goes to timings (the evidence
// file must be the same bytes on every run with the same seed).
nlohmann::json evidence_json(const Certificate& c) {
  nlohmann::json j = to_json(c);
  j.erase("seconds");
  return j;
}

unsigned precision_of(const Certificate& c) {
  if (c.parameters.is_object() && c.parameters.contains("precision_bits") && c.parameters["precision_bits"].is_number_unsigned())
    return c.parameters["precision_bits"].get<unsigned>();
  // The first "<digits> bits" of the method text ("interval arithmetic (MPFI), 257 bits, ...").
  for (size_t at = c.method.find(" bits"); at != std::string::npos; at = c.method.find(" bits", at + 1)) {
    size_t begin = at;
    while (begin > 0 && std::isdigit(static_cast<unsigned char>(c.method[begin - 1]))) --begin;
    if (begin < at && at - begin <= 6) return static_cast<unsigned>(std::stoul(c.method.substr(begin, at - begin)));
  }
  return 0;
}

std::string quantity_text(const Quantity& q) {
  if (q.lower == q.upper) return q.name + " = " + q.lower;
  return q.name + " in [" + q.lower + ", " + q.upper + "]";
}

// The part of a method before its first ':' (the arithmetic; the rest is the construction, which
// the evidence file keeps).
std::string short_method(const std::string& method) {
  const auto colon = method.find(':');
  return colon == std::string::npos ? method : method.substr(0, colon);
}

std::string configurations(const std::vector<Certificate>& got) {
  std::string out;
  std::set<std::string> seen;
  for (const Certificate& c : got) {
    std::string config = c.parameters.is_object() ? c.parameters.value("configuration", std::string("-")) : "-";
    std::string extra;
    if (c.parameters.is_object())
      for (const char* key : {"N", "max_n", "L", "max_distance"})
        if (c.parameters.contains(key) && c.parameters[key].is_number_integer())
          extra = std::string(key) + " = " + std::to_string(c.parameters[key].get<long long>());
    const std::string item = extra.empty() ? config : config + " (" + extra + ")";
    if (seen.insert(item).second) out += (out.empty() ? "" : "; ") + item;
  }
  return out;
}

// A claim holds as the paper states when every certificate does; otherwise the row shows the
// worst certificate's verdict (inconclusive is never counted as agreeing).
std::string claim_verdict(const std::vector<Certificate>& got) {
  if (got.empty()) return "inconclusive";
  bool inconclusive = false;
  for (const Certificate& c : got) {
    if (c.as_paper_states()) continue;
    if (c.verdict == Verdict::inconclusive) inconclusive = true;
    else return "fails";
  }
  return inconclusive ? "inconclusive" : "holds";
}

// The ledger's 50-digit enclosure {lower, upper} shown with 10 digits, rounded outward so the
// shorter text still encloses the value (truncating the upper end would not).
std::string short_enclosure(const nlohmann::json& bounds) {
  try {
    ScopedPrecision precision(256);
    const Interval lo = from_decimal<Interval>(bounds.value("lower", "")), hi = from_decimal<Interval>(bounds.value("upper", ""));
    return decimal_interval_text(Interval(lower_of(lo), upper_of(hi)), 10);
  } catch (const std::exception&) {
    return bounds.dump();
  }
}

std::string table_1_markdown(const Certificate& c) {
  std::string md = "## Table 1, reproduced\n\n";
  if (!c.details.is_object() || !c.details.contains("cells")) return md + "The table-1 check left no cells (see its evidence file).\n\n";
  const nlohmann::json& cells = c.details["cells"];
  auto mark = [](const std::string& v) { return v == "yes" ? "✓" : v == "no" ? "✗" : "?"; };
  auto cell = [&](const std::string& enc, const std::string& prop) {
    for (const auto& t : cells)
      if (t.value("encoding", "") == enc && t.value("property", "") == prop) {
        const std::string v = t.value("value", "?"), p = t.value("paper", "?");
        return std::string(mark(v)) + (v == p ? "" : " (paper " + std::string(mark(p)) + ")");
      }
    return std::string("?");
  };
  std::vector<std::vector<std::string>> grid;
  for (const std::string prop : {"positional", "semantic"})
    grid.push_back({prop, cell("NoPE", prop), cell("RoPE", prop), cell("p-RoPE", prop)});
  md += "The paper's Table 1 (can the encoding build a positional head / a robust semantic channel?), every cell "
        "decided by a certificate (verdict of the check: **" + verdict_name(c.verdict) + "**, " + short_method(c.method) + "):\n\n";
  md += markdown_table({"property", "NoPE", "RoPE", "p-RoPE"}, grid);
  md += "\nThe evidence of each cell (evidence/claims/table-1.json):\n\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& t : cells)
    rows.push_back({t.value("encoding", ""), t.value("property", ""), t.value("value", ""), t.value("paper", ""), t.value("evidence", "")});
  md += markdown_table({"encoding", "property", "computed", "paper", "certificate"}, rows);
  return md + "\n";
}

std::string errata_markdown(const Certificate& ledger, nlohmann::json& errata) {
  std::string md = "## Errata found\n\n";
  errata = nlohmann::json::object({{"numbers", nlohmann::json::array()}, {"wording", nlohmann::json::array()}});
  if (!ledger.details.is_object() || !ledger.details.contains("entries")) return md + "The ledger check did not run.\n\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& e : ledger.details["entries"]) {
    const std::string v = e.value("verdict", "");
    if (v != "erratum" && v != "approximate") continue;
    std::string recomputed = "-";
    if (e.contains("recomputed") && e["recomputed"].is_object()) recomputed = short_enclosure(e["recomputed"]);
    errata["numbers"].push_back({{"id", e.value("id", "")}, {"verdict", v}, {"role", e.value("role", "")}, {"stated", e.value("stated", "")},
                                 {"recomputed", e.value("recomputed", nlohmann::json())}, {"location", e.value("location", "")}});
    rows.push_back({e.value("id", ""), v + (e.value("role", "") == "reading" ? " (alternative reading)" : ""), e.value("location", ""),
                    e.value("stated", ""), recomputed, e.value("note", "")});
  }
  md += "Numbers of the text that the ledger (proofs/ledger.json, " + std::to_string(ledger.details["entries"].size()) +
        " entries) recomputes in MPFI and finds wrong (erratum) or only approximately right (approximate). "
        "\"Alternative reading\" rows test another plausible reading of the same sentence; only statement rows count.\n\n";
  md += markdown_table({"id", "verdict", "where", "stated", "recomputed (certified)", "note"}, rows);
  if (ledger.details.contains("wording") && ledger.details["wording"].is_array()) {
    std::vector<std::vector<std::string>> w;
    for (const auto& e : ledger.details["wording"]) {
      errata["wording"].push_back({{"id", e.value("id", "")}, {"location", e.value("location", "")}});
      w.push_back({e.value("id", ""), e.value("location", ""), e.value("corrected", "")});
    }
    md += "\nHypotheses, quantifiers and notation corrected in words (" + std::to_string(w.size()) +
          "; not computed: each names the claim check that tests its finite-range form):\n\n";
    md += markdown_table({"id", "where", "corrected statement"}, w);
  }
  return md + "\n";
}

}  // namespace

SectionResult claims_section(const Context& context) {
  SectionResult r;
  r.key = "claims";
  ClaimOptions options;
  options.seed = context.seed;
  std::vector<std::vector<std::string>> certificate_rows;
  nlohmann::json claims = nlohmann::json::array();
  const Certificate* table_1 = nullptr;
  const Certificate* ledger = nullptr;
  std::vector<std::vector<Certificate>> all;
  all.reserve(proofs::registered_claims().size());
  for (const Claim& claim : proofs::registered_claims()) {
    if (context.mode == Mode::smoke && claim.smoke == SmokeRun::no) continue;  // the registry says which are cheap
    *context.log << "report: claim " << claim.id << "\n" << std::flush;
    const auto start = std::chrono::steady_clock::now();
    all.push_back(claim.check(options));
    const std::vector<Certificate>& got = all.back();
    r.timings[claim.id + "_seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    nlohmann::json evidence = {{"claim", claim.id}, {"title", claim.title}, {"certificates", nlohmann::json::array()}};
    unsigned bits = 0;
    for (const Certificate& c : got) {
      evidence["certificates"].push_back(evidence_json(c));
      bits = std::max(bits, precision_of(c));
      certificate_rows.push_back({claim.id, c.parameters.is_object() ? c.parameters.value("configuration", std::string("-")) : "-",
                                  verdict_name(c.verdict), verdict_name(c.expected), c.quantities.empty() ? "-" : quantity_text(c.quantities.front())});
      if (claim.id == "table-1") table_1 = &c;
      if (claim.id == "ledger") ledger = &c;
    }
    const std::string path = "evidence/claims/" + claim.id + ".json";
    r.artifacts.push_back({path, evidence.dump(1) + "\n", true});

    SummaryRow row;
    row.id = claim.id;
    row.statement = claim.title;
    row.method = got.empty() ? "-" : short_method(got.front().method);
    row.range = configurations(got);
    row.verdict = claim_verdict(got);
    row.expected = "holds";
    row.as_paper_states = row.verdict == "holds";
    row.key_quantity = got.empty() || got.front().quantities.empty() ? "-" : quantity_text(got.front().quantities.front());
    row.evidence = path;
    row.precision_bits = bits;
    r.as_paper_states = r.as_paper_states && row.as_paper_states;
    r.summary.push_back(row);
    claims.push_back({{"id", claim.id}, {"certificates", got.size()}, {"verdict", row.verdict}, {"precision_bits", bits}});
  }
  r.data["claims"] = claims;
  r.data["mode_subset"] = context.mode == Mode::smoke ? "smoke: the fast claims only" : "every registered claim";

  if (table_1) r.markdown += table_1_markdown(*table_1);
  else if (context.mode == Mode::smoke) r.markdown += "## Table 1, reproduced\n\nNot part of the smoke report (CI's size): run `ropecheck report --quick`.\n\n";
  else r.missing.push_back("Table 1: the table-1 check returned no certificate");
  nlohmann::json errata;
  if (ledger) r.markdown += errata_markdown(*ledger, errata);
  else r.missing.push_back("errata: the ledger check did not run");
  r.markdown += "## Certificates\n\nEvery certificate behind the summary (a claim can need several: one per configuration or "
               "construction). The quantity shown is the first of each; the evidence files hold them all.\n\n";
  r.markdown += markdown_table({"claim", "configuration", "verdict", "paper states", "key quantity"}, certificate_rows) + "\n";
  r.data["errata"] = errata;
  return r;
}

}  // namespace ropecheck::report

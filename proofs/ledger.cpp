#include "ledger.h"

#include <algorithm>
#include <chrono>
#include <map>

#include "certificate/retry.h"
#include "numeric/decimal.h"
#include "numeric/precision.h"

namespace ropecheck::proofs {

namespace {

std::string bounds_text(const Interval& x, int digits) {
  const DecimalBounds b = decimal_bounds(x, digits);
  return b.lower == b.upper ? b.lower : "[" + b.lower + ", " + b.upper + "]";
}

struct Tally {
  std::map<std::string, int> statements, readings;
  std::vector<std::string> errata, approximate, mismatches, undecided;
};

Certificate run_ledger(const Ledger& ledger, unsigned bits) {
  const auto start = std::chrono::steady_clock::now();
  ScopedPrecision precision(bits);
  Certificate c;
  c.claim_id = "ledger";
  c.statement = "every numeric statement of the paper listed in the ledger (" + std::to_string(ledger.entries.size()) +
                " entries: " + ledger.path +
                ") recomputed from its expression in MPFI and judged by its rule (exact / approximate / erratum / "
                "not-recomputable / unreadable); each computed verdict equals the ledger's expected verdict. Finite "
                "range: the listed entries, the paper's settings (no other parameters). Plus " +
                std::to_string(ledger.wording.size()) + " hypotheses, quantifiers and notation corrected in words (not computed)";
  c.parameters = {{"configuration", "paper text"},
                  {"ledger", ledger.path},
                  {"entries", ledger.entries.size()},
                  {"wording_items", ledger.wording.size()},
                  {"default_relative_tolerance", ledger.default_tolerance},
                  {"precision_bits", precision.bits()}};
  c.method = "MPFI interval evaluation of each expression, " + std::to_string(precision.bits()) +
             " bits (>= 50 digits), rules decided on interval endpoints";
  c.expected = Verdict::holds;

  Tally t;
  nlohmann::json rows = nlohmann::json::array();
  std::vector<Quantity> highlights;
  for (const LedgerEntry& e : ledger.entries) {
    const EntryResult r = judge_entry(e, ledger.default_tolerance);
    const bool verdict_matches = r.verdict == e.expected;
    const bool decided = r.verdict != LedgerVerdict::inconclusive && r.corrected_decided;
    const bool agrees = verdict_matches && r.corrected_confirmed;
    const std::string v = ledger_verdict_name(r.verdict);
    (e.role == "statement" ? t.statements : t.readings)[v]++;
    if (!decided) t.undecided.push_back(e.id);
    else if (!agrees) t.mismatches.push_back(e.id);
    if (e.role == "statement" && r.verdict == LedgerVerdict::erratum) t.errata.push_back(e.id);
    if (e.role == "statement" && r.verdict == LedgerVerdict::approximate) t.approximate.push_back(e.id);

    nlohmann::json row = {{"id", e.id},           {"location", e.location}, {"role", e.role},
                          {"quote", e.quote},     {"stated", e.stated},     {"rule", e.rule},
                          {"rule_applied", r.rule_text}, {"verdict", v},    {"expected", ledger_verdict_name(e.expected)},
                          {"agrees", agrees}};
    if (!e.expression.empty()) row["expression"] = e.expression;
    if (!e.bound.empty()) row["bound"] = e.bound;
    if (e.stated_value != e.stated) row["stated_value"] = e.stated_value;
    if (r.recomputed) {
      const DecimalBounds b = decimal_bounds(*r.recomputed, 50);
      row["recomputed"] = {{"lower", b.lower}, {"upper", b.upper}};
    }
    if (r.relative_gap) row["relative_gap"] = bounds_text(*r.relative_gap, 6);
    if (r.ratio) row["ratio_to_bound"] = bounds_text(*r.ratio, 6);
    if (e.corrected) row["corrected"] = {{"value", *e.corrected}, {"confirmed", r.corrected_confirmed}};
    if (!e.note.empty()) row["note"] = e.note;
    rows.push_back(std::move(row));

    if (e.role == "statement" && r.recomputed &&
        (r.verdict == LedgerVerdict::erratum || r.verdict == LedgerVerdict::approximate)) {
      Quantity q = enclosure(e.id + " (" + v + ", stated " + e.stated + "): recomputed", *r.recomputed, 12);
      highlights.push_back(q);
    }
  }

  auto join = [](const std::vector<std::string>& ids) {
    std::string s;
    for (const auto& id : ids) s += (s.empty() ? "" : ", ") + id;
    return s.empty() ? std::string("none") : s;
  };
  for (const char* v : {"exact", "approximate", "erratum", "not-recomputable", "unreadable", "inconclusive"})
    c.quantities.push_back(exact_integer(std::string("statements: ") + v, t.statements[v]));
  int readings = 0;
  for (const auto& [k, n] : t.readings) readings += n;
  c.quantities.push_back(exact_integer("alternative readings (not counted above)", readings));
  c.quantities.push_back({"errata flagged", join(t.errata), join(t.errata), "list"});
  c.quantities.push_back({"approximate statements", join(t.approximate), join(t.approximate), "list"});
  for (const Quantity& q : highlights) c.quantities.push_back(q);
  c.quantities.push_back(exact_integer("entries differing from the ledger's expectation", static_cast<long long>(t.mismatches.size())));
  if (!t.mismatches.empty()) c.quantities.push_back({"differing entries", join(t.mismatches), join(t.mismatches), "list"});
  if (!t.undecided.empty()) c.quantities.push_back({"undecided entries", join(t.undecided), join(t.undecided), "list"});
  c.quantities.push_back(exact_integer("hypotheses / quantifiers / notation corrected (wording list)",
                                       static_cast<long long>(ledger.wording.size())));

  nlohmann::json wording = nlohmann::json::array();
  for (const LedgerWording& w : ledger.wording)
    wording.push_back({{"id", w.id}, {"location", w.location}, {"as_written", w.as_written}, {"corrected", w.corrected}, {"why", w.why}});
  c.details = {{"rules", ledger.rules},
               {"entries", rows},
               {"wording", wording},
               {"counts", {{"statements", t.statements}, {"readings", t.readings}}},
               {"differing", t.mismatches},
               {"undecided", t.undecided}};
  // fails: some entry decidedly differs from what the ledger expects (the ledger or the paper's
  // number drifted). inconclusive: some comparison could not be decided. holds otherwise: every
  // erratum the ledger lists is flagged and nothing else is.
  c.verdict = !t.mismatches.empty() ? Verdict::fails : !t.undecided.empty() ? Verdict::inconclusive : Verdict::holds;
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

}  // namespace

std::vector<Certificate> check_ledger(const ClaimOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  Ledger ledger = load_ledger(options.ledger.value_or(default_ledger_path()));
  // The default ledger is named by its place in the source tree, not by this checkout's absolute
  // path: two clones must write the same certificate (reports compare evidence byte for byte).
  if (!options.ledger) ledger.path = "proofs/ledger.json";
  // 50 decimal digits need 50 log2(10) = 166.1 bits. x^y = exp(y log x) turns the rounding error
  // of y log x (|y log x| up to ~30 in the ledger, 5 bits) into relative error, so 180 bits keep
  // every enclosure tight to 50 digits with a few guard bits.
  const unsigned first = std::max(options.precision_bits, 180u);
  const unsigned cap = std::max(first, options.max_precision_bits);
  Certificate c = certify_with_retry(first, cap, [&](unsigned bits) { return run_ledger(ledger, bits); });
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return {c};
}

}  // namespace ropecheck::proofs

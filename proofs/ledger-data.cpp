#include "ledger-data.h"

#include <fstream>
#include <set>
#include <stdexcept>

#include "io/input_error.h"
#include "io/json_fields.h"
#include "io/json_reader.h"

#ifndef ROPECHECK_LEDGER_PATH
#define ROPECHECK_LEDGER_PATH "proofs/ledger.json"
#endif

namespace ropecheck::proofs {

std::string ledger_verdict_name(LedgerVerdict v) {
  switch (v) {
    case LedgerVerdict::exact: return "exact";
    case LedgerVerdict::approximate: return "approximate";
    case LedgerVerdict::erratum: return "erratum";
    case LedgerVerdict::not_recomputable: return "not-recomputable";
    case LedgerVerdict::unreadable: return "unreadable";
    case LedgerVerdict::inconclusive: return "inconclusive";
  }
  return "inconclusive";
}

LedgerVerdict parse_ledger_verdict(const std::string& name) {
  for (LedgerVerdict v : {LedgerVerdict::exact, LedgerVerdict::approximate, LedgerVerdict::erratum,
                          LedgerVerdict::not_recomputable, LedgerVerdict::unreadable, LedgerVerdict::inconclusive})
    if (ledger_verdict_name(v) == name) return v;
  throw std::invalid_argument("unknown ledger verdict '" + name + "'");
}

std::string default_ledger_path() { return ROPECHECK_LEDGER_PATH; }

namespace {

using nlohmann::json;

const std::set<std::string> kRules = {"digits", "equal", "at-most", "less-than", "contains", "not-recomputable", "unreadable"};
const std::string kText = "a string";

// The string at `key`: required, or "" when absent and optional.
std::string text(const json& object, const JsonPlace& place, const std::string& key, bool needed = true) {
  if (!object.contains(key)) {
    if (needed) required(object, place, key, kText);  // throws: a required field
    return "";
  }
  return string_value(object[key], place.member(key), kText);
}

LedgerEntry entry_from_json(const json& e, const JsonPlace& place) {
  require_object(e, place,
                 {"id", "location", "quote", "stated", "stated_value", "expression", "bound", "rule", "digits", "tolerance", "role",
                  "corrected", "expected", "note"});
  LedgerEntry x;
  x.id = text(e, place, "id");
  x.location = text(e, place, "location");
  x.quote = text(e, place, "quote");
  x.stated = text(e, place, "stated");
  x.rule = text(e, place, "rule");
  if (!kRules.count(x.rule)) throw InputError(place.member("rule").name(), "one of " + key_list(kRules), x.rule);
  x.stated_value = text(e, place, "stated_value", false);
  if (x.stated_value.empty()) x.stated_value = x.stated;
  const bool computed = x.rule != "not-recomputable" && x.rule != "unreadable";
  x.expression = text(e, place, "expression", computed);
  if (!computed && !x.expression.empty())
    throw InputError(place.member("expression").name(), "absent: rule " + x.rule + " takes no expression", x.expression);
  const bool relation = x.rule == "at-most" || x.rule == "less-than";
  x.bound = text(e, place, "bound", relation);
  if (e.contains("digits")) {
    const std::string accepted = "an integer >= 1, for rule digits only";
    const long long digits = integer_value(e["digits"], place.member("digits"), accepted);
    if (digits < 1 || digits > 1000 || x.rule != "digits") throw InputError(place.member("digits").name(), accepted, shown(e["digits"]));
    x.digits = static_cast<int>(digits);
  }
  if (e.contains("tolerance")) x.tolerance = text(e, place, "tolerance");
  x.role = text(e, place, "role", false);
  if (x.role.empty()) x.role = "statement";
  if (x.role != "statement" && x.role != "reading") throw InputError(place.member("role").name(), "statement or reading", x.role);
  if (e.contains("corrected")) x.corrected = text(e, place, "corrected");
  const std::string expected_accepted = "exact, approximate, erratum, not-recomputable or unreadable";
  const std::string expected = text(e, place, "expected");
  try {
    x.expected = parse_ledger_verdict(expected);
  } catch (const std::invalid_argument&) {
    throw InputError(place.member("expected").name(), expected_accepted, expected);
  }
  if (x.expected == LedgerVerdict::inconclusive) throw InputError(place.member("expected").name(), expected_accepted, expected);
  x.note = text(e, place, "note", false);
  return x;
}

LedgerWording wording_from_json(const json& w, const JsonPlace& place) {
  require_object(w, place, {"id", "location", "as_written", "corrected", "why"});
  LedgerWording x;
  x.id = text(w, place, "id");
  x.location = text(w, place, "location");
  x.as_written = text(w, place, "as_written");
  x.corrected = text(w, place, "corrected");
  x.why = text(w, place, "why");
  return x;
}

void claim_id(std::set<std::string>& ids, const std::string& id, const JsonPlace& place) {
  if (!ids.insert(id).second) throw InputError(place.member("id").name(), "an id no other entry or wording item has", id);
}

}  // namespace

Ledger parse_ledger(const json& data, const std::string& source) {
  const JsonPlace root = JsonPlace::document(source);
  require_object(data, root, {"paper", "rules", "entries", "wording"});
  Ledger ledger;
  ledger.path = source;
  ledger.rules = data.value("rules", json::object());
  if (!ledger.rules.is_object()) throw InputError(root.member("rules").name(), "an object", shown(ledger.rules));
  ledger.default_tolerance = "0.1";
  if (ledger.rules.contains("default_relative_tolerance"))
    ledger.default_tolerance = string_value(ledger.rules["default_relative_tolerance"], root.member("rules").member("default_relative_tolerance"),
                                            "a decimal string");
  std::set<std::string> ids;
  const json& entries = required(data, root, "entries", "an array of entries");
  if (!entries.is_array()) throw InputError(root.member("entries").name(), "an array of entries", shown(entries));
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const JsonPlace place = root.member("entries").item(i);
    ledger.entries.push_back(entry_from_json(entries[i], place));
    claim_id(ids, ledger.entries.back().id, place);
  }
  if (data.contains("wording")) {
    const json& wording = data["wording"];
    if (!wording.is_array()) throw InputError(root.member("wording").name(), "an array of wording items", shown(wording));
    for (std::size_t i = 0; i < wording.size(); ++i) {
      const JsonPlace place = root.member("wording").item(i);
      ledger.wording.push_back(wording_from_json(wording[i], place));
      claim_id(ids, ledger.wording.back().id, place);
    }
  }
  return ledger;
}

Ledger load_ledger(const std::string& path) {
  if (!std::ifstream(path)) throw InputError("--ledger", "a readable ledger JSON file (default " + default_ledger_path() + ")", path);
  return parse_ledger(read_json_file(path), path);
}

}  // namespace ropecheck::proofs

// File: ledger-data.h
// The ledger's data (proofs/ledger.json, described in ledger.md): what the paper says, the
// expression that recomputes it, the rule that judges it and the verdict the ledger's author
// expects, read and checked for shape. Judging is ledger-judge.h; the claim is ledger.h.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ropecheck::proofs {

// What one ledger entry turned out to be.
//   exact            the stated number is the recomputed value as rounded at the stated digits
//                    ("digits"), equal to it ("equal"), or the stated relation holds ("at-most",
//                    "less-than", "contains")
//   approximate      not exact, but within the entry's relative tolerance of the stated value
//   erratum          farther than that (or the relation fails); the entry gives the correct value
//   not-recomputable a reported measurement or a fact the paper's formulas cannot derive
//   unreadable       a table cell garbled in the extracted text: recorded, never guessed
//   inconclusive     the enclosures could not decide (never counted as agreeing)
enum class LedgerVerdict { exact, approximate, erratum, not_recomputable, unreadable, inconclusive };

std::string ledger_verdict_name(LedgerVerdict v);
// Throws std::invalid_argument for a name that is not one of the six above.
LedgerVerdict parse_ledger_verdict(const std::string& name);

struct LedgerEntry {
  std::string id, location, quote;
  std::string stated;        // the number (or relation) as the paper writes it, for display
  std::string stated_value;  // an expression for the stated value; defaults to `stated`
  std::string expression;    // the recomputation (the left side for at-most / less-than)
  std::string bound;         // at-most / less-than: the right side
  std::string rule;          // digits | equal | at-most | less-than | contains | not-recomputable | unreadable
  std::optional<int> digits;             // digits: significant digits meant (default: as written)
  std::optional<std::string> tolerance;  // relative tolerance (decimal); default: the ledger's
  std::string role = "statement";        // statement (the paper's reading) | reading (an alternative)
  std::optional<std::string> corrected;  // for an expected erratum: the correct value (decimal)
  LedgerVerdict expected = LedgerVerdict::exact;
  std::string note;
};

struct LedgerWording {
  std::string id, location, as_written, corrected, why;
};

struct Ledger {
  std::string path;
  std::string default_tolerance;  // decimal, e.g. "0.1"
  nlohmann::json rules;           // the rules section, copied into the certificate verbatim
  std::vector<LedgerEntry> entries;
  std::vector<LedgerWording> wording;
};

// Returns: the path compiled in (ROPECHECK_LEDGER_PATH: proofs/ledger.json in the source tree).
std::string default_ledger_path();

// Returns: the ledger read from `path`. Throws InputError("--ledger", "a readable ledger JSON file
// ...", path) when the file cannot be opened, as io/json_fields.h's read_json_file when it is not
// JSON (malformed, truncated, a key twice), and as parse_ledger for a malformed ledger.
Ledger load_ledger(const std::string& path);
// Returns: the ledger in `data` read from file `source`. Throws InputError naming the file and the
// field (io/json_fields.h: "ledger.json: entries[3].rule") for a missing field, a wrong type, an
// unknown key, an unknown rule, role or verdict, an expected verdict "inconclusive", "digits" on
// another rule, an expression on a rule that takes none, and an id used twice (entries and wording
// share one set of ids). Expressions are checked when evaluated (ledger-judge.h), not here.
Ledger parse_ledger(const nlohmann::json& data, const std::string& source);

}  // namespace ropecheck::proofs

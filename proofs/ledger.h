// File: ledger.h
// The `ledger` claim: every number the paper's text states, recomputed from an expression at >= 50
// digits in MPFI and judged by a written rule, plus the statements whose hypotheses or quantifiers
// are wrong as written. The data (what the paper says, the expression, the rule, the verdict the
// ledger's author expects) lives in proofs/ledger.json so a reader can audit it; this file only
// evaluates and judges it. See ledger.md for the rules and what they mean.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "claims/claim.h"

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

// Returns: the ledger read from `path`. Throws InputError("--ledger", ...) when the file is missing
// or unreadable, is not JSON, or an entry is malformed (missing field, unknown rule or verdict,
// duplicate id); the message names the entry. Expressions are checked when evaluated, not here.
Ledger load_ledger(const std::string& path);
Ledger parse_ledger(const nlohmann::json& data, const std::string& source);

// The closed window of reals that round to the decimal `text` at `digits` significant digits
// (default: the digits as written, trailing zeros included): [text - h, text + h], h = half a unit
// of the last kept digit, computed in exact decimal arithmetic and then enclosed (a point when the
// bound is dyadic). A value exactly on the boundary counts as rounding to `text` (either tie rule).
// Throws std::invalid_argument when text is not a plain decimal or `digits` would drop non-zero
// written digits.
struct RoundingWindow {
  std::string lower_text, upper_text;
  Interval lower, upper;
  int digits = 0;
};
RoundingWindow rounding_window(const std::string& text, std::optional<int> digits = std::nullopt);

// The judgement of one entry at the current precision.
struct EntryResult {
  LedgerVerdict verdict = LedgerVerdict::inconclusive;
  std::optional<Interval> recomputed;    // the expression's enclosure
  std::optional<Interval> stated;        // the stated value (or the bound) enclosed
  std::optional<Interval> relative_gap;  // |recomputed - stated| / |stated|
  std::optional<Interval> ratio;         // at-most / less-than: recomputed / bound
  std::string rule_text;                 // the rule as applied, with its numbers
  bool corrected_confirmed = true;       // an erratum's `corrected` value rounds from recomputed
  bool corrected_decided = true;
};

// Returns: the verdict of `entry` by its rule (ledger.md), every comparison on interval endpoints.
// Throws InputError("--ledger", ...) naming the entry when an expression is malformed.
EntryResult judge_entry(const LedgerEntry& entry, const std::string& default_tolerance);

// The `ledger` check: one certificate. Reads options.ledger (default: default_ledger_path()),
// options.precision_bits (raised to at least 180 bits: 50 decimal digits with guard bits) and
// options.max_precision_bits (retry ladder). holds when every entry's computed verdict equals its
// expected verdict, fails when some entry decidedly differs, inconclusive otherwise.
std::vector<Certificate> check_ledger(const ClaimOptions& options);

}  // namespace ropecheck::proofs

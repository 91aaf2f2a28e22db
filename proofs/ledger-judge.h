// File: ledger-judge.h
// Judging one ledger entry (ledger-data.h) by its rule (ledger.md): its expression evaluated in
// MPFI (ledger-expression.h, plus functions that call src/spectrum), compared with the stated value
// on interval endpoints, three-valued: a comparison the enclosures cannot decide is inconclusive.
#pragma once

#include <optional>
#include <string>

#include "ledger-data.h"
#include "numeric/scalar.h"

namespace ropecheck::proofs {

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

}  // namespace ropecheck::proofs

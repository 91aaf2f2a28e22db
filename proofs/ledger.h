// File: ledger.h
// The `ledger` claim: every number the paper's text states, recomputed from an expression at >= 50
// digits in MPFI and judged by a written rule, plus the statements whose hypotheses or quantifiers
// are wrong as written. The data (what the paper says, the expression, the rule, the verdict the
// ledger's author expects) lives in proofs/ledger.json so a reader can audit it (ledger-data.h
// reads it); ledger-judge.h judges one entry; this file is the check. See ledger.md for the rules
// and what they mean.
#pragma once

#include <vector>

#include "claims/claim.h"
#include "ledger-data.h"
#include "ledger-judge.h"

namespace ropecheck::proofs {

// The `ledger` check: one certificate. Reads options.ledger (default: default_ledger_path()),
// options.precision_bits (raised to at least 180 bits: 50 decimal digits with guard bits) and
// options.max_precision_bits (retry ladder). holds when every entry's computed verdict equals its
// expected verdict, fails when some entry decidedly differs, inconclusive otherwise. Throws as
// load_ledger and judge_entry.
std::vector<Certificate> check_ledger(const ClaimOptions& options);

}  // namespace ropecheck::proofs

// File: claims_section.h
// The report's claims part: every registered claim check (proofs/registry.h) with its default
// configurations, as `ropecheck verify` runs them (smoke: the fast subset lemma-a2, lemma-a3,
// roformer-decay, prop-5.2, fig-2a, ledger). Markdown: the claims rows of the summary, Table 1
// reproduced cell by cell with the certificate behind each cell, and the errata (the ledger's
// erratum and approximate entries, and its corrected hypotheses/notation).
// Evidence: evidence/claims/<id>.json, the certificates without their wall time (deterministic).
#pragma once

#include "report/section.h"

namespace ropecheck::report {

SectionResult claims_section(const Context& context);

}  // namespace ropecheck::report

// File: claim.h
// A claim check: one statement of the paper, an id the CLI uses (`lemma-a1`, `prop-3.1`), and a
// function that computes certificates for it. The checks themselves live in proofs/, one file per
// statement; this header is what the CLI and the tests see.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "certificate/certificate.h"
#include "numeric/precision.h"
#include "spectrum/request.h"

namespace ropecheck {

// Everything a user can pass to a check; each check documents which fields it reads.
struct ClaimOptions {
  SpectrumRequest spectrum;                       // --config and spectrum flags
  unsigned precision_bits = kDefaultPrecisionBits;  // --precision
  std::uint64_t seed = 1;                         // --seed: random inputs (printed in parameters)
  std::vector<long long> distances;               // --distance (prop-3.1, dynamic-ntk-cache), empty = the check's default
  std::vector<std::string> query;                 // --query (prop-3.1): decimals, empty = seeded random
  unsigned max_precision_bits = 4096;             // --max-precision: cap of the retry ladder (retry.h)
  // Claim parameters given as text (decimals are parsed by the check at its working precision, so
  // "0.1" means the real number 1/10, not the double nearest to it). Empty = the check's default,
  // which reproduces the paper's setting; each check documents which of these it reads.
  std::optional<std::string> epsilon;    // --epsilon: sharpness 1 - epsilon (thm-5.3, thm-6.1, table-1)
  std::optional<std::string> frequency;  // --frequency g in radians per token (lemma-a2, thm-6.1)
  std::optional<std::string> phase;      // --phase phi in radians (lemma-a2 target angle, thm-6.1 channel phase)
  std::optional<std::string> tolerance;  // --tolerance delta > 0 (lemma-a2)
  std::optional<long long> max_n;        // --max-n N: largest position / length checked
  std::optional<long long> trials;       // --trials: number of seeded random instances
  std::optional<std::string> ledger;     // --ledger FILE: the ledger data (ledger; default proofs/ledger.json)
  std::vector<long long> query_lengths;  // --query-length S (dynamic-ntk-cache), empty = the check's default
};

// Whether the report's --smoke mode (CI's size, run twice in CI: Release and under the
// sanitizers) runs a claim: only those that take well under a second each in Release.
enum class SmokeRun { no, yes };

struct Claim {
  std::string id;
  std::string title;  // one line: the statement as the paper names it
  std::function<std::vector<Certificate>(const ClaimOptions&)> check;
  SmokeRun smoke = SmokeRun::no;
};

}  // namespace ropecheck

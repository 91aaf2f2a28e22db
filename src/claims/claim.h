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
  std::vector<long long> distances;               // --distance (prop-3.1), empty = the check's default
  std::vector<std::string> query;                 // --query (prop-3.1): decimals, empty = seeded random
};

struct Claim {
  std::string id;
  std::string title;  // one line: the statement as the paper names it
  std::function<std::vector<Certificate>(const ClaimOptions&)> check;
};

}  // namespace ropecheck

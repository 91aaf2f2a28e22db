// File: registry.h
// The claims `ropecheck verify` knows, in the paper's order. One file per statement in proofs/.
#pragma once

#include <string>
#include <vector>

#include "claims/claim.h"

namespace ropecheck::proofs {

const std::vector<Claim>& registered_claims();

// Returns: the claim with this id. Throws InputError("--claim", list of ids, id).
const Claim& find_claim(const std::string& id);

}  // namespace ropecheck::proofs

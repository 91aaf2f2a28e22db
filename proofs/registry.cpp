#include "registry.h"

#include "io/input_error.h"
#include "lemma-a1.h"
#include "prop-3.1.h"
#include "thm-5.3.h"

namespace ropecheck::proofs {

const std::vector<Claim>& registered_claims() {
  static const std::vector<Claim> claims = {
      {"lemma-a1", "Lemma A.1: n*g is a multiple of 2*pi only at n = 0", check_lemma_a1},
      {"prop-3.1", "Proposition 3.1: RoPE can be maximal at an arbitrary distance", check_prop_3_1},
      {"thm-5.3", "Theorem 5.3: RoPE can build diagonal and previous-token heads", check_thm_5_3},
  };
  return claims;
}

const Claim& find_claim(const std::string& id) {
  std::string ids;
  for (const Claim& c : registered_claims()) {
    if (c.id == id) return c;
    ids += (ids.empty() ? "" : ", ") + c.id;
  }
  throw InputError("--claim", "one of " + ids, id);
}

}  // namespace ropecheck::proofs

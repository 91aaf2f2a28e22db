#include "registry.h"

#include "io/input_error.h"
#include "ledger.h"
#include "lemma-a1.h"
#include "lemma-a3.h"
#include "prop-3.1.h"
#include "prop-5.2.h"
#include "prop-3.2.h"
#include "fig-2a.h"
#include "roformer-decay.h"
#include "lemma-a2.h"
#include "table-1.h"
#include "thm-6.1.h"
#include "thm-5.3.h"
#include "dynamic-ntk-cache.h"

namespace ropecheck::proofs {

const std::vector<Claim>& registered_claims() {
  // SmokeRun::yes: cheap enough for the report's --smoke mode (well under a second in Release).
  static const std::vector<Claim> claims = {
      {"lemma-a1", "Lemma A.1: n*g is a multiple of 2*pi only at n = 0", check_lemma_a1},
      {"lemma-a2", "Lemma A.2: {n*g mod 2*pi} is dense in [0, 2*pi] (g/(2*pi) irrational)", check_lemma_a2, SmokeRun::yes},
      {"lemma-a3", "Lemma A.3: a non-maximal activation gets less than half the attention", check_lemma_a3, SmokeRun::yes},
      {"prop-3.1", "Proposition 3.1: RoPE can be maximal at an arbitrary distance", check_prop_3_1},
      {"prop-3.2", "Proposition 3.2: Gaussian queries and keys do not decay", check_prop_3_2},
      {"fig-2a", "Figure 2(a): all-ones queries and keys decay, but not monotonically", check_fig_2a, SmokeRun::yes},
      {"roformer-decay", "RoFormer's Abel bound: an envelope of the all-ones activation, decaying on average", check_roformer_decay, SmokeRun::yes},
      {"prop-5.2", "Proposition 5.2: NoPE cannot learn a diagonal or previous-token head", check_prop_5_2, SmokeRun::yes},
      {"thm-5.3", "Theorem 5.3: RoPE can build diagonal and previous-token heads", check_thm_5_3},
      {"thm-6.1", "Theorem 6.1: single-frequency semantic channels are not robust over long contexts", check_thm_6_1},
      {"table-1", "Table 1: NoPE / RoPE / p-RoPE x positional / semantic, each cell certified", check_table_1},
      {"ledger", "Every number in the paper's text recomputed; errata and wrong hypotheses flagged", check_ledger, SmokeRun::yes},
      {"dynamic-ntk-cache", "Dynamic NTK (transformers' run-time rule): a key cached before the context grew keeps the old base, so the query mixes two bases", check_dynamic_ntk_cache},
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

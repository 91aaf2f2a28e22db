#include "cli/verify_command.h"

#include <algorithm>
#include <iostream>
#include <sstream>

#include "certificate/environment.h"
#include "io/atomic_write.h"
#include "io/input_error.h"
#include "io/version.h"
#include "numeric/precision.h"
#include "proofs/registry.h"

namespace ropecheck::cli {

void VerifyCommand::attach(CLI::App& app) {
  command = app.add_subcommand("verify", "run claim checks and print their certificates");
  command->add_option("--claim", claims, "claim id (repeatable; default: every claim)");
  add_spectrum_flags(command, flags);
  command->add_option("--precision", precision, "working precision in bits (>= 53, default 256)");
  command->add_option("--max-precision", max_precision, "cap in bits of the retry ladder for undecided comparisons (>= --precision, default 4096)");
  command->add_option("--epsilon", epsilon, "thm-5.3, thm-6.1, table-1: sharpness epsilon, a decimal in (0, 1/2) (thm-6.1 accepts 1/2)");
  command->add_option("--frequency", frequency, "lemma-a2, thm-6.1 (decimal or K*pi/M), thm-5.3 sweep (decimal): frequency g > 0 in radians per token");
  command->add_option("--phase", phase, "lemma-a2: target angle; thm-6.1: channel phase (radians: decimal or K*pi/M)");
  command->add_option("--tolerance", tolerance, "lemma-a2: tolerance delta (decimal > 0); thm-5.3: relative width of the norm bracket (in [1e-12, 0.1])");
  command->add_option("--max-n", max_n, "largest position or length a check covers (integer >= 1)");
  command->add_option("--trials", trials, "number of seeded random instances (integer >= 1)");
  command->add_option("--ledger", ledger, "ledger: the ledger data file (default: proofs/ledger.json of the source tree)");
  command->add_option("--seed", seed, "seed of random inputs (default 1)");
  command->add_option("--distance", distances,
                      "prop-3.1: distance r (repeatable; default 1 7 100 4000); dynamic-ntk-cache: distance i - j of the cached key (repeatable)");
  command->add_option("--query-length", query_lengths,
                      "dynamic-ntk-cache: sequence length S = i + 1 when the query at i runs (repeatable; default M, M+1, 2M, 4M)");
  command->add_option("--query", query, "prop-3.1: the query, d comma-separated decimals (default: seeded random)");
  command->add_option("--json", json_path, "write the certificates as JSON to this file");
  command->add_flag("--list", list, "list the claim ids and exit");
}

int VerifyCommand::run() {
  if (list) {
    for (const Claim& c : proofs::registered_claims()) std::cout << c.id << "\t" << c.title << "\n";
    return 0;
  }
  if (!json_path.empty()) check_output(json_path, "--json");
  ClaimOptions options;
  options.spectrum = to_request(flags);
  options.precision_bits = parse_precision(precision);
  if (!seed.empty()) options.seed = parse_seed(seed);
  options.max_precision_bits = std::max(options.precision_bits, 4096u);
  if (!max_precision.empty())
    options.max_precision_bits = static_cast<unsigned>(
        parse_integer("--max-precision", max_precision, options.precision_bits, kMaxPrecisionBits));
  if (!epsilon.empty()) options.epsilon = epsilon;
  if (!frequency.empty()) options.frequency = frequency;
  if (!phase.empty()) options.phase = phase;
  if (!tolerance.empty()) options.tolerance = tolerance;
  if (!max_n.empty()) options.max_n = parse_integer("--max-n", max_n, 1, kMaxLengthArgument);
  if (!ledger.empty()) options.ledger = ledger;
  if (!trials.empty()) options.trials = parse_integer("--trials", trials, 1, 1000000);
  for (const std::string& d : distances) options.distances.push_back(parse_integer("--distance", d, 0, kMaxLengthArgument));
  for (const std::string& s : query_lengths) options.query_lengths.push_back(parse_integer("--query-length", s, 1, kMaxLengthArgument));
  if (!query.empty()) {
    std::stringstream ss(query);
    std::string item;
    while (std::getline(ss, item, ',')) options.query.push_back(item);
  }
  std::vector<const Claim*> selected;
  if (claims.empty())
    for (const Claim& c : proofs::registered_claims()) selected.push_back(&c);
  for (const std::string& id : claims) selected.push_back(&proofs::find_claim(id));

  std::vector<Certificate> certificates;
  // One summary per claim (a claim may need several certificates: one per configuration or
  // construction); the claim agrees with the paper only when every one of its certificates does.
  nlohmann::json claims_json = nlohmann::json::array();
  for (const Claim* c : selected) {
    std::vector<Certificate> got = c->check(options);
    bool claim_agrees = !got.empty();
    for (const Certificate& x : got) claim_agrees = claim_agrees && x.as_paper_states();
    claims_json.push_back({{"claim", c->id}, {"title", c->title}, {"certificates", got.size()}, {"as_paper_states", claim_agrees}});
    certificates.insert(certificates.end(), got.begin(), got.end());
  }
  std::cout << format_table(certificates);

  bool agree = true;
  nlohmann::json out = {{"tool", kToolName}, {"arithmetic", arithmetic_environment()}, {"claims", claims_json}, {"certificates", nlohmann::json::array()}};
  for (const Certificate& c : certificates) {
    agree = agree && c.as_paper_states();
    out["certificates"].push_back(to_json(c));
  }
  out["all_as_paper_states"] = agree;
  if (!json_path.empty()) atomic_write(json_path, out.dump(2) + "\n", "--json");
  return agree ? 0 : 1;
}

}  // namespace ropecheck::cli

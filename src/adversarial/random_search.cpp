#include "adversarial/random_search.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

#include "adversarial/scan.h"
#include "io/input_error.h"
#include "adversarial/detail/float_activations.h"
#include "random/counter_rng.h"
#include "random/uniform_below.h"

namespace ropecheck::adversarial {

RandomSearchResult random_search(const Head& head, long long max_context, std::uint64_t seed, long long evaluations) {
  if (head.distractors.size() != 1 || head.notion != Notion::attention || head.bos)
    throw InputError("head", "one distractor type, notion attention, no bos (the random baseline's family)", "another head");
  if (max_context < 2 || max_context > (1LL << 27)) throw InputError("max_context", "an integer in [2, 2^27]", std::to_string(max_context));
  // The same per-distance activations the scan computes (production kernel sin/cos), tabulated once,
  // with prefix sums of E_o in log space: every candidate is then decided in O(1).
  detail::FloatActivations act(head);
  const size_t n = static_cast<size_t>(max_context) + 1;
  std::vector<double> at(n), ao(n), log_prefix(n);
  {
    double lp = -std::numeric_limits<double>::infinity();
    for (size_t d = 0; d < n; ++d) {
      act.at(static_cast<long long>(d));
      const double a = act.activation(0), b = act.activation(1);
      at[d] = a, ao[d] = b;
      const double m = lp > b ? lp : b;
      lp = lp == -std::numeric_limits<double>::infinity() ? b : m + std::log1p(std::exp(-std::fabs(lp - b)));
      log_prefix[d] = lp;
    }
  }
  const double eps = std::strtod(head.epsilon.c_str(), nullptr), brk = std::strtod(head.break_at.c_str(), nullptr);
  auto alpha = [&](long long L, long long d) {
    const double log_s = log_prefix[static_cast<size_t>(L)];
    return 1 / (1 + std::exp(log_s - at[static_cast<size_t>(d)]) * -std::expm1(ao[static_cast<size_t>(d)] - log_s));
  };
  RandomSearchResult r;
  const CounterRng rng(seed, 0x7261'6e64'6f6dULL);  // stream "random"
  std::uint64_t counter = 0;
  auto next = [&] { return rng.bits(counter++); };
  for (long long i = 0; i < evaluations; ++i) {
    const long long L = 1 + static_cast<long long>(uniform_below_u64(static_cast<std::uint64_t>(max_context), next));
    const long long d0 = 1 + static_cast<long long>(uniform_below_u64(static_cast<std::uint64_t>(L), next));
    const long long d1 = 1 + static_cast<long long>(uniform_below_u64(static_cast<std::uint64_t>(L), next));
    ++r.evaluations;
    if (alpha(L, d0) > 1 - eps && alpha(L, d1) <= brk) {
      if (r.hits++ == 0) r.evaluations_to_first = r.evaluations;
      if (r.shortest_context == 0 || L < r.shortest_context) r.shortest_context = L;
    }
  }
  return r;
}

}  // namespace ropecheck::adversarial

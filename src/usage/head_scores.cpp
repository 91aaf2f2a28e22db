#include "usage/head_scores.h"

#include <unordered_map>

namespace ropecheck::usage {

void HeadScores::add(const HeadScores& o) {
  if (offsets.empty()) offsets.resize(o.offsets.size());
  for (size_t d = 0; d < o.offsets.size(); ++d) offsets[d].add(o.offsets[d]);
  first.add(o.first);
  induction.add(o.induction);
}

InductionTargets::InductionTargets(const std::vector<long long>& tokens) {
  // Earlier occurrences of each token, in order; row i's targets are j + 1 for occurrences j <= i - 2.
  std::unordered_map<long long, std::vector<long long>> seen;
  start_.reserve(tokens.size() + 1);
  start_.push_back(0);
  same_start_.reserve(tokens.size() + 1);
  same_start_.push_back(0);
  for (size_t i = 0; i < tokens.size(); ++i) {
    std::vector<long long>& at = seen[tokens[i]];
    for (long long j : at)
      if (j + 2 <= static_cast<long long>(i)) keys_.push_back(j + 1);
    start_.push_back(keys_.size());
    same_keys_.insert(same_keys_.end(), at.begin(), at.end());
    same_start_.push_back(same_keys_.size());
    at.push_back(static_cast<long long>(i));
  }
}

}  // namespace ropecheck::usage

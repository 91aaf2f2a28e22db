#include "usage/layer_pairs.h"

#include <algorithm>
#include <numeric>

#include "io/input_error.h"
#include "numeric/scalar.h"
#include "spectrum/frequencies.h"

namespace ropecheck::usage {

std::string band_name(Band b) {
  switch (b) {
    case Band::fast: return "fast";
    case Band::middle: return "middle";
    case Band::slow: return "slow";
    case Band::still: return "still";
  }
  return "still";
}

LayerPairs layer_pairs(const LayerType& lt) {
  LayerPairs lp;
  std::vector<bool> used(static_cast<size_t>(lt.head_dim), false);
  if (lt.spectrum && lt.rotary_dims > 0) {
    lp.plan.emplace(lt);
    const kernel::RopePlan& plan = *lp.plan;
    lp.attention_factor = plan.attention_factor();
    const std::vector<Interval> g = frequencies<Interval>(plan.spectrum());
    for (int k = 0; k < plan.block_pairs(); ++k) {
      HeadPair p;
      p.first = plan.first_element(k);
      p.second = plan.second_element(k);
      p.block = k;
      p.frequency = to_double(midpoint(g[static_cast<size_t>(plan.spectrum_pair(k))]));
      used[static_cast<size_t>(p.first)] = used[static_cast<size_t>(p.second)] = true;
      lp.pairs.push_back(p);
    }
  }
  std::vector<int> rest;
  for (int c = 0; c < lt.head_dim; ++c)
    if (!used[static_cast<size_t>(c)]) rest.push_back(c);
  if (rest.size() % 2 != 0)
    throw InputError("head_dim", "an even number of channels outside the rotary part", std::to_string(rest.size()));
  for (size_t i = 0; i < rest.size(); i += 2) lp.pairs.push_back(HeadPair{rest[i], rest[i + 1], -1, 0, Band::still});

  std::vector<int> order;
  for (size_t i = 0; i < lp.pairs.size(); ++i)
    if (lp.pairs[i].frequency > 0) order.push_back(static_cast<int>(i));
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return lp.pairs[static_cast<size_t>(a)].frequency > lp.pairs[static_cast<size_t>(b)].frequency; });
  lp.rotating = static_cast<int>(order.size());
  lp.quarter = lp.rotating / 4;
  for (int r = 0; r < lp.rotating; ++r)
    lp.pairs[static_cast<size_t>(order[static_cast<size_t>(r)])].band =
        r < lp.quarter ? Band::fast : r >= lp.rotating - lp.quarter ? Band::slow : Band::middle;
  return lp;
}

}  // namespace ropecheck::usage

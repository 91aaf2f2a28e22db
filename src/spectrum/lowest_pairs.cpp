#include "spectrum/lowest_pairs.h"

#include <algorithm>

#include "io/input_error.h"
#include "numeric/precision.h"
#include "spectrum/frequencies.h"

namespace ropecheck {

std::vector<int> lowest_pairs(const Spectrum& spectrum, int k) {
  if (k < 0 || k > spectrum.rotated_pairs())
    throw InputError("pairs", "between 0 and the " + std::to_string(spectrum.rotated_pairs()) + " rotating pairs of " + spectrum.describe(),
                     std::to_string(k));
  // Ordered by the frequencies themselves, enclosed at 128 bits (frequencies<Interval>: every rule
  // of scaling.h, exact real g): an order by exponent would hold for the monotone rules only, and
  // longrope's per-pair factors need not be monotone. Pairs whose enclosures' midpoints tie are
  // ordered by index. tests/spectrum/lowest_pairs_test.cpp checks the choice against the enclosures.
  struct Entry {
    int pair;
    Real g;
  };
  std::vector<Entry> rotating;
  {
    ScopedPrecision precision(128);
    const std::vector<Interval> g = frequencies<Interval>(spectrum);
    for (int p = 0; p < spectrum.pairs(); ++p)
      if (spectrum.rotated(p)) rotating.push_back({p, midpoint(g[static_cast<std::size_t>(p)])});
  }
  std::stable_sort(rotating.begin(), rotating.end(), [](const Entry& a, const Entry& b) { return a.g < b.g; });
  std::vector<int> out;
  for (int i = 0; i < k; ++i) out.push_back(rotating[static_cast<std::size_t>(i)].pair);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ropecheck

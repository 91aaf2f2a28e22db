#include "usage/same_token.h"

#include <limits>

#include "statistics/inference.h"
#include "statistics/moments.h"

namespace ropecheck::usage {

SameTokenTest same_token_test(const std::vector<SequenceSameToken>& per_sequence, double level) {
  SameTokenTest t;
  statistics::Moments mass, expected, excess;  // exact sums: the same bits in any order
  for (const SequenceSameToken& s : per_sequence) {
    if (s.rows == 0) continue;
    mass.add(s.mass);
    expected.add(s.expected);
    excess.add(s.mass - s.expected);
    t.rows += s.rows;
  }
  t.sequences = excess.n;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  t.lo = -kInf;
  t.hi = kInf;
  if (t.sequences == 0) return t;
  t.mass = statistics::summarize(mass).mean;
  t.expected = statistics::summarize(expected).mean;
  const statistics::Summary e = statistics::summarize(excess);
  t.excess = e.mean;
  if (t.sequences >= 2) {
    const statistics::Interval2 ci = statistics::mean_interval(e, level);
    t.lo = ci.lo;
    t.hi = ci.hi;
  }
  return t;
}

}  // namespace ropecheck::usage

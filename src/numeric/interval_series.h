// File: interval_series.h
// Certified facts about a sequence of enclosures x_0, x_1, ..., x_n, where x_r encloses an exact
// real v_r (an activation at distance r, a bound at distance r): where it steps up or down, where it
// first turns negative, its extremes and means over a window. Every fact is three-valued at heart:
// a step or sign the enclosures cannot decide is counted as undecided, never as either answer.
// Only endpoints are compared (never Interval operators, see scalar.h).
#pragma once

#include <cstddef>
#include <vector>

#include "numeric/scalar.h"

namespace ropecheck {

// Steps v_{r+1} - v_r for lo <= r < hi.
struct StepCounts {
  long long increases = 0;  // lower(x_{r+1}) > upper(x_r): v_{r+1} > v_r certainly
  long long decreases = 0;  // upper(x_{r+1}) < lower(x_r): v_{r+1} < v_r certainly
  long long undecided = 0;  // the enclosures overlap: no certified direction
  std::vector<long long> first_increases;  // the first `keep` r with a certified increase
};
// Preconditions: 0 <= lo <= hi < x.size().
StepCounts count_steps(const std::vector<Interval>& x, long long lo, long long hi, std::size_t keep = 10);

// The maximum (or minimum) of v_r over lo <= r <= hi lies in [lower, upper]: for the maximum,
// lower = max_r lower(x_r) (attained by some v_r at least) and upper = max_r upper(x_r).
// at = an r attaining the best lower bound (for the minimum: the smallest upper bound);
// candidates = how many r could be the extremum (their enclosure reaches past the other bound), so
// candidates == 1 certifies that `at` is the unique arg-extremum.
struct Extremum {
  Real lower;
  Real upper;
  long long at = -1;
  long long candidates = 0;
};
// Preconditions: 0 <= lo <= hi < x.size().
Extremum maximum_over(const std::vector<Interval>& x, long long lo, long long hi);
Extremum minimum_over(const std::vector<Interval>& x, long long lo, long long hi);

// Returns: an enclosure of the mean (v_lo + ... + v_hi) / (hi - lo + 1). Preconditions as above.
Interval mean_over(const std::vector<Interval>& x, long long lo, long long hi);

// The first r in [lo, hi] with v_r certainly negative, if every earlier v_r is certainly positive.
struct FirstNegative {
  long long at = -1;          // the first certainly negative r; -1 when none in the range
  long long undecided_at = -1;  // the first r whose sign is undecided, if it comes before `at`
  bool decided() const { return undecided_at < 0; }  // every sign up to `at` (or hi) was certified
};
// Preconditions as above.
FirstNegative first_negative(const std::vector<Interval>& x, long long lo, long long hi);

// Counts of certified signs over [lo, hi].
struct SignCounts {
  long long positive = 0;
  long long negative = 0;
  long long undecided = 0;
};
SignCounts count_signs(const std::vector<Interval>& x, long long lo, long long hi);

}  // namespace ropecheck

#include "numeric/interval_series.h"

#include <stdexcept>

namespace ropecheck {
namespace {

void check_range(const std::vector<Interval>& x, long long lo, long long hi) {
  if (lo < 0 || hi < lo || hi >= static_cast<long long>(x.size()))
    throw std::invalid_argument("interval_series: window outside the series");
}

// Endpoints are extracted once per element: lower_of/upper_of allocate a Real each time.
struct Ends {
  std::vector<Real> lo, hi;
};
Ends ends(const std::vector<Interval>& x, long long lo, long long hi) {
  Ends e;
  e.lo.reserve(static_cast<std::size_t>(hi - lo + 1));
  e.hi.reserve(static_cast<std::size_t>(hi - lo + 1));
  for (long long r = lo; r <= hi; ++r) {
    e.lo.push_back(lower_of(x[static_cast<std::size_t>(r)]));
    e.hi.push_back(upper_of(x[static_cast<std::size_t>(r)]));
  }
  return e;
}

}  // namespace

StepCounts count_steps(const std::vector<Interval>& x, long long lo, long long hi, std::size_t keep) {
  check_range(x, lo, hi);
  const Ends e = ends(x, lo, hi);
  StepCounts out;
  for (std::size_t t = 0; t + 1 < e.lo.size(); ++t) {
    if (e.lo[t + 1] > e.hi[t]) {
      ++out.increases;
      if (out.first_increases.size() < keep) out.first_increases.push_back(lo + static_cast<long long>(t));
    } else if (e.hi[t + 1] < e.lo[t]) {
      ++out.decreases;
    } else {
      ++out.undecided;
    }
  }
  return out;
}

Extremum maximum_over(const std::vector<Interval>& x, long long lo, long long hi) {
  check_range(x, lo, hi);
  const Ends e = ends(x, lo, hi);
  Extremum m;
  m.lower = e.lo[0];
  m.upper = e.hi[0];
  m.at = lo;
  for (std::size_t t = 1; t < e.lo.size(); ++t) {
    if (e.lo[t] > m.lower) {
      m.lower = e.lo[t];
      m.at = lo + static_cast<long long>(t);
    }
    if (e.hi[t] > m.upper) m.upper = e.hi[t];
  }
  // v_r can be the maximum only if its upper bound reaches the certified floor m.lower.
  for (std::size_t t = 0; t < e.hi.size(); ++t)
    if (e.hi[t] >= m.lower) ++m.candidates;
  return m;
}

Extremum minimum_over(const std::vector<Interval>& x, long long lo, long long hi) {
  check_range(x, lo, hi);
  const Ends e = ends(x, lo, hi);
  Extremum m;
  m.lower = e.lo[0];
  m.upper = e.hi[0];
  m.at = lo;
  for (std::size_t t = 1; t < e.lo.size(); ++t) {
    if (e.hi[t] < m.upper) {
      m.upper = e.hi[t];
      m.at = lo + static_cast<long long>(t);
    }
    if (e.lo[t] < m.lower) m.lower = e.lo[t];
  }
  for (std::size_t t = 0; t < e.lo.size(); ++t)
    if (e.lo[t] <= m.upper) ++m.candidates;
  return m;
}

Interval mean_over(const std::vector<Interval>& x, long long lo, long long hi) {
  check_range(x, lo, hi);
  Interval sum(0);
  for (long long r = lo; r <= hi; ++r) sum += x[static_cast<std::size_t>(r)];
  return Interval(sum / (hi - lo + 1));
}

FirstNegative first_negative(const std::vector<Interval>& x, long long lo, long long hi) {
  check_range(x, lo, hi);
  FirstNegative out;
  for (long long r = lo; r <= hi; ++r) {
    const Interval& v = x[static_cast<std::size_t>(r)];
    if (certainly_negative(v)) {
      out.at = r;
      return out;
    }
    if (!certainly_positive(v) && out.undecided_at < 0) out.undecided_at = r;
  }
  return out;
}

SignCounts count_signs(const std::vector<Interval>& x, long long lo, long long hi) {
  check_range(x, lo, hi);
  SignCounts out;
  for (long long r = lo; r <= hi; ++r) {
    const Interval& v = x[static_cast<std::size_t>(r)];
    if (certainly_positive(v)) ++out.positive;
    else if (certainly_negative(v)) ++out.negative;
    else ++out.undecided;
  }
  return out;
}

}  // namespace ropecheck

// File: analysis.h
// From a complete partial to what a statistician would report: per-distance means, standard
// errors and 99.9% intervals, and the three tests of "no decay with distance":
//   1. exceedance: the number of distances whose interval excludes 0 against its nominal rate
//      (binomial test; for fig9 and fig8, whose distances share a trial's vectors, the test that
//      accounts for their known correlation, statistics::dependent_exceedance_test);
//   2. slope: the least-squares slope of a(r) on r, computed per trial (trials are independent, so
//      its mean over trials has an honest standard error), t-test against 0;
//   3. two-sample Kolmogorov-Smirnov between near and far distances (each trial contributes one
//      value at a distance drawn from the near window (even trials) or the far window (odd ones)).
// A Gaussian series is `confirmed` when no test rejects at alpha (each at 0.001: a true claim is
// reported not-confirmed with probability <= 0.003); a constant (all-ones) series is expected to
// fail them: the decay is real there, and the verdict names the tests that detected it.
// The variance experiment tests the variance and kurtosis instead of the mean (H0: d and 3 + 6/d).
// fig8 also checks the Monte Carlo mean of the all-ones series against the gap law's closed form
// (montecarlo/gap_law.h) within simultaneous (Bonferroni) 99.9% intervals.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "montecarlo/partial.h"

namespace ropecheck::montecarlo {

struct Analysis {
  nlohmann::json json;       // params, per-series tests and verdicts, per-distance series
  std::string csv;           // series,r,n,mean,se,ci_lo,ci_hi,... one row per (series, distance)
  std::string text;          // the human summary printed on stdout
  bool as_paper_says = true; // every Gaussian series confirmed, every all-ones series detected decay
};

// Returns: the analysis of `p`. Preconditions: p.complete() (InputError otherwise, naming the
// missing trials).
Analysis analyse(const Partial& p);

}  // namespace ropecheck::montecarlo

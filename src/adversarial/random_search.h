// File: random_search.h
// The baseline the guided scan is measured against: plain random search over (context, target
// distance before, target distance after). Each candidate is decided in O(1) from the same
// per-distance activations and prefix sums the scan uses (so the comparison measures the search
// strategy, not the cost of an evaluation): it is the strongest random baseline, not a strawman.
// Seeded (CounterRng); the same seed gives the same candidates.
#pragma once

#include <cstdint>

#include "adversarial/head.h"

namespace ropecheck::adversarial {

struct RandomSearchResult {
  long long evaluations = 0;
  long long hits = 0;               // candidates whose float test says "works and breaks"
  long long shortest_context = 0;   // 0 when no hit
  long long evaluations_to_first = 0;
};

// Preconditions: as guided_scan (one distractor type). Draws `evaluations` candidates with the
// context uniform in [1, max_context] and both distances uniform in [1, context].
RandomSearchResult random_search(const Head& head, long long max_context, std::uint64_t seed, long long evaluations);

}  // namespace ropecheck::adversarial

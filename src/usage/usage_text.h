// File: usage_text.h
// The usage result as text: one row per head (its kind, the scores against chance, the share,
// the ablations, its breaking distances), then the rule's false-positive rate on the Gaussian null,
// Section 5 across heads and within layers, and the breaking-distance distribution. The one printer:
// `ropecheck usage` prints it and Python's str(ropecheck.usage(...)) returns it.
#pragma once

#include <string>

#include "usage/usage.h"

namespace ropecheck::usage {

std::string usage_text(const UsageResult& r);

// Returns: a head's kind as printed: "offset 3" for an offset head, else head_kind_name.
std::string kind_text(const HeadUsage& h);

// A head's score with the largest mean mass among its offsets, the first token and induction
// (the one its kind rests on when it has a kind), named "offset 1", "first token" or "induction".
struct NamedScore {
  std::string name;
  const ScoreTest* test = nullptr;  // points into the head's HeadClass
};
NamedScore strongest_score(const HeadUsage& h);

}  // namespace ropecheck::usage

// File: replay_verdict.h
// The verdict of replaying a stored counterexample by value (`ropecheck replay`), for every kind
// of counterexample (a broken channel or band, adversarial/certify.h; a kernel output outside its
// bound, accuracy/kernel_counterexample.h): three-valued, so an undecided re-check is never a pass.
#pragma once

#include <string>

namespace ropecheck {

// still_breaks: the counterexample certainly still breaks what it broke; no_longer_breaks: it
// certainly does not; inconclusive: the enclosures could not decide.
enum class ReplayVerdict { still_breaks, no_longer_breaks, inconclusive };

// Returns: "still-breaks", "no-longer-breaks", "inconclusive".
inline std::string verdict_name(ReplayVerdict v) {
  return v == ReplayVerdict::still_breaks ? "still-breaks" : v == ReplayVerdict::no_longer_breaks ? "no-longer-breaks" : "inconclusive";
}

}  // namespace ropecheck

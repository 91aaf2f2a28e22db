// File: retry.h
// The precision ladder every interval check climbs: an undecided comparison at B bits is retried at
// 2B, 4B, ... up to a cap, and only then reported `inconclusive`. Raising the precision narrows
// every enclosure that is wide because of rounding; it cannot decide a comparison between two equal
// exact numbers, so the cap keeps a true tie (or a truly returning rotation) from looping forever.
#pragma once

#include <algorithm>
#include <nlohmann/json.hpp>
#include <vector>

#include "certificate/certificate.h"
#include "numeric/precision.h"

namespace ropecheck {

// The ladder itself, for any result: calls compute(bits) for bits = start, 2*start, ... until
// settled(result) or bits reaches cap (the last attempt runs at exactly min(2*previous, cap)).
// Returns the last result; `attempts` receives the bits of each call. `compute` must build its own
// ScopedPrecision from the bits it is given. Preconditions: kMinPrecisionBits <= start.
template <class Compute, class Settled>
auto climb_precision(unsigned start, unsigned cap, Compute&& compute, Settled&& settled, std::vector<unsigned>& attempts) {
  unsigned bits = start;
  for (;;) {
    attempts.push_back(bits);
    auto result = compute(bits);
    if (bits >= cap || settled(result)) return result;
    bits = std::min(cap, bits * 2);
  }
}

// climb_precision for a claim check: settled when the verdict is not `inconclusive`, or when the
// check set details["precision_cannot_help"] = true (its inconclusive verdict has a reason no
// precision changes, such as nothing found within the finite range, so climbing would only repeat
// the same work). Returns the last certificate with details["precision_attempts"] = the bits of
// each attempt, so a reader sees the ladder that was climbed.
template <class Check>
Certificate certify_with_retry(unsigned start, unsigned cap, Check&& check) {
  std::vector<unsigned> attempts;
  Certificate c = climb_precision(start, cap, check, [](const Certificate& x) {
    return x.verdict != Verdict::inconclusive || (x.details.is_object() && x.details.value("precision_cannot_help", false));
  }, attempts);
  if (!c.details.is_object()) c.details = nlohmann::json::object();
  c.details["precision_attempts"] = attempts;
  return c;
}

}  // namespace ropecheck

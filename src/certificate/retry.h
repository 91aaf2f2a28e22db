// File: retry.h
// The precision ladder every interval check climbs: an undecided comparison at B bits is retried at
// 2B, 4B, ... up to a cap, and only then reported `inconclusive`. Raising the precision narrows
// every enclosure that is wide because of rounding; it cannot decide a comparison between two equal
// exact numbers, so the cap keeps a true tie (or a truly returning rotation) from looping forever.
#pragma once

#include <algorithm>
#include <nlohmann/json.hpp>

#include "certificate/certificate.h"
#include "numeric/precision.h"

namespace ropecheck {

// Calls check(bits) for bits = start, 2*start, ... while the verdict is `inconclusive` and
// bits < cap (the last attempt runs at exactly min(2*previous, cap)), unless the check set
// details["precision_cannot_help"] = true: its inconclusive verdict has a reason no precision
// changes (nothing found within the finite range, say), so climbing would only repeat the same
// work. Returns the last certificate,
// with details["precision_attempts"] = the bits requested at each attempt, so a reader sees the
// ladder that was climbed. `check` must build its own ScopedPrecision from the bits it is given.
// Preconditions: kMinPrecisionBits <= start.
template <class Check>
Certificate certify_with_retry(unsigned start, unsigned cap, Check&& check) {
  nlohmann::json attempts = nlohmann::json::array();
  unsigned bits = start;
  for (;;) {
    attempts.push_back(bits);
    Certificate c = check(bits);
    const bool final_reason = c.details.is_object() && c.details.value("precision_cannot_help", false);
    if (c.verdict != Verdict::inconclusive || bits >= cap || final_reason) {
      if (!c.details.is_object()) c.details = nlohmann::json::object();
      c.details["precision_attempts"] = attempts;
      return c;
    }
    bits = std::min(cap, bits * 2);
  }
}

}  // namespace ropecheck

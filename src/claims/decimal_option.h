// File: decimal_option.h
// A claim parameter given as decimal text (--epsilon 0.1, --frequency 1, ...), turned into an
// interval at the working precision: "0.1" is the real number 1/10, enclosed, not the double
// nearest to it.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

#include "io/input_error.h"
#include "numeric/scalar.h"

namespace ropecheck {

// Returns: the tightest enclosure of `text` (or of `fallback` when text is empty) at the current
// precision. Throws InputError(flag, accepted, text) when the text is not one finite decimal; range
// checks are the caller's (it knows the accepted range and states it in the same message form).
inline Interval decimal_option(const std::optional<std::string>& text, const std::string& fallback, const std::string& flag,
                               const std::string& accepted) {
  const std::string& s = text ? *text : fallback;
  try {
    return from_decimal<Interval>(s);
  } catch (const std::invalid_argument&) {
    throw InputError(flag, accepted, s);
  }
}

}  // namespace ropecheck

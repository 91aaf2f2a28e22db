// File: angle_option.h
// An angle or frequency parameter given as text: a decimal ("1", "0.5e-3") or a rational multiple
// of pi ("pi", "pi/2", "-3*pi/8", "2*pi/7"). The pi forms exist because pi/2 or 2*pi/7 typed as a
// decimal is a different real number: a rational multiple of 2*pi is exactly the case (a finite
// orbit) that lemma-a2 and thm-6.1 must be able to exhibit.
#pragma once

#include <optional>
#include <regex>
#include <string>

#include "claims/decimal_option.h"
#include "io/input_error.h"
#include "numeric/scalar.h"

namespace ropecheck {

// Returns: the tightest enclosure (at the current precision) of `text`, or of `fallback` when text
// is empty: a finite decimal, or "[-][K*]pi[/M]" with K, M positive integers (K <= 10^9,
// 1 <= M <= 10^9), meaning -K*pi/M. Throws InputError(flag, accepted, text) otherwise; range checks
// are the caller's.
inline Interval angle_option(const std::optional<std::string>& text, const std::string& fallback, const std::string& flag,
                             const std::string& accepted) {
  const std::string& s = text ? *text : fallback;
  static const std::regex pi_form(R"(^\s*(-?)(?:([0-9]{1,9})\s*\*\s*)?pi(?:\s*/\s*([0-9]{1,9}))?\s*$)");
  std::smatch m;
  if (!std::regex_match(s, m, pi_form)) return decimal_option(std::optional<std::string>(s), s, flag, accepted);
  const long k = m[2].matched ? std::stol(m[2].str()) : 1;
  const long d = m[3].matched ? std::stol(m[3].str()) : 1;
  if (k == 0 || d == 0) throw InputError(flag, accepted, s);
  Interval x = pi_value<Interval>();
  x *= k;
  x /= d;  // MPFI rounds each step outward: the result encloses k*pi/d
  if (!m[1].str().empty()) x = -x;
  return x;
}

}  // namespace ropecheck

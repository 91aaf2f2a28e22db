// File: decimal.h
// Decimal strings for certificates: a lower bound is printed rounded toward -inf and an upper bound
// toward +inf, so the printed [lower, upper] still encloses the value the interval encloses.
#pragma once

#include <string>

#include "numeric/scalar.h"

namespace ropecheck {

enum class Rounding { down, up, nearest };

// Returns: x in scientific notation with `digits` significant digits ("1.2345e-3", "0", "-2.5e+1"),
// rounded in direction `rnd`. Infinities print as "inf"/"-inf", NaN as "nan".
// Preconditions: 1 <= digits <= 1000.
std::string to_decimal(const Real& x, int digits, Rounding rnd = Rounding::nearest);

// A rigorous decimal enclosure [lower, upper] of a value.
struct DecimalBounds {
  std::string lower;
  std::string upper;
};

// Returns: decimal bounds of x: lower rounded down, upper rounded up, `digits` significant digits.
DecimalBounds decimal_bounds(const Interval& x, int digits = 20);

// Returns: "[lower, upper]" from decimal_bounds(x, digits): how certificates and reports print an
// enclosure.
std::string decimal_interval_text(const Interval& x, int digits);

}  // namespace ropecheck

// File: binary16.h
// IEEE 754 binary16 (NumPy's float16, '<f2') decoded exactly: every binary16 value, subnormals
// included, is a binary64 value, so the conversion never rounds.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace ropecheck {

// Returns: whether `bits` encode a finite binary16 value (exponent field not all ones).
constexpr bool binary16_is_finite(std::uint16_t bits) { return (bits & 0x7C00u) != 0x7C00u; }

// Returns: the binary16 value of `bits` as a double, exactly: subnormals m * 2^-24, normals
// (1024 + m) * 2^(e - 25), signed zeros kept; infinities as infinities and NaNs as a quiet NaN.
inline double binary16_to_double(std::uint16_t bits) {
  const bool negative = (bits & 0x8000u) != 0;
  const int exponent = (bits >> 10) & 0x1F;
  const int mantissa = bits & 0x3FF;
  double magnitude;
  if (exponent == 0x1F)
    magnitude = mantissa == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  else if (exponent == 0)
    magnitude = std::ldexp(static_cast<double>(mantissa), -24);
  else
    magnitude = std::ldexp(static_cast<double>(1024 + mantissa), exponent - 25);
  return negative ? -magnitude : magnitude;
}

}  // namespace ropecheck

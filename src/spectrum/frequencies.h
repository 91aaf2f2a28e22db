// File: frequencies.h
// The frequencies g_k of a spectrum in any working precision, computed from the decimal theta and
// the integer exponent -e/D; never from a float literal, so MPFR and MPFI values are as exact as
// their precision allows (g_1 = theta^0 = 1 exactly in every type).
#pragma once

#include <vector>

#include "numeric/scalar.h"
#include "spectrum/spectrum.h"

namespace ropecheck {

// Returns: g_k for k = 0..pairs-1 (0 for unrotated pairs), scaling applied.
// float/double: pow in that type (what a model computes); Real: correctly rounded exponent then
// pow, relative error a few ulps; Interval: an enclosure of the exact real frequency.
template <Scalar T>
std::vector<T> frequencies(const Spectrum& s) {
  std::vector<T> g(static_cast<size_t>(s.pairs()), T(0));
  const T theta = from_decimal<T>(s.theta());
  for (int k = 0; k < s.pairs(); ++k) {
    if (!s.rotated(k)) continue;
    long long e = 0, den = 1;
    s.exponent(k, e, den);
    if (e == 0) {
      g[k] = T(1);  // theta^0, exact: the fastest pair turns exactly one radian per token
    } else {
      const T exponent = T(-T(e) / T(den));
      if constexpr (std::is_floating_point_v<T>) g[k] = std::pow(theta, exponent);
      else g[k] = T(pow(theta, exponent));
    }
    g[k] = apply_scaling(s.scaling(), g[k]);
  }
  return g;
}

}  // namespace ropecheck

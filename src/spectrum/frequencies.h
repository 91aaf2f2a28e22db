// File: frequencies.h
// The frequencies g_k of a spectrum in any working precision, computed from the decimal theta and
// the integer exponent -e/D; never from a float literal, so MPFR and MPFI values are as exact as
// their precision allows (g_1 = theta^0 = 1 exactly in every type).
#pragma once

#include <vector>

#include "numeric/scalar.h"
#include "spectrum/scaling_rules.h"
#include "spectrum/spectrum.h"

namespace ropecheck {

// Returns: g_k for k = 0..pairs-1 (0 for unrotated pairs), scaling applied.
// float/double: pow in that type (what a model computes); Real: correctly rounded exponent then
// pow, relative error a few ulps; Interval: an enclosure of the exact real frequency. `decided`,
// when given, is set to false when an Interval evaluation could not decide one of the scaling
// rule's branches (scaling_rules.h; the enclosures are valid either way).
template <Scalar T>
std::vector<T> frequencies(const Spectrum& s, bool* decided = nullptr) {
  std::vector<T> g(static_cast<size_t>(s.pairs()), T(0));
  const ScalingRule<T> rule(s.scaling(), from_decimal<T>(s.theta()), s.rotary_width());
  const T& theta = rule.theta();
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
    g[k] = rule(g[k], static_cast<int>(e / 2));  // e/2: the pair's slot i in theta^(-2i/d)
  }
  if (decided) *decided = rule.decided();
  return g;
}

}  // namespace ropecheck

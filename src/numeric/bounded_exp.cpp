#include "numeric/bounded_exp.h"

#include <cmath>
#include <limits>

namespace ropecheck {
namespace {

// fdlibm e_exp.c: ln2HI has 32 significant bits (its low 21 bits are zero), ln2LO = ln2 - ln2HI.
constexpr double kLn2Hi = 6.93147180369123816490e-01;  // 0x3fe62e42fee00000
constexpr double kLn2Lo = 1.90821492927058770002e-10;  // 0x3dea39ef35793c76
constexpr double kInvLn2 = 1.44269504088896338700e+00;  // RN(1/ln2)

// RN(1/n!) for n = 0..13 (exact decimal expansions rounded by the compiler, once).
constexpr double kInvFactorial[14] = {1.0,
                                      1.0,
                                      1.0 / 2,
                                      1.0 / 6,
                                      1.0 / 24,
                                      1.0 / 120,
                                      1.0 / 720,
                                      1.0 / 5040,
                                      1.0 / 40320,
                                      1.0 / 362880,
                                      1.0 / 3628800,
                                      1.0 / 39916800,
                                      1.0 / 479001600,
                                      1.0 / 6227020800.0};

}  // namespace

double bounded_exp(double x) {
  if (!(std::fabs(x) <= kBoundedExpDomain)) return std::numeric_limits<double>::quiet_NaN();
  const double k = std::nearbyint(x * kInvLn2);
  const double r1 = x - k * kLn2Hi;  // exact (step 2)
  const double r = r1 - k * kLn2Lo;
  double p = kInvFactorial[13];
  for (int n = 12; n >= 0; --n) p = kInvFactorial[n] + r * p;
  return std::ldexp(p, static_cast<int>(k));
}

}  // namespace ropecheck

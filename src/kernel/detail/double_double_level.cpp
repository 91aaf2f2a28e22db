// The double-double level of the accurate path: the proof is in double_double_level.h.
#include "kernel/detail/double_double_level.h"

#include <cmath>

namespace ropecheck::kernel::detail {


bool round_double_double(Dtype format, const DoubleDoubleAngle& angle, DoubleDouble a, double x_a, double x_b, bool second,
                         double* out) {
  // u = x_1 u_1 + x_2 u_2: y_a = x_a c + (-x_b) s, y_b = x_a s + x_b c.
  const double x1 = x_a, x2 = second ? x_b : -x_b;
  const DoubleDouble& u1 = second ? angle.s : angle.c;
  const DoubleDouble& u2 = second ? angle.c : angle.s;
  const DoubleDouble p1 = two_product(x1, u1.hi), p2 = two_product(x2, u2.hi);
  const DoubleDouble sum = two_sum(p1.hi, p2.hi);
  const double low = std::fma(x1, u1.lo, x2 * u2.lo);
  const double rest = sum.lo + ((p1.lo + p2.lo) + low);
  const DoubleDouble u = two_sum(sum.hi, rest);
  // y = u a: the leading product exact, the low parts in one fma and one sum.
  const DoubleDouble lead = two_product(u.hi, a.hi);
  const double tail = lead.lo + std::fma(u.hi, a.lo, u.lo * a.hi);
  const DoubleDouble y = two_sum(lead.hi, tail);

  const DtypeInfo& f = dtype_info(format);
  const int precision = f.precision;
  const double s = std::fabs(x_a) + std::fabs(x_b);
  const double bound = ((s * (angle.delta + 0x1p-100)) * a.hi) * (1 + 0x1p-50);
  const double mag = std::fabs(y.hi);
  if (!(mag >= std::ldexp(1.0, f.emin_normal) && mag < std::ldexp(1.0, f.emax + 1))) return false;
  const double l = y.hi < 0 ? -y.lo : y.lo;
  const int e = std::ilogb(mag);
  const double spacing = std::ldexp(1.0, e - (precision - 1));
  // r: the format's value nearest to mag + l. q = mag / spacing and its fraction are exact (q <
  // 2^precision); |l| <= ulp(mag) / 2 cannot carry mag + l across a midpoint unless mag is one.
  const double q = mag / spacing, whole = std::floor(q), fraction = q - whole;
  const double r = (fraction > 0.5 || (fraction == 0.5 && l > 0) ? whole + 1 : whole) * spacing;
  const double top = std::ldexp(1.0, e + 1), bottom = std::ldexp(1.0, e);
  const double largest = std::ldexp(2.0 - std::ldexp(1.0, 1 - precision), f.emax);
  if (r > largest) return false;
  const double up = r == top ? 2 * spacing : spacing, down = r == bottom ? spacing / 2 : spacing;
  const double to_up = (r + up / 2) - mag, to_down = mag - (r - down / 2);  // exact (Sterbenz)
  if (!(to_up - l > bound && to_down + l > bound)) return false;
  *out = y.hi < 0 ? -r : r;
  return true;
}

}  // namespace ropecheck::kernel::detail

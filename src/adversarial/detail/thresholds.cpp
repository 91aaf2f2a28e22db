#include "adversarial/detail/thresholds.h"

#include <mpfr.h>

#include "numeric/decimal.h"
#include "numeric/precision.h"

namespace ropecheck::adversarial::detail {

Thresholds thresholds(const Head& head, unsigned bits) {
  ScopedPrecision precision(bits);
  Thresholds t;
  const Interval eps = from_decimal<Interval>(head.epsilon);
  t.break_at = from_decimal<Interval>(head.break_at);
  t.one_minus_eps = Interval(1) - eps;
  t.works_ratio = Interval(eps / t.one_minus_eps);
  t.break_possible = upper_of(t.break_at) > 0;
  if (t.break_possible && lower_of(t.break_at) > 0) t.breaks_ratio = Interval((Interval(1) - t.break_at) / t.break_at);
  return t;
}

RelativeEnclosure relative_enclosure(const Interval& x) {
  RelativeEnclosure r;
  const double lo = mpfr_get_d(&x.backend().data()->left, MPFR_RNDD);
  const double hi = mpfr_get_d(&x.backend().data()->right, MPFR_RNDU);
  if (!(lo >= 0x1p-100 && hi <= 0x1p100)) return r;
  // [lo, hi] contains the real; value = hi, so the real is in [hi (1 - rel), hi]. rel is computed
  // in binary64 (two roundings of a number near 2^-52) and doubled, plus 2^-60, which covers them.
  r.value = hi;
  r.rel = 2 * ((hi - lo) / hi) + 0x1p-60;
  return r;
}

}  // namespace ropecheck::adversarial::detail

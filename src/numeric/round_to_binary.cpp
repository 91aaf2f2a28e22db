#include "numeric/round_to_binary.h"

#include <cmath>
#include <limits>

#include "numeric/mp_handles.h"

namespace ropecheck {

double round_to_binary(mpfr_srcptr y, int precision, int emin_normal, int emax) {
  if (mpfr_nan_p(y)) return std::numeric_limits<double>::quiet_NaN();
  const double sign = mpfr_signbit(y) ? -1.0 : 1.0;
  if (mpfr_inf_p(y)) return sign * std::numeric_limits<double>::infinity();
  if (mpfr_zero_p(y)) return sign * 0.0;
  // MPFR writes y = m 2^E with 1/2 <= |m| < 1. A normal result has `precision` significant bits; a
  // subnormal one is a multiple of the quantum q = 2^(emin_normal - precision + 1), i.e. it keeps
  // E - log2(q) bits. Rounding into a variable of exactly that many bits, to nearest even, is then
  // the format's rounding (ties to an even last bit = an even multiple of the quantum).
  const mpfr_exp_t e = mpfr_get_exp(y);
  const long quantum_exp = emin_normal - precision + 1;
  long bits = precision;
  if (e - 1 < emin_normal) bits = static_cast<long>(e) - quantum_exp;  // |y| < 2^emin_normal
  if (bits <= 0) {
    // |y| < q/2 rounds to zero; |y| in [q/2, q) (bits == 0) rounds to q above the tie q/2 and to
    // zero (even) at it.
    if (bits < 0) return sign * 0.0;
    Mpfr half_q(2);
    mpfr_set_ui_2exp(half_q.v, 1, quantum_exp - 1, MPFR_RNDN);
    return mpfr_cmpabs(y, half_q.v) > 0 ? sign * std::ldexp(1.0, static_cast<int>(quantum_exp)) : sign * 0.0;
  }
  Mpfr r(bits);
  mpfr_set(r.v, y, MPFR_RNDN);
  // Rounding up may carry into the next binade (still representable: one more bit of exponent), or
  // past the largest finite value: IEEE overflow, to infinity, when the rounded magnitude reaches
  // 2^(emax + 1).
  if (mpfr_get_exp(r.v) > emax + 1) return sign * std::numeric_limits<double>::infinity();
  return mpfr_get_d(r.v, MPFR_RNDN);  // exact: at most `precision` bits, in double's range
}

double round_rational_to_binary(mpq_srcptr q, int precision, int emin_normal, int emax) {
  Mpfr t(64);
  if (mpfr_set_q(t.v, q, MPFR_RNDZ) != 0 && mpfr_min_prec(t.v) < 64) {  // inexact, last bit 0: set it
    if (mpfr_sgn(t.v) > 0) mpfr_nextabove(t.v);
    else mpfr_nextbelow(t.v);
  }
  return round_to_binary(t.v, precision, emin_normal, emax);
}

double round_rational_product(mpq_srcptr a, double x, int precision, int emin_normal, int emax) {
  Mpq y;
  mpq_set_d(y.v, x);  // exact
  mpq_mul(y.v, y.v, a);
  return round_rational_to_binary(y.v, precision, emin_normal, emax);
}

}  // namespace ropecheck

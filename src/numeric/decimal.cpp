#include "numeric/decimal.h"

#include <mpfr.h>

#include <stdexcept>

namespace ropecheck {

std::string to_decimal(const Real& x, int digits, Rounding rnd) {
  if (digits < 1 || digits > 1000) throw std::invalid_argument("to_decimal: digits out of range");
  const mpfr_srcptr v = x.backend().data();
  if (mpfr_nan_p(v)) return "nan";
  if (mpfr_inf_p(v)) return mpfr_sgn(v) > 0 ? "inf" : "-inf";
  if (mpfr_zero_p(v)) return "0";
  const mpfr_rnd_t mode = rnd == Rounding::down ? MPFR_RNDD : rnd == Rounding::up ? MPFR_RNDU : MPFR_RNDN;
  mpfr_exp_t e = 0;
  char* raw = mpfr_get_str(nullptr, &e, 10, static_cast<size_t>(digits), v, mode);
  std::string s(raw);
  mpfr_free_str(raw);
  // raw is "[-]ddddd" meaning 0.ddddd * 10^e.
  std::string sign;
  if (s[0] == '-') {
    sign = "-";
    s.erase(0, 1);
  }
  // Trim trailing zeros of the mantissa: they carry no information.
  while (s.size() > 1 && s.back() == '0') s.pop_back();
  std::string out = sign + s.substr(0, 1);
  if (s.size() > 1) out += "." + s.substr(1);
  const long exponent = static_cast<long>(e) - 1;
  if (exponent != 0) out += "e" + std::string(exponent > 0 ? "+" : "-") + std::to_string(exponent > 0 ? exponent : -exponent);
  return out;
}

DecimalBounds decimal_bounds(const Interval& x, int digits) {
  return {to_decimal(lower_of(x), digits, Rounding::down), to_decimal(upper_of(x), digits, Rounding::up)};
}

std::string decimal_interval_text(const Interval& x, int digits) {
  const DecimalBounds b = decimal_bounds(x, digits);
  return "[" + b.lower + ", " + b.upper + "]";
}

}  // namespace ropecheck

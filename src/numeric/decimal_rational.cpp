#include "numeric/decimal_rational.h"

#include <cctype>
#include <cstdlib>

#include "numeric/mp_handles.h"

namespace ropecheck {

bool decimal_to_rational(const std::string& text, mpq_ptr q) {
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;  // as MPFR's reader
  const bool negative = i < text.size() && text[i] == '-';
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
  std::string digits;
  long fraction_digits = 0;
  bool point = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digits += c;
      fraction_digits += point ? 1 : 0;
    } else if (c == '.' && !point) {
      point = true;
    } else {
      break;
    }
  }
  if (digits.empty()) return false;
  long exponent = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    const bool exp_negative = i < text.size() && text[i] == '-';
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    const size_t start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    if (i == start || i - start > 9) return false;
    exponent = std::strtol(text.substr(start, i - start).c_str(), nullptr, 10);
    if (exp_negative) exponent = -exponent;
  }
  if (i != text.size()) return false;
  const long scale = exponent - fraction_digits;  // value = digits * 10^scale
  if (scale < -4096 || scale > 4096) return false;  // beyond any factor a config states
  Mpz num, den, power;
  mpz_set_str(num.v, digits.c_str(), 10);
  if (negative) mpz_neg(num.v, num.v);
  mpz_set_ui(den.v, 1);
  mpz_ui_pow_ui(power.v, 10, static_cast<unsigned long>(scale < 0 ? -scale : scale));
  if (scale < 0) mpz_set(den.v, power.v);
  else mpz_mul(num.v, num.v, power.v);
  mpq_set_num(q, num.v);
  mpq_set_den(q, den.v);
  mpq_canonicalize(q);
  return true;
}

}  // namespace ropecheck

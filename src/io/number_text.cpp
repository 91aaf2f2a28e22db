#include "io/number_text.h"

#include <charconv>
#include <system_error>

namespace ropecheck {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex_digit(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// Scans digits[.digits] (at least one digit in all) then an optional exponent ('e' decimal, 'p'
// hex) with decimal digits; returns false unless the whole text is consumed.
bool scan_number(const std::string& s, std::size_t i, bool hex) {
  const auto digit = [hex](char c) { return hex ? is_hex_digit(c) : is_digit(c); };
  std::size_t digits = 0;
  while (i < s.size() && digit(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && digit(s[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (hex ? (s[i] == 'p' || s[i] == 'P') : (s[i] == 'e' || s[i] == 'E'))) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    std::size_t exp_digits = 0;
    while (i < s.size() && is_digit(s[i])) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == s.size();
}

}  // namespace

std::string shortest_text(double x) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

// The grammar is checked first because from_chars (like strtod) also reads "inf", "nan" and
// "infinity". from_chars reports a value outside the binary64 range as result_out_of_range.
bool parse_number_text(const std::string& s, double& out) {
  std::size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  const bool hex = s.size() >= i + 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X');
  if (hex) i += 2;
  if (!scan_number(s, i, hex)) return false;
  double x = 0;
  const char* end = s.data() + s.size();
  const auto r = std::from_chars(s.data() + i, end, x, hex ? std::chars_format::hex : std::chars_format::general);
  if (r.ec != std::errc() || r.ptr != end) return false;
  out = negative ? -x : x;
  return true;
}

}  // namespace ropecheck

// File: show.h
// How a test prints the operands of a failed assertion, the same way in every test and property:
//   show(Interval)  "[lower, upper]", each endpoint rounded outward to enough significant digits
//                   to tell apart any two numbers at the interval's own precision, so the printed
//                   enclosure still holds the value and distinct endpoints never print alike;
//   show(Real)      the same digits, rounded to nearest;
//   show(double)    C99 hex (%a): exact;
//   show(float)     %a and the bit pattern (io/printf_string.h's hex_float): exact;
//   show(mpq_srcptr) "n/d" in decimal: exact;
//   bits(double)    the IEEE bit pattern, for byte-exact comparisons.
// Include as "tests/support/show.h" (the project root is on every test target's include path).
#pragma once

#include <gmp.h>
#include <mpfi.h>
#include <mpfr.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>

#include "io/printf_string.h"
#include "numeric/decimal.h"
#include "numeric/scalar.h"

namespace ropecheck {

// Significant decimal digits that separate any two distinct numbers of `bits` bits.
inline int show_digits(long bits) { return static_cast<int>(std::ceil(static_cast<double>(bits) * 0.30102999566398120)) + 1; }

inline std::string show(const Interval& x) { return decimal_interval_text(x, show_digits(mpfi_get_prec(x.backend().data()))); }

inline std::string show(const Real& x) { return to_decimal(x, show_digits(mpfr_get_prec(x.backend().data()))); }

inline std::string show(double x) { return hex_double(x); }

inline std::string show(float x) { return hex_float(x); }

inline std::string show(mpq_srcptr q) {
  char* text = mpq_get_str(nullptr, 10, q);
  std::string out(text);
  void (*free_fn)(void*, size_t);
  mp_get_memory_functions(nullptr, nullptr, &free_fn);
  free_fn(text, out.size() + 1);
  return out;
}

inline std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }

}  // namespace ropecheck

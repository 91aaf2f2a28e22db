// File: decimal_rational.h
// A decimal string as the exact rational it denotes, for code that must decide a rounding exactly
// (an exact tie is only visible to exact arithmetic; an enclosure never decides it).
#pragma once

#include <gmp.h>

#include <string>

namespace ropecheck {

// Sets q to the exact value of `text` when it is a plain decimal, [+-]digits[.digits][(e|E)[+-]digits]
// after leading white space (as MPFR's reader skips it), with at least one digit and digits x 10^n
// for |n| <= 4096, and returns true; otherwise returns false and leaves q unspecified ("inf",
// trailing characters, MPFR's '@' exponent: the caller keeps its approximation).
bool decimal_to_rational(const std::string& text, mpq_ptr q);

}  // namespace ropecheck

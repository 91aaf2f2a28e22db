// File: scalar.h
// The four scalar types every generic formula in ropecheck is written for, and the few operations
// whose meaning differs between them.
//
//   float, double   IEEE binary32/64, round to nearest: what models run.
//   Real            mpfr_float: MPFR, runtime precision (see precision.h), each operation correctly
//                   rounded to nearest. An approximation, with no error bound attached.
//   Interval        mpfi_float: MPFI, a pair of MPFR endpoints with outward rounding; every result
//                   encloses the exact real result. Certificates are built from these only.
//
// Boost 1.74 trap: comparing two mpfi_float with < > == calls std::terminate when they overlap
// (compare() is noexcept but throws). Never compare Interval values with operators: use the
// certainly_* predicates below, which look only at endpoints.
#pragma once

#include <boost/multiprecision/mpfi.hpp>
#include <boost/multiprecision/mpfr.hpp>

#include <cmath>
#include <string>
#include <type_traits>

namespace ropecheck {

using Real = boost::multiprecision::mpfr_float;
using Interval = boost::multiprecision::mpfi_float;

template <class T>
inline constexpr bool is_interval_v = std::is_same_v<T, Interval>;
template <class T>
inline constexpr bool is_real_v = std::is_same_v<T, Real>;
template <class T>
concept Scalar = std::is_same_v<T, float> || std::is_same_v<T, double> || is_real_v<T> || is_interval_v<T>;

// Returns: the decimal number s (e.g. "1e4", "0.75", "-12.5e-3") in T: correctly rounded for
// float, double and Real; for Interval the tightest enclosure at the current precision.
// Throws std::invalid_argument when s is not one complete finite decimal number.
template <Scalar T>
T from_decimal(const std::string& s);

// Returns: pi rounded to nearest (float, double, Real) or an enclosure of pi (Interval).
template <Scalar T>
T pi_value();

// Sets s = sin(x), c = cos(x). float/double: libm; Real: mpfr_sin_cos, correctly rounded;
// Interval: an enclosure of {sin(t), cos(t) : t in x} (see interval_sin_cos in scalar.cpp).
template <Scalar T>
void sin_cos(const T& x, T& s, T& c);

// Lower and upper endpoints as Real (a point type returns its value, converted exactly for
// float/double and Real precisions at least as large).
Real lower_of(const Interval& x);
Real upper_of(const Interval& x);
inline Real lower_of(const Real& x) { return x; }
inline Real upper_of(const Real& x) { return x; }
inline Real lower_of(double x) { return Real(x); }
inline Real upper_of(double x) { return Real(x); }

// Three-valued sign tests: true only when every point of x satisfies the property.
template <Scalar T>
bool certainly_positive(const T& x) {
  if constexpr (is_interval_v<T>) return lower_of(x) > 0;
  else return x > 0;
}
template <Scalar T>
bool certainly_negative(const T& x) {
  if constexpr (is_interval_v<T>) return upper_of(x) < 0;
  else return x < 0;
}
// True only when every point of a is below every point of b.
template <Scalar T>
bool certainly_less(const T& a, const T& b) {
  if constexpr (is_interval_v<T>) return upper_of(a) < lower_of(b);
  else return a < b;
}

// True when x is one exact number: an interval of width zero, or any point type.
template <Scalar T>
bool is_point(const T& x) {
  if constexpr (is_interval_v<T>) return lower_of(x) == upper_of(x);
  else return true;
}

// Returns: true when a and b share a point: two enclosures of the same exact number always do, so
// "do not overlap" certifies that they enclose different numbers.
inline bool overlaps(const Interval& a, const Interval& b) {
  return !(upper_of(a) < lower_of(b)) && !(upper_of(b) < lower_of(a));
}

// Returns: the midpoint of an interval (rounded to nearest), or the value of a point type.
Real midpoint(const Interval& x);
inline Real midpoint(const Real& x) { return x; }

// Returns: x rounded to the nearest double (the midpoint for an Interval).
double to_double(const Interval& x);
double to_double(const Real& x);
inline double to_double(double x) { return x; }
inline double to_double(float x) { return x; }

// Returns: true when the interval x contains the real value v.
bool contains(const Interval& x, const Real& v);

// Returns: the hull (smallest interval containing both).
Interval hull_of(const Interval& a, const Interval& b);

// Returns: the mantissa bits of a value (float 24, double 53, MPFR/MPFI their own precision).
unsigned precision_bits_of(const Real& x);
unsigned precision_bits_of(const Interval& x);

}  // namespace ropecheck

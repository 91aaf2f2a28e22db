#include "numeric/scalar.h"

#include <mpfi.h>
#include <mpfr.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <stdexcept>

namespace ropecheck {
namespace {

// Accepts what MPFR's parser (base 10) and strtod both read whole, when the value is finite: the
// float/double readers (strtof, strtod) and the MPFR/MPFI ones (mpfr_set_str, mpfi_set_str) then
// read one and the same number. MPFR alone would also take an '@' exponent ("1@5" is 1e5 to MPFR,
// 1 to strtod); the whole string is required, so an embedded NUL (which ends the C string every
// reader sees) is refused rather than read as its prefix.
void check_decimal(const std::string& s) {
  mpfr_t t;
  mpfr_init2(t, 64);
  char* end = nullptr;
  mpfr_strtofr(t, s.c_str(), &end, 10, MPFR_RNDN);
  const char* whole = s.c_str() + s.size();
  bool ok = !s.empty() && end != s.c_str() && end == whole && mpfr_number_p(t);
  mpfr_clear(t);
  if (ok) {
    char* double_end = nullptr;
    const int saved = errno;
    std::strtod(s.c_str(), &double_end);  // its value may overflow: only where it stops matters here
    errno = saved;
    ok = double_end == whole;
  }
  if (!ok) throw std::invalid_argument("not a finite decimal number: '" + s + "'");
}

// sin and cos of a narrow interval by midpoint and radius, about 4x cheaper than mpfi_sin plus
// mpfi_cos at 256 bits (bench/rotation_bench.cpp: 2.7 us against 10.1 us) because it evaluates one
// mpfr_sin_cos instead of sin and cos at both endpoints.
// Why it encloses: for every t in x, |t - m| <= r (m the midpoint, r rounded up), and sin, cos are
// 1-Lipschitz, so |sin t - sin m| <= r; mpfr_sin_cos returns s with |s - sin m| <= 1/2 ulp(s) when
// inexact, bounded here by one full ulp 2^(EXP(s)-prec). Then every sin t lies in
// [s - (r + ulp), s + (r + ulp)], evaluated with downward/upward rounding and clipped to [-1, 1].
// Wide intervals (r > 1/8) go to MPFI, whose endpoint analysis is tighter there.
void interval_sin_cos(const Interval& x, Interval& s, Interval& c) {
  const mpfr_prec_t prec = mpfi_get_prec(x.backend().data());
  mpfr_t m, r, sm, cm, es, ec, lo, hi;
  for (mpfr_ptr v : {m, r, sm, cm, es, ec, lo, hi}) mpfr_init2(v, prec);
  mpfi_mid(m, x.backend().data());
  // r = max(upper - m, m - lower), rounded up.
  mpfr_sub(r, &x.backend().data()[0].right, m, MPFR_RNDU);
  mpfr_sub(lo, m, &x.backend().data()[0].left, MPFR_RNDU);
  mpfr_max(r, r, lo, MPFR_RNDU);
  if (mpfr_cmp_d(r, 0.125) > 0) {
    for (mpfr_ptr v : {m, r, sm, cm, es, ec, lo, hi}) mpfr_clear(v);
    mpfi_sin(s.backend().data(), x.backend().data());
    mpfi_cos(c.backend().data(), x.backend().data());
    return;
  }
  const int inex = mpfr_sin_cos(sm, cm, m, MPFR_RNDN);
  // mpfr_sin_cos packs two ternary values: bits 0-1 for sin, 2-3 for cos (nonzero = inexact).
  const bool sin_inexact = (inex & 3) != 0;
  const bool cos_inexact = (inex >> 2) != 0;
  auto enclose = [&](mpfr_ptr val, bool inexact, mpfr_ptr err, Interval& out) {
    mpfr_set_zero(err, 1);
    if (inexact && !mpfr_zero_p(val)) mpfr_set_ui_2exp(err, 1, mpfr_get_exp(val) - prec, MPFR_RNDU);
    mpfr_add(err, err, r, MPFR_RNDU);
    mpfr_sub(lo, val, err, MPFR_RNDD);
    mpfr_add(hi, val, err, MPFR_RNDU);
    if (mpfr_cmp_si(lo, -1) < 0) mpfr_set_si(lo, -1, MPFR_RNDN);
    if (mpfr_cmp_si(hi, 1) > 0) mpfr_set_si(hi, 1, MPFR_RNDN);
    mpfi_set_prec(out.backend().data(), prec);
    mpfi_interv_fr(out.backend().data(), lo, hi);
  };
  enclose(sm, sin_inexact, es, s);
  enclose(cm, cos_inexact, ec, c);
  for (mpfr_ptr v : {m, r, sm, cm, es, ec, lo, hi}) mpfr_clear(v);
}

}  // namespace

template <>
float from_decimal<float>(const std::string& s) {
  check_decimal(s);
  return std::strtof(s.c_str(), nullptr);
}
template <>
double from_decimal<double>(const std::string& s) {
  check_decimal(s);
  return std::strtod(s.c_str(), nullptr);
}
template <>
Real from_decimal<Real>(const std::string& s) {
  check_decimal(s);
  Real x;
  mpfr_set_str(x.backend().data(), s.c_str(), 10, MPFR_RNDN);
  return x;
}
template <>
Interval from_decimal<Interval>(const std::string& s) {
  check_decimal(s);
  Interval x;
  mpfi_set_str(x.backend().data(), s.c_str(), 10);  // outward rounded enclosure
  return x;
}

template <>
float pi_value<float>() { return 3.14159265358979323846f; }
template <>
double pi_value<double>() { return 3.14159265358979323846; }
template <>
Real pi_value<Real>() {
  Real x;
  mpfr_const_pi(x.backend().data(), MPFR_RNDN);
  return x;
}
template <>
Interval pi_value<Interval>() {
  Interval x;
  mpfi_const_pi(x.backend().data());
  return x;
}

template <>
void sin_cos<float>(const float& x, float& s, float& c) { s = std::sin(x); c = std::cos(x); }
template <>
void sin_cos<double>(const double& x, double& s, double& c) { s = std::sin(x); c = std::cos(x); }
template <>
void sin_cos<Real>(const Real& x, Real& s, Real& c) {
  const mpfr_prec_t prec = mpfr_get_prec(x.backend().data());
  mpfr_set_prec(s.backend().data(), prec);
  mpfr_set_prec(c.backend().data(), prec);
  mpfr_sin_cos(s.backend().data(), c.backend().data(), x.backend().data(), MPFR_RNDN);
}
template <>
void sin_cos<Interval>(const Interval& x, Interval& s, Interval& c) { interval_sin_cos(x, s, c); }

Real lower_of(const Interval& x) {
  Real v;
  mpfr_set_prec(v.backend().data(), mpfi_get_prec(x.backend().data()));
  mpfi_get_left(v.backend().data(), x.backend().data());
  return v;
}
Real upper_of(const Interval& x) {
  Real v;
  mpfr_set_prec(v.backend().data(), mpfi_get_prec(x.backend().data()));
  mpfi_get_right(v.backend().data(), x.backend().data());
  return v;
}
Real midpoint(const Interval& x) {
  Real v;
  mpfr_set_prec(v.backend().data(), mpfi_get_prec(x.backend().data()));
  mpfi_mid(v.backend().data(), x.backend().data());
  return v;
}
double to_double(const Interval& x) { return to_double(midpoint(x)); }
double to_double(const Real& x) { return mpfr_get_d(x.backend().data(), MPFR_RNDN); }

bool contains(const Interval& x, const Real& v) {
  return mpfi_is_inside_fr(v.backend().data(), x.backend().data()) != 0;
}

Interval hull_of(const Interval& a, const Interval& b) {
  Interval h;
  mpfi_set_prec(h.backend().data(),
                std::max(mpfi_get_prec(a.backend().data()), mpfi_get_prec(b.backend().data())));
  mpfi_union(h.backend().data(), a.backend().data(), b.backend().data());
  return h;
}

unsigned precision_bits_of(const Real& x) { return static_cast<unsigned>(mpfr_get_prec(x.backend().data())); }
unsigned precision_bits_of(const Interval& x) { return static_cast<unsigned>(mpfi_get_prec(x.backend().data())); }

}  // namespace ropecheck

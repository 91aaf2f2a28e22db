// File: moments.cpp
// Exact powers into exact sums, and the summary from exact integer numerators.
//
// With A_k the canonical integer of S_k (S_k = A_k u, u = 2^-1074), the central-moment numerators are integers in units of u^k (GMP, exact):
//   N2 = n A2 2^1074 - A1^2                                        = n^2 m2 / u^2
//   N3 = n^2 A3 2^2148 - 3 n A1 A2 2^1074 + 2 A1^3                 = n^3 m3 / u^3
//   N4 = n^3 A4 2^3222 - 4 n^2 A1 A3 2^2148 + 6 n A1^2 A2 2^1074 - 3 A1^4 = n^4 m4 / u^4
// so no cancellation ever happens in rounded arithmetic; only the final quotients and square roots
// are rounded, at P = 256 + max bits_needed bits, and then once more to binary64 (the contract's
// "< 1 ulp": the P-bit value can only round to the wrong double if it lies within 2^-P of a
// midpoint). Raw mpz_t/mpfr_t with explicit precisions: summarize may run in worker threads, where
// Boost's process-wide default precision must not be touched.
#include "statistics/moments.h"

#include "numeric/mp_handles.h"

#include <gmp.h>
#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ropecheck::statistics {
namespace {


// Dekker's error-free product: p + e == a * b exactly when no intermediate overflows or
// underflows (Veltkamp split with 2^27 + 1; needs -ffp-contract=off, which the project sets).
inline void split(double a, double& hi, double& lo) {
  const double c = 134217729.0 * a;
  hi = c - (c - a);
  lo = a - hi;
}
inline void two_product(double a, double b, double& p, double& e) {
  p = a * b;
  double ah, al, bh, bl;
  split(a, ah, al);
  split(b, bh, bl);
  e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
}

// The fast path's range: for 2^-150 <= |x| <= 2^150 every exact power is a multiple of 2^(4q) >=
// 2^-808 (x = m 2^q, q >= -202) below 2^600, so every product and split in two_product is exact.
constexpr double kFastLow = 0x1p-150;
constexpr double kFastHigh = 0x1p150;

// Adds x^k (k = 2, 3, 4) outside the fast range: exact in MPFR (53 k <= 212 bits), then peeled into
// doubles, each the nearest double to what is left: exact until the remainder falls below the
// subnormal grid (then it is rounded to a multiple of 2^-1074), or +-inf when x^k overflows.
void add_power_slow(ExactSum& sum, double x, unsigned k) {
  Mpfr p(212);
  mpfr_set_d(p.v, x, MPFR_RNDN);
  mpfr_pow_ui(p.v, p.v, k, MPFR_RNDN);  // exact: x^k has at most 53 k significant bits
  while (!mpfr_zero_p(p.v)) {
    const double d = mpfr_get_d(p.v, MPFR_RNDN);
    sum.add(d);
    if (d == 0 || std::isinf(d)) break;
    mpfr_sub_d(p.v, p.v, d, MPFR_RNDN);  // exact: the remainder lies on p's own bit grid
  }
}

// Sets out = the canonical integer of `s` (s = out * 2^-1074). Precondition: s is finite.
void integer_of(const ExactSum& s, mpz_ptr out) {
  const long bits = s.bits_needed();
  if (bits == 0) {
    mpz_set_ui(out, 0);
    return;
  }
  Mpfr r(bits);
  s.to_mpfr(r.v);  // exact at bits_needed
  const mpfr_exp_t e = mpfr_get_z_2exp(out, r.v);
  // s is a multiple of 2^-1074, so e >= -1074.
  mpz_mul_2exp(out, out, static_cast<mp_bitcnt_t>(e + 1074));
}

double to_double(const Mpfr& x) { return mpfr_get_d(x.v, MPFR_RNDN); }

}  // namespace

void Moments::add(double x) {
  ++n;
  s1.add(x);
  const double ax = std::fabs(x);
  if (!std::isfinite(x)) {  // counted as non-finite in every sum
    s2.add(x);
    s3.add(x);
    s4.add(x);
    return;
  }
  if ((ax >= kFastLow && ax <= kFastHigh) || x == 0) {
    double h2, l2;
    two_product(x, x, h2, l2);  // x^2 = h2 + l2
    s2.add(h2);
    s2.add(l2);
    double a, b, c, d;
    two_product(x, h2, a, b);  // x^3 = x h2 + x l2
    two_product(x, l2, c, d);
    s3.add(a);
    s3.add(b);
    s3.add(c);
    s3.add(d);
    double e, f, g, h, i, j;
    two_product(h2, h2, e, f);  // x^4 = h2^2 + 2 h2 l2 + l2^2
    two_product(h2, l2, g, h);
    two_product(l2, l2, i, j);
    s4.add(e);
    s4.add(f);
    s4.add(2 * g);  // doubling is exact (no overflow below 2^600)
    s4.add(2 * h);
    s4.add(i);
    s4.add(j);
    return;
  }
  add_power_slow(s2, x, 2);
  add_power_slow(s3, x, 3);
  add_power_slow(s4, x, 4);
}

void Moments::add(const Moments& other) {
  n += other.n;
  s1.add(other.s1);
  s2.add(other.s2);
  s3.add(other.s3);
  s4.add(other.s4);
}

Summary summarize(const Moments& m) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  Summary out;
  out.n = m.n;
  out.mean = out.variance = out.sd = out.standard_error = kNaN;
  out.skewness = out.kurtosis = out.variance_standard_error = out.kurtosis_standard_error = kNaN;
  if (m.n <= 0) return out;

  const mpfr_prec_t prec =
      256 + std::max({m.s1.bits_needed(), m.s2.bits_needed(), m.s3.bits_needed(), m.s4.bits_needed()});
  const bool f1 = m.s1.non_finite() == 0, f2 = m.s2.non_finite() == 0;
  const bool f3 = m.s3.non_finite() == 0, f4 = m.s4.non_finite() == 0;
  Mpz n, a1, a2, a3, a4;
  mpz_set_si(n.v, static_cast<long>(m.n));
  if (f1) integer_of(m.s1, a1.v);
  if (f2) integer_of(m.s2, a2.v);
  if (f3) integer_of(m.s3, a3.v);
  if (f4) integer_of(m.s4, a4.v);

  Mpfr r(prec), t(prec);
  if (f1) {
    mpfr_set_z(r.v, a1.v, MPFR_RNDN);
    mpfr_div_z(r.v, r.v, n.v, MPFR_RNDN);
    mpfr_mul_2si(r.v, r.v, -1074, MPFR_RNDN);
    out.mean = to_double(r);
  }
  if (m.n >= 4) {
    // 24 n (n-1)^2 / ((n-3)(n-2)(n+3)(n+5)), numerator and denominator exact integers.
    Mpz num, den, k;
    mpz_sub_ui(k.v, n.v, 1);
    mpz_mul(num.v, k.v, k.v);
    mpz_mul(num.v, num.v, n.v);
    mpz_mul_ui(num.v, num.v, 24);
    mpz_sub_ui(den.v, n.v, 3);
    mpz_sub_ui(k.v, n.v, 2);
    mpz_mul(den.v, den.v, k.v);
    mpz_add_ui(k.v, n.v, 3);
    mpz_mul(den.v, den.v, k.v);
    mpz_add_ui(k.v, n.v, 5);
    mpz_mul(den.v, den.v, k.v);
    mpfr_set_z(r.v, num.v, MPFR_RNDN);
    mpfr_div_z(r.v, r.v, den.v, MPFR_RNDN);
    mpfr_sqrt(r.v, r.v, MPFR_RNDN);
    out.kurtosis_standard_error = to_double(r);
  }
  if (!(f1 && f2)) return out;

  Mpz n2, tmp, a1sq;
  mpz_mul(a1sq.v, a1.v, a1.v);
  mpz_mul(n2.v, n.v, a2.v);
  mpz_mul_2exp(n2.v, n2.v, 1074);
  mpz_sub(n2.v, n2.v, a1sq.v);  // N2 >= 0 (Cauchy-Schwarz on exact sums)

  if (m.n >= 2) {
    Mpz den;
    mpz_sub_ui(den.v, n.v, 1);
    mpz_mul(den.v, den.v, n.v);  // n (n - 1)
    mpfr_set_z(r.v, n2.v, MPFR_RNDN);
    mpfr_div_z(r.v, r.v, den.v, MPFR_RNDN);
    mpfr_mul_2si(r.v, r.v, -2148, MPFR_RNDN);  // the unbiased variance, P bits
    out.variance = to_double(r);
    mpfr_sqrt(t.v, r.v, MPFR_RNDN);
    out.sd = to_double(t);
    mpfr_div_z(t.v, r.v, n.v, MPFR_RNDN);
    mpfr_sqrt(t.v, t.v, MPFR_RNDN);
    out.standard_error = to_double(t);
  }
  const bool spread = mpz_sgn(n2.v) > 0;

  if (f3 && spread) {
    // N3 = n^2 A3 2^2148 - 3 n A1 A2 2^1074 + 2 A1^3; skewness = N3 / N2^1.5.
    Mpz n3;
    mpz_mul(n3.v, n.v, n.v);
    mpz_mul(n3.v, n3.v, a3.v);
    mpz_mul_2exp(n3.v, n3.v, 2148);
    mpz_mul(tmp.v, n.v, a1.v);
    mpz_mul(tmp.v, tmp.v, a2.v);
    mpz_mul_ui(tmp.v, tmp.v, 3);
    mpz_mul_2exp(tmp.v, tmp.v, 1074);
    mpz_sub(n3.v, n3.v, tmp.v);
    mpz_mul(tmp.v, a1sq.v, a1.v);
    mpz_mul_2exp(tmp.v, tmp.v, 1);
    mpz_add(n3.v, n3.v, tmp.v);
    mpfr_set_z(r.v, n2.v, MPFR_RNDN);
    mpfr_sqrt(t.v, r.v, MPFR_RNDN);
    mpfr_mul(t.v, t.v, r.v, MPFR_RNDN);  // N2^1.5
    mpfr_set_z(r.v, n3.v, MPFR_RNDN);
    mpfr_div(r.v, r.v, t.v, MPFR_RNDN);
    out.skewness = to_double(r);
  }

  if (f3 && f4) {  // (S3 overflows only if S4 does: |x|^3 > 2^1024 implies x^4 does)
    // N4 = n^3 A4 2^3222 - 4 n^2 A1 A3 2^2148 + 6 n A1^2 A2 2^1074 - 3 A1^4.
    Mpz n4, n2sq;
    mpz_mul(n4.v, n.v, n.v);
    mpz_mul(n4.v, n4.v, n.v);
    mpz_mul(n4.v, n4.v, a4.v);
    mpz_mul_2exp(n4.v, n4.v, 3222);
    mpz_mul(tmp.v, n.v, n.v);
    mpz_mul(tmp.v, tmp.v, a1.v);
    mpz_mul(tmp.v, tmp.v, a3.v);
    mpz_mul_ui(tmp.v, tmp.v, 4);
    mpz_mul_2exp(tmp.v, tmp.v, 2148);
    mpz_sub(n4.v, n4.v, tmp.v);
    mpz_mul(tmp.v, n.v, a1sq.v);
    mpz_mul(tmp.v, tmp.v, a2.v);
    mpz_mul_ui(tmp.v, tmp.v, 6);
    mpz_mul_2exp(tmp.v, tmp.v, 1074);
    mpz_add(n4.v, n4.v, tmp.v);
    mpz_mul(tmp.v, a1sq.v, a1sq.v);
    mpz_mul_ui(tmp.v, tmp.v, 3);
    mpz_sub(n4.v, n4.v, tmp.v);
    mpz_mul(n2sq.v, n2.v, n2.v);
    if (spread) {  // kurtosis = m4 / m2^2 = N4 / N2^2
      mpfr_set_z(r.v, n4.v, MPFR_RNDN);
      mpfr_div_z(r.v, r.v, n2sq.v, MPFR_RNDN);
      out.kurtosis = to_double(r);
    }
    if (m.n >= 4) {
      // (m4 - m2^2 (n-3)/(n-1)) / n = u^4/n^4 ((n-1) N4 - (n-3) N2^2) / (n (n-1)); >= 0 since m4 >= m2^2.
      Mpz num, den;
      mpz_sub_ui(tmp.v, n.v, 1);
      mpz_mul(num.v, n4.v, tmp.v);
      mpz_mul(den.v, n.v, tmp.v);
      mpz_sub_ui(tmp.v, n.v, 3);
      mpz_submul(num.v, n2sq.v, tmp.v);
      mpfr_set_z(r.v, num.v, MPFR_RNDN);
      mpfr_div_z(r.v, r.v, den.v, MPFR_RNDN);
      mpfr_sqrt(r.v, r.v, MPFR_RNDN);  // = sqrt(...) n^2 / u^2
      mpz_mul(tmp.v, n.v, n.v);
      mpfr_div_z(r.v, r.v, tmp.v, MPFR_RNDN);
      mpfr_mul_2si(r.v, r.v, -2148, MPFR_RNDN);
      out.variance_standard_error = to_double(r);
    }
  }
  return out;
}

}  // namespace ropecheck::statistics

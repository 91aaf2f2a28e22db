// Fuzz target decimal: decimal text, as configs and flags give theta, factors and fractions, through
// every reader of it:
//   - from_decimal<T> (numeric/scalar.h) for float, double, Real and Interval, which accept the same
//     texts (std::invalid_argument otherwise, the documented refusal; callers turn it into an
//     InputError naming their field);
//   - decimal_to_rational (numeric/decimal_rational.h), the exact value;
//   - parse_number_text and shortest_text (io/number_text.h).
// Checks, where the readers accept: a plain decimal decimal_to_rational reads is accepted by
// from_decimal; double and Real read the same number (within an ulp of double); for a plain
// decimal, every type holds the same number: Real the exact value correctly rounded at its
// precision, Interval an enclosure of it, double and float the correctly rounded binary64 and
// binary32 (in their normal ranges), parse_number_text the same binary64; shortest_text reads back
// as the same binary64.
#include <gmp.h>
#include <mpfr.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "fuzz_support.h"
#include "io/number_text.h"
#include "numeric/decimal_rational.h"
#include "numeric/scalar.h"

namespace {

using namespace ropecheck;

// An mpq_t for the exact value.
struct Rational {
  mpq_t q;
  Rational() { mpq_init(q); }
  ~Rational() { mpq_clear(q); }
  Rational(const Rational&) = delete;
  Rational& operator=(const Rational&) = delete;
};

// Returns: q rounded to nearest at `bits` bits, as a double (exact: bits <= 53); whether it lies
// in the normal range of a format whose smallest normal is 2^min_exp and largest finite below 2^max_exp.
bool rounded(const mpq_t q, mpfr_prec_t bits, long min_exp, long max_exp, double& out) {
  mpfr_t x;
  mpfr_init2(x, bits);
  mpfr_set_q(x, q, MPFR_RNDN);
  const bool normal = mpfr_zero_p(x) || (mpfr_get_exp(x) - 1 >= min_exp && mpfr_get_exp(x) - 1 < max_exp);
  out = mpfr_get_d(x, MPFR_RNDN);
  mpfr_clear(x);
  return normal;
}

std::string show(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", x);
  return buf;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = fuzz::text_of(data, size);
  if (text.find('\0') != std::string::npos) return 0;  // the readers take C strings
  const std::string shown = "'" + text.substr(0, 80) + "'";

  Rational exact;
  const bool plain = decimal_to_rational(text, exact.q);

  bool accepted = true;
  float f = 0;
  double d = 0;
  Real r;
  Interval x;
  try {
    f = from_decimal<float>(text);
    d = from_decimal<double>(text);
    r = from_decimal<Real>(text);
    x = from_decimal<Interval>(text);
  } catch (const std::invalid_argument&) {
    accepted = false;
  }
  if (plain) fuzz::check(accepted, [&] { return "from_decimal refuses the plain decimal " + shown; });

  double parsed = 0;
  const bool number_text = parse_number_text(text, parsed);
  if (number_text) {
    double back = 0;
    fuzz::check(std::isfinite(parsed), [&] { return "parse_number_text gave a non-finite value for " + shown; });
    fuzz::check(parse_number_text(shortest_text(parsed), back) && std::memcmp(&back, &parsed, sizeof back) == 0, [&] { return "shortest_text(" + show(parsed) + ") = " + shortest_text(parsed) + " does not read back"; });
  }
  if (!accepted) return 0;
  // Every type reads the same number: double within an ulp of Real's value (both are roundings of
  // it), where double has a normal finite value.
  if (std::isnormal(d)) {
    const double from_real = mpfr_get_d(r.backend().data(), MPFR_RNDN);
    fuzz::check(std::fabs(from_real - d) <= std::fabs(d) * 0x1p-52, [&] { return "from_decimal<double>(" + shown + ") = " + show(d) + " but from_decimal<Real> = " + show(from_real); });
  }
  if (!plain) return 0;

  // Real: the exact value correctly rounded at its own precision.
  {
    mpfr_t want;
    mpfr_init2(want, mpfr_get_prec(r.backend().data()));
    mpfr_set_q(want, exact.q, MPFR_RNDN);
    const bool same = mpfr_equal_p(want, r.backend().data()) || (mpfr_zero_p(want) && mpfr_zero_p(r.backend().data()));
    mpfr_clear(want);
    fuzz::check(same, [&] { return "from_decimal<Real> is not the correctly rounded value of " + shown; });
  }
  // Interval: an enclosure of the exact value.
  fuzz::check(mpfr_cmp_q(&x.backend().data()[0].left, exact.q) <= 0 && mpfr_cmp_q(&x.backend().data()[0].right, exact.q) >= 0, [&] { return "from_decimal<Interval> does not enclose " + shown; });
  // double, float, parse_number_text: the correctly rounded value, where no subnormal or overflow
  // rule comes in.
  double want = 0;
  if (rounded(exact.q, 53, -1022, 1024, want)) {
    fuzz::check(d == want, [&] { return "from_decimal<double>(" + shown + ") = " + show(d) + ", correctly rounded " + show(want); });
    if (number_text) fuzz::check(parsed == want, [&] { return "parse_number_text(" + shown + ") = " + show(parsed) + ", correctly rounded " + show(want); });
  }
  if (rounded(exact.q, 24, -126, 128, want))
    fuzz::check(static_cast<double>(f) == want, [&] { return "from_decimal<float>(" + shown + ") = " + show(f) + ", correctly rounded " + show(want); });
  return 0;
}

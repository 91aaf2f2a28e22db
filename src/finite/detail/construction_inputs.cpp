#include "finite/detail/construction_inputs.h"

#include <mpfi.h>

#include <bit>
#include <stdexcept>

#include "io/printf_string.h"
#include "numeric/small_floats.h"

namespace ropecheck::finite::detail {

float round_mpfr(mpfr_srcptr x, Dtype t) {
  switch (t) {
    case Dtype::f32: return mpfr_get_flt(x, MPFR_RNDN);
    case Dtype::bf16: break;  // below
    case Dtype::f16:
    case Dtype::f64: throw std::invalid_argument("round_mpfr: " + dtype_name(t) + " is not a finite-verdict dtype (f32 or bf16)");
  }
  if (mpfr_zero_p(x) || mpfr_get_exp(x) <= -126)  // |x| < 2^-126 (MPFR: x = m 2^e, 1/2 <= |m| < 1)
    return to_float(bf16_from_float(mpfr_get_flt(x, MPFR_RNDN)));
  mpfr_t r;
  mpfr_init2(r, 8);
  mpfr_set(r, x, MPFR_RNDN);
  const float f = mpfr_get_flt(r, MPFR_RNDN);
  mpfr_clear(r);
  return f;
}

float round_certified(const Interval& x, Dtype t) {
  mpfr_t lo, hi;
  mpfr_init2(lo, mpfi_get_prec(x.backend().data()));
  mpfr_init2(hi, mpfi_get_prec(x.backend().data()));
  mpfi_get_left(lo, x.backend().data());
  mpfi_get_right(hi, x.backend().data());
  const float a = round_mpfr(lo, t), b = round_mpfr(hi, t);
  mpfr_clear(lo);
  mpfr_clear(hi);
  if (std::bit_cast<std::uint32_t>(a) != std::bit_cast<std::uint32_t>(b) && !(a == 0 && b == 0))
    throw std::logic_error("finite verdicts: an exact input lies too close to a " + dtype_name(t) + " rounding boundary: " +
                           hex_float(a) + " vs " + hex_float(b));
  return a == 0 ? 0.0f : a;
}

double lower_double(const Interval& x) {
  mpfr_t lo;
  mpfr_init2(lo, mpfi_get_prec(x.backend().data()));
  mpfi_get_left(lo, x.backend().data());
  const double d = mpfr_get_d(lo, MPFR_RNDD);
  mpfr_clear(lo);
  return d;
}

double upper_double(const Interval& x) {
  mpfr_t hi;
  mpfr_init2(hi, mpfi_get_prec(x.backend().data()));
  mpfi_get_right(hi, x.backend().data());
  const double d = mpfr_get_d(hi, MPFR_RNDU);
  mpfr_clear(hi);
  return d;
}

double real_down(const Real& x) { return mpfr_get_d(x.backend().data(), MPFR_RNDD); }
double real_up(const Real& x) { return mpfr_get_d(x.backend().data(), MPFR_RNDU); }

Vector<Interval> exact_rotation(const std::vector<float>& v, std::int64_t r, const std::vector<Interval>& g) {
  Vector<Interval> out(static_cast<Eigen::Index>(v.size()));
  Interval s, c;
  for (size_t k = 0; k < g.size(); ++k) {
    sin_cos(Interval(Interval(static_cast<long long>(r)) * g[k]), s, c);
    const Interval x(v[2 * k]), y(v[2 * k + 1]);
    out[2 * k] = Interval(c * x - s * y);
    out[2 * k + 1] = Interval(s * x + c * y);
  }
  return out;
}

std::vector<float> round_vector(const Vector<Interval>& v, Dtype t) {
  std::vector<float> out(static_cast<size_t>(v.size()));
  for (Eigen::Index i = 0; i < v.size(); ++i) out[static_cast<size_t>(i)] = round_certified(v[i], t);
  return out;
}

std::vector<float> tile(const std::vector<float>& v, std::int64_t times) {
  std::vector<float> out;
  out.reserve(v.size() * static_cast<size_t>(times));
  for (std::int64_t i = 0; i < times; ++i) out.insert(out.end(), v.begin(), v.end());
  return out;
}

std::vector<std::int64_t> iota_positions(std::int64_t first, std::int64_t last) {
  std::vector<std::int64_t> p;
  for (std::int64_t x = first; x <= last; ++x) p.push_back(x);
  return p;
}

}  // namespace ropecheck::finite::detail

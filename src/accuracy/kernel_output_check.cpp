#include "accuracy/kernel_output_check.h"

#include <bit>
#include <cmath>

#include "accuracy/detail/ieee_rotation.h"
#include "io/printf_string.h"
#include "kernel/apply_rope.h"
#include "numeric/small_floats.h"

namespace ropecheck::accuracy {

double proved_bound(Dtype f) {
  require_kernel_dtype(f, "proved_bound");
  return kernel::kProvedUlpBound;
}

std::string bits_hex(std::uint32_t bits, Dtype f) { return printf_string("0x%0*x", 2 * dtype_info(f).bytes, bits); }

double value_of(std::uint32_t bits, Dtype f) { return value_of_bits(f, bits); }

std::uint32_t format_bits(double v, Dtype f) { return bits_of_value(f, v); }

SpecialExpectation special_expectation(const kernel::RopePlan& plan, const RopeReference* ref, int k, std::int64_t p, const std::uint32_t in[2],
                                       Dtype f) {
  SpecialExpectation e;
  if (plan.identity(k)) {
    e.applies = true;
    e.bits[0] = in[0];
    e.bits[1] = in[1];
    return e;
  }
  const double xa = value_of(in[0], f), xb = value_of(in[1], f);
  if (std::isfinite(xa) && std::isfinite(xb) && !(xa == 0 && xb == 0)) return e;
  e.applies = true;
  double c = 1, s = 0;
  ref->cos_sin_double(k, c, s);
  e.decided = p == 0 || (std::fabs(c) > kSignMargin && std::fabs(s) > kSignMargin);
  double ya = 0, yb = 0;
  accuracy::detail::ieee_rotation(xa, xb, c, s, f, ya, yb);
  e.bits[0] = format_bits(ya, f);
  e.bits[1] = format_bits(yb, f);
  return e;
}

double correctly_rounded(const accuracy::ExactComponent& e, Dtype f) { return e.in(f); }

BoundCheck check_bound(const ExactPair& exact, const std::uint32_t got[2], Dtype f) {
  BoundCheck b;
  for (int c = 0; c < 2; ++c) {
    const accuracy::ExactComponent& e = c == 0 ? exact.a : exact.b;
    b.error[c] = accuracy::component_error(value_of(got[c], f), e.value, correctly_rounded(e, f), exact.norm, f);
    const double u = b.error[c].ulps;
    if (!(u <= b.worst)) b.worst = u;  // NaN-safe: component_error returns inf, never NaN
    if (!e.decided_in(f)) ++b.undecided;
    else if (!(value_of(got[c], f) == correctly_rounded(e, f))) ++b.breaks;  // as values: -0 == +0 (ulp_error.h)
  }
  return b;
}

ExactPair identity_pair(double xa, double xb) {
  ExactPair e;
  e.a = RopeReference::exact_identity(static_cast<float>(xa));
  e.b = RopeReference::exact_identity(static_cast<float>(xb));
  e.norm = std::sqrt(xa * xa + xb * xb);
  return e;
}

}  // namespace ropecheck::accuracy

// Properties of the rotation arithmetic over generated spectra, vectors and positions up to 2^40.
// The identities are checked in MPFI: two enclosures of the same exact number must overlap, and
// each enclosure must also be narrow (bounded width), so a property fails both when a formula is
// wrong and when the interval arithmetic has stopped saying anything.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>

#include "attention/activation.h"
#include "generators.h"
#include "numeric/precision.h"
#include "spectrum/frequencies.h"

namespace ropecheck {
namespace {

Vector<Interval> to_interval(const std::vector<float>& v) {
  Vector<Interval> out(static_cast<Eigen::Index>(v.size()));
  for (size_t i = 0; i < v.size(); ++i) out[static_cast<Eigen::Index>(i)] = Interval(static_cast<double>(v[i]));
  return out;
}

// sum_p |q_p| |k_p| over chunks: the scale of any activation of q and k.
double scale(const std::vector<float>& q, const std::vector<float>& k) {
  double s = 0;
  for (size_t p = 0; p + 1 < q.size(); p += 2)
    s += std::hypot(double(q[p]), double(q[p + 1])) * std::hypot(double(k[p]), double(k[p + 1]));
  return s;
}

// Width budget of an activation enclosure at 257 bits: the angle rel*g (|g| <= 1 after scaling,
// but linear:0.5 doubles it) is enclosed to ~|rel| * 2 * 2^-254 and sin/cos add ~2^-256 each;
// times the scale, with generous factor 2^20 for the sums. 2^-200 * (|rel| + 1) * scale is far
// above that and far below any real discrepancy.
Real width_budget(double s, std::int64_t rel) {
  return Real(s) * Real(std::fabs(double(rel)) + 1) * Real(0x1p-200) + Real(0x1p-1000);
}

RC_GTEST_PROP(RotationProperties, RelativeActivationEqualsAbsolute, ()) {
  ScopedPrecision p(256);
  const Spectrum s = *gen::spectra(16);
  const auto q = *gen::vectors(s.dim());
  const auto k = *gen::vectors(s.dim());
  const std::int64_t i = *gen::positions();
  const std::int64_t j = *gen::positions();
  const auto g = frequencies<Interval>(s);
  const Interval relative = activation(to_interval(q), to_interval(k), j - i, g);
  const Interval absolute = absolute_activation(to_interval(q), i, to_interval(k), j, g);
  RC_LOG() << s.describe() << " i=" << i << " j=" << j;
  RC_ASSERT(overlaps(relative, absolute));
  RC_ASSERT(Real(upper_of(relative) - lower_of(relative)) <= width_budget(scale(q, k), j - i));
}

RC_GTEST_PROP(RotationProperties, ActivationIsShiftInvariant, ()) {
  ScopedPrecision p(256);
  const Spectrum s = *gen::spectra(16);
  const auto q = to_interval(*gen::vectors(s.dim()));
  const auto k = to_interval(*gen::vectors(s.dim()));
  const std::int64_t i = *gen::positions(), j = *gen::positions(), shift = *gen::positions();
  const auto g = frequencies<Interval>(s);
  RC_ASSERT(overlaps(absolute_activation(q, i, k, j, g), absolute_activation(q, i + shift, k, j + shift, g)));
}

RC_GTEST_PROP(RotationProperties, CompositionIsAdditive, ()) {
  ScopedPrecision p(256);
  const Spectrum s = *gen::spectra(16);
  const auto v = to_interval(*gen::vectors(s.dim()));
  const std::int64_t a = *gen::positions(), b = *gen::positions();
  const auto g = frequencies<Interval>(s);
  const Vector<Interval> ab = rotate(rotate(v, b, g), a, g);
  const Vector<Interval> sum = rotate(v, a + b, g);
  for (Eigen::Index t = 0; t < v.size(); ++t) RC_ASSERT(overlaps(ab[t], sum[t]));
}

RC_GTEST_PROP(RotationProperties, RotationPreservesTheNorm, ()) {
  ScopedPrecision p(256);
  const Spectrum s = *gen::spectra(16);
  const auto v = to_interval(*gen::vectors(s.dim()));
  const std::int64_t n = *gen::positions();
  const auto g = frequencies<Interval>(s);
  RC_ASSERT(overlaps(squared_norm(rotate(v, n, g)), squared_norm(v)));
}

RC_GTEST_PROP(RotationProperties, IntervalContainsHighPrecisionMPFR, ()) {
  const Spectrum s = *gen::spectra(8);
  const auto v = *gen::vectors(s.dim());
  const std::int64_t n = *gen::positions();
  Vector<Interval> enclosure;
  {
    ScopedPrecision p(256);
    enclosure = rotate(to_interval(v), n, frequencies<Interval>(s));
  }
  // 800-bit MPFR: its error (~2^40 * 2^-790 relative) is far inside the 257-bit enclosure.
  ScopedPrecision p(800);
  Vector<Real> vr(s.dim());
  for (int t = 0; t < s.dim(); ++t) vr[t] = Real(static_cast<double>(v[static_cast<size_t>(t)]));
  const Vector<Real> reference = rotate(vr, n, frequencies<Real>(s));
  for (int t = 0; t < s.dim(); ++t) RC_ASSERT(contains(enclosure[t], reference[t]));
}

}  // namespace
}  // namespace ropecheck

#include "rotation/angle_sweep.h"

#include <mpfi.h>

#include <cmath>
#include <stdexcept>

#include "rotation/rotation.h"

namespace ropecheck {
namespace {

// Sets out = a*b - c*d (minus) or a*b + c*d, with one scratch value: raw MPFI on preallocated
// values, because Boost temporaries (an allocation per product) would cost as much as the sweep saves.
void fused(mpfi_ptr out, mpfi_srcptr a, mpfi_srcptr b, mpfi_srcptr c, mpfi_srcptr d, bool minus, mpfi_ptr scratch) {
  mpfi_mul(scratch, c, d);
  mpfi_mul(out, a, b);
  if (minus) mpfi_sub(out, out, scratch);
  else mpfi_add(out, out, scratch);
}

void match_precision(std::vector<Interval>& v, std::size_t n, mpfr_prec_t prec) {
  v.resize(n);
  for (Interval& x : v)
    if (mpfi_get_prec(x.backend().data()) != prec) mpfi_set_prec(x.backend().data(), prec);
}

}  // namespace

AngleSweep::AngleSweep(const std::vector<Interval>& g, long long r_max) : r_max_(r_max), pairs_(g.size()) {
  if (g.empty()) throw std::invalid_argument("AngleSweep: no frequencies");
  if (r_max < 0 || r_max >= (1LL << 52)) throw std::invalid_argument("AngleSweep: r_max outside [0, 2^52)");
  block_ = static_cast<long long>(std::ceil(std::sqrt(static_cast<double>(r_max) + 1)));
  while (block_ * block_ < r_max + 1) ++block_;  // sqrt of a double may round down
  const long long blocks = r_max / block_ + 1;
  small_c_.resize(static_cast<std::size_t>(block_) * pairs_);
  small_s_.resize(small_c_.size());
  big_c_.resize(static_cast<std::size_t>(blocks) * pairs_);
  big_s_.resize(big_c_.size());
  for (long long j = 0; j < block_; ++j)
    for (std::size_t k = 0; k < pairs_; ++k) {
      const std::size_t at = static_cast<std::size_t>(j) * pairs_ + k;
      sin_cos(rotation_angle(j, g[k]), small_s_[at], small_c_[at]);
    }
  for (long long m = 0; m < blocks; ++m)
    for (std::size_t k = 0; k < pairs_; ++k) {
      const std::size_t at = static_cast<std::size_t>(m) * pairs_ + k;
      sin_cos(rotation_angle(m * block_, g[k]), big_s_[at], big_c_[at]);
    }

  // The bound of the header, evaluated upward (every operation on non-negative numbers rounded up).
  const mpfr_prec_t prec = mpfi_get_prec(g[0].backend().data());
  Real rad_max(0), g_max(0), e;
  for (const Interval& x : g) {
    Real w = upper_of(x);
    mpfr_sub(w.backend().data(), w.backend().data(), lower_of(x).backend().data(), MPFR_RNDU);
    mpfr_div_2ui(w.backend().data(), w.backend().data(), 1, MPFR_RNDU);
    if (w > rad_max) rad_max = w;
    const Real a = abs(upper_of(x)) > abs(lower_of(x)) ? Real(abs(upper_of(x))) : Real(abs(lower_of(x)));
    if (a > g_max) g_max = a;
  }
  mpfr_set_ui_2exp(e.backend().data(), 1, -prec, MPFR_RNDU);
  auto up = [](Real& out, const Real& a, const Real& b, bool add) {
    if (add) mpfr_add(out.backend().data(), a.backend().data(), b.backend().data(), MPFR_RNDU);
    else mpfr_mul(out.backend().data(), a.backend().data(), b.backend().data(), MPFR_RNDU);
  };
  const Real R(static_cast<double>(r_max));
  Real rho, t, ws;
  up(rho, R, rad_max, false);
  up(t, R, g_max, false);
  up(t, t, e, false);
  up(t, t, Real(4), false);
  up(rho, rho, t, true);
  up(rho, rho, e, true);  // rho = R rad + 4 R |g| e + e
  up(ws, rho, Real(2), false);
  up(t, e, Real(8), false);
  up(ws, ws, t, true);  // ws = 2 rho + 8 e
  up(width_bound_, ws, Real(6), false);
  up(t, e, Real(12), false);
  up(width_bound_, width_bound_, t, true);
}

void AngleSweep::row(long long r, std::vector<Interval>& c, std::vector<Interval>& s) const {
  if (r < 0 || r > r_max_) throw std::invalid_argument("AngleSweep::row: r outside [0, r_max]");
  const mpfr_prec_t prec = mpfi_get_prec(small_c_[0].backend().data());
  match_precision(c, pairs_, prec);
  match_precision(s, pairs_, prec);
  const std::size_t m = static_cast<std::size_t>(r / block_) * pairs_, j = static_cast<std::size_t>(r % block_) * pairs_;
  mpfi_t scratch;
  mpfi_init2(scratch, prec);
  for (std::size_t k = 0; k < pairs_; ++k) {
    mpfi_srcptr bc = big_c_[m + k].backend().data(), bs = big_s_[m + k].backend().data();
    mpfi_srcptr sc = small_c_[j + k].backend().data(), ss = small_s_[j + k].backend().data();
    fused(c[k].backend().data(), bc, sc, bs, ss, true, scratch);
    fused(s[k].backend().data(), bs, sc, bc, ss, false, scratch);
  }
  mpfi_clear(scratch);
}

void AngleSweep::cos_row(long long r, std::vector<Interval>& c) const {
  if (r < 0 || r > r_max_) throw std::invalid_argument("AngleSweep::cos_row: r outside [0, r_max]");
  const mpfr_prec_t prec = mpfi_get_prec(small_c_[0].backend().data());
  match_precision(c, pairs_, prec);
  const std::size_t m = static_cast<std::size_t>(r / block_) * pairs_, j = static_cast<std::size_t>(r % block_) * pairs_;
  mpfi_t scratch;
  mpfi_init2(scratch, prec);
  for (std::size_t k = 0; k < pairs_; ++k)
    fused(c[k].backend().data(), big_c_[m + k].backend().data(), small_c_[j + k].backend().data(),
          big_s_[m + k].backend().data(), small_s_[j + k].backend().data(), true, scratch);
  mpfi_clear(scratch);
}

void AngleSweep::sin_row(long long r, std::vector<Interval>& s) const {
  if (r < 0 || r > r_max_) throw std::invalid_argument("AngleSweep::sin_row: r outside [0, r_max]");
  const mpfr_prec_t prec = mpfi_get_prec(small_s_[0].backend().data());
  match_precision(s, pairs_, prec);
  const std::size_t m = static_cast<std::size_t>(r / block_) * pairs_, j = static_cast<std::size_t>(r % block_) * pairs_;
  mpfi_t scratch;
  mpfi_init2(scratch, prec);
  for (std::size_t k = 0; k < pairs_; ++k)
    fused(s[k].backend().data(), big_s_[m + k].backend().data(), small_c_[j + k].backend().data(),
          big_c_[m + k].backend().data(), small_s_[j + k].backend().data(), false, scratch);
  mpfi_clear(scratch);
}

}  // namespace ropecheck

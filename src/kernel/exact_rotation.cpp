#include "kernel/exact_rotation.h"

#include <gmp.h>
#include <mpfr.h>

#include <atomic>
#include <memory>
#include <vector>
#include <cmath>

#include "kernel/detail/double_double_level.h"
#include "numeric/decimal_rational.h"
#include "numeric/mp_handles.h"
#include "numeric/precision.h"
#include "numeric/round_to_binary.h"
#include "numeric/scalar.h"
#include "spectrum/attention_factor.h"
#include "spectrum/frequencies.h"

namespace ropecheck::kernel {

struct ExactRotation::Factor {
  Mpfr value{320};  // the factor computed at >= 320 bits, rounded to 320
  DoubleDouble dd;  // value as hi + lo: within 2^-106 of it, 2^-105.9 of the factor
  bool stated = false;  // the config states it as a decimal: `exact` holds it
  Mpq exact;
};

namespace {

// The factor computed at b bits by attention_factor<Real> (a few correctly rounded MPFR operations
// on exact decimal inputs) has a relative error below 2^-(b - 10).
constexpr int kFactorLostBits = 10;

// Sets g (precision b + 64) to the frequencies' turns G_k = round(2^b g_k / 2pi) of `rotary` at b
// + 64 bits, and a (precision b + 64) to the attention factor. Holds the precision lock (Boost's
// process-wide default).
void recompute(const Spectrum& rotary, unsigned b, std::vector<Mpz>& turns, mpfr_ptr a) {
  std::lock_guard<std::mutex> lock(default_precision_mutex());
  ScopedPrecision precision(b + 64);
  const std::vector<Real> g = frequencies<Real>(rotary);
  const Real turn = Real(2 * pi_value<Real>());
  turns = std::vector<Mpz>(g.size());
  for (size_t k = 0; k < g.size(); ++k) {
    Real scaled = Real(g[k] / turn);
    mpfr_mul_2ui(scaled.backend().data(), scaled.backend().data(), b, MPFR_RNDN);  // exact
    mpfr_get_z(turns[k].v, scaled.backend().data(), MPFR_RNDN);
  }
  const Real factor = attention_factor<Real>(rotary.scaling());
  mpfr_set(a, factor.backend().data(), MPFR_RNDN);
}

// One level's angle: c, s (w bits) within delta of cos and sin of p g_k. The heads of a token share
// its position, and the kernel visits every pair of one head before the next head, so each thread
// keeps, per pair k, the last angle it computed, keyed by the rotation's id (never reused), the
// pair, the position, the turn bits b and the working bits w: the same inputs give the same bits,
// so results do not change.
struct AngleKey {
  std::uint64_t rotation = 0;
  int k = -1;
  std::int64_t p = 0;
  unsigned b = 0, w = 0;
  bool operator==(const AngleKey&) const = default;
};
struct Angle {
  AngleKey key;
  Mpfr c{64}, s{64}, delta{64};
  detail::DoubleDoubleAngle dd;  // c and s as double-doubles, dd.delta >= delta + 2^-105
};
// A thread that used the accurate path also holds MPFR's per-thread constant cache (pi, used by
// sin/cos): the angle cache frees it when the thread ends, whoever made the thread, or it leaks.
struct AngleCache {
  std::vector<std::unique_ptr<Angle>> angles;
  AngleCache() = default;
  AngleCache(const AngleCache&) = delete;
  AngleCache& operator=(const AngleCache&) = delete;
  ~AngleCache() { mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE); }
};
thread_local AngleCache t_angles;

Angle& cached_angle(int k) {
  auto& v = t_angles.angles;
  if (v.size() <= static_cast<size_t>(k)) v.resize(static_cast<size_t>(k) + 1);
  if (!v[static_cast<size_t>(k)]) v[static_cast<size_t>(k)] = std::make_unique<Angle>();
  return *v[static_cast<size_t>(k)];
}

std::atomic<std::uint64_t> g_rotation_ids{0};

double round_to(Dtype f, mpfr_srcptr y) { return round_to_dtype(y, f); }

// The angle of `key` at level (b, w): c, s (w bits) within delta of cos and sin of p g_k, from the
// thread's cache or computed (and cached) from the turn integer G = round(2^b g_k / 2pi): `g`, or
// when null the four 64-bit limbs `limbs` (least significant first; b = 256), imported only then.
Angle& angle_for(const AngleKey& key, mpz_srcptr g, const std::uint64_t* limbs, unsigned b, std::int64_t p, unsigned w) {
  Angle& angle = cached_angle(key.k);
  if (angle.key == key) return angle;
  Mpz imported;
  if (g == nullptr) {
    mpz_import(imported.v, 4, -1, sizeof(std::uint64_t), 0, 0, limbs);
    g = imported.v;
  }
  mpfr_ptr c = angle.c.v, s = angle.s.v, delta = angle.delta.v;
  angle.key = AngleKey{};  // invalid until complete
  mpfr_set_prec(c, static_cast<mpfr_prec_t>(w));
  mpfr_set_prec(s, static_cast<mpfr_prec_t>(w));
  // T = |p| G mod 2^b, negated mod 2^b for p < 0: exact.
  const std::uint64_t mag = p < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(p) : static_cast<std::uint64_t>(p);
  Mpz turn;
  mpz_mul_ui(turn.v, g, static_cast<unsigned long>(mag));
  mpz_fdiv_r_2exp(turn.v, turn.v, b);
  if (p < 0 && mpz_sgn(turn.v) != 0) {
    Mpz m;
    mpz_setbit(m.v, b);
    mpz_sub(turn.v, m.v, turn.v);
  }
  Mpfr tau(b), theta(w), two_pi(w + 8);
  mpfr_set_z_2exp(tau.v, turn.v, -static_cast<mpfr_exp_t>(b), MPFR_RNDN);  // exact: b bits
  mpfr_const_pi(two_pi.v, MPFR_RNDN);
  mpfr_mul_2ui(two_pi.v, two_pi.v, 1, MPFR_RNDN);
  mpfr_mul(theta.v, tau.v, two_pi.v, MPFR_RNDN);
  mpfr_sin_cos(s, c, theta.v, MPFR_RNDN);
  // |theta - 2pi frac(p g / 2pi)| <= 2pi ((|p| + 1) 2^-b + 2^-(w+8) + 2^-w) (the turn, 2pi's
  // rounding, the product's rounding with theta < 2pi); sin and cos add 2^-(w+1) and are
  // 1-Lipschitz: delta <= 8 ((|p| + 1) 2^-b + 2^-w).
  mpfr_set_ui(delta, static_cast<unsigned long>(mag), MPFR_RNDU);
  mpfr_add_ui(delta, delta, 1, MPFR_RNDU);
  mpfr_mul_2si(delta, delta, -static_cast<long>(b), MPFR_RNDU);
  Mpfr q(64);
  mpfr_set_ui_2exp(q.v, 1, -static_cast<mpfr_exp_t>(w), MPFR_RNDU);
  mpfr_add(delta, delta, q.v, MPFR_RNDU);
  mpfr_mul_2ui(delta, delta, 3, MPFR_RNDU);
  // The double-doubles: hi = RN(c), lo = RN(c - hi) (c - hi exact at w bits) are within
  // 2^-53 |lo| <= 2^-106 of c (|c| <= 1; 2^-1075 more if lo is subnormal): 2^-105 covers both.
  auto split = [](mpfr_srcptr v, DoubleDouble& out) {
    Mpfr rest(mpfr_get_prec(v));
    out.hi = mpfr_get_d(v, MPFR_RNDN);
    mpfr_sub_d(rest.v, v, out.hi, MPFR_RNDN);
    out.lo = mpfr_get_d(rest.v, MPFR_RNDN);
  };
  split(c, angle.dd.c);
  split(s, angle.dd.s);
  mpfr_set_ui_2exp(q.v, 1, -105, MPFR_RNDU);
  mpfr_add(q.v, q.v, delta, MPFR_RNDU);
  angle.dd.delta = mpfr_get_d(q.v, MPFR_RNDU);
  angle.key = key;
  return angle;
}

// One MPFR level: returns true and sets `out` when y - E and y + E round alike; otherwise sets `out`
// to the rounding of y~ (the caller's value if every level fails).
bool attempt(Dtype format, const AngleKey& key, mpz_srcptr g, const std::uint64_t* limbs, unsigned b, bool zero_angle, std::int64_t p,
             mpfr_srcptr a, int a_lost_bits, unsigned w, double xa, double xb, bool second, double& out) {
  const mpfr_prec_t wide = static_cast<mpfr_prec_t>(w) + 40;
  Mpfr y(wide), t(wide), e(64), lo(wide), hi(wide);
  Angle& angle = zero_angle ? cached_angle(key.k) : angle_for(key, g, limbs, b, p, w);
  mpfr_ptr c = angle.c.v, s = angle.s.v, delta = angle.delta.v;  // delta bounds |c - cos|, |s - sin|
  if (zero_angle) {
    angle.key = AngleKey{};
    mpfr_set_prec(c, 2);
    mpfr_set_prec(s, 2);
    mpfr_set_ui(c, 1, MPFR_RNDN);
    mpfr_set_ui(s, 0, MPFR_RNDN);
    mpfr_set_ui(delta, 0, MPFR_RNDN);
  }
  // u = x_a c - x_b s (or x_a s + x_b c): both products exact (24 + w bits <= wide), one rounding.
  Mpfr pa(w + 24), pb(w + 24);
  mpfr_mul_d(pa.v, second ? s : c, xa, MPFR_RNDN);
  mpfr_mul_d(pb.v, second ? c : s, xb, MPFR_RNDN);
  if (second) mpfr_add(t.v, pa.v, pb.v, MPFR_RNDN);
  else mpfr_sub(t.v, pa.v, pb.v, MPFR_RNDN);
  mpfr_mul(y.v, t.v, a, MPFR_RNDN);
  // E = a S delta + |y| (2^-(w+38) + 2^-(prec(a) - a_lost_bits)), upward: the sum's and the
  // product's roundings are 2^-(wide) relative each (<= 2^-(w+39) together, with |t| <= |y|/a).
  Mpfr sum(64), term(64);
  mpfr_set_d(sum.v, std::fabs(xa), MPFR_RNDU);
  mpfr_add_d(sum.v, sum.v, std::fabs(xb), MPFR_RNDU);
  mpfr_mul(e.v, sum.v, a, MPFR_RNDU);
  mpfr_mul(e.v, e.v, delta, MPFR_RNDU);
  mpfr_set_ui_2exp(term.v, 1, -static_cast<mpfr_exp_t>(w + 38), MPFR_RNDU);
  Mpfr ra(64);
  mpfr_set_ui_2exp(ra.v, 1, -static_cast<mpfr_exp_t>(mpfr_get_prec(a) - a_lost_bits), MPFR_RNDU);
  mpfr_add(term.v, term.v, ra.v, MPFR_RNDU);
  Mpfr ay(64);
  mpfr_abs(ay.v, y.v, MPFR_RNDU);
  mpfr_mul(term.v, term.v, ay.v, MPFR_RNDU);
  mpfr_add(e.v, e.v, term.v, MPFR_RNDU);
  out = round_to(format, y.v);
  // E = 0: y~ is exact (angle 0, exact factor or y~ = 0): its rounding is the answer, and an exact
  // zero keeps the sign IEEE arithmetic of the formula gives it (the products' and sum's signs).
  if (mpfr_zero_p(e.v)) return true;
  mpfr_sub(lo.v, y.v, e.v, MPFR_RNDD);
  mpfr_add(hi.v, y.v, e.v, MPFR_RNDU);
  const double rlo = round_to(format, lo.v), rhi = round_to(format, hi.v);
  return rlo == rhi && std::signbit(rlo) == std::signbit(rhi);
}

}  // namespace

ExactRotation::ExactRotation(const Spectrum& rotary, std::vector<std::array<std::uint64_t, 4>> turns,
                             std::vector<std::uint8_t> zero_frequency, mpfr_srcptr factor)
    : rotary_(rotary), turns_(std::move(turns)), zero_frequency_(std::move(zero_frequency)), factor_(std::make_unique<Factor>()),
      id_(++g_rotation_ids) {
  mpfr_set(factor_->value.v, factor, MPFR_RNDN);
  Mpfr rest(320);
  factor_->dd.hi = mpfr_get_d(factor_->value.v, MPFR_RNDN);
  mpfr_sub_d(rest.v, factor_->value.v, factor_->dd.hi, MPFR_RNDN);  // exact
  factor_->dd.lo = mpfr_get_d(rest.v, MPFR_RNDN);
  if (const auto stated = stated_attention_factor(rotary_.scaling())) factor_->stated = decimal_to_rational(*stated, factor_->exact.v);
}

ExactRotation::~ExactRotation() = default;

ExactRotation::Rounded ExactRotation::round(Dtype format, int k, std::int64_t p, double x_a, double x_b,
                                            bool second) const {
  const bool zero_angle = p == 0 || zero_frequency_[static_cast<size_t>(k)] != 0;
  Rounded r;
  // At angle 0 the component is a x (x = x_a or x_b); with a stated decimal factor it can be an
  // exact tie (1.43 x 611250 2^-149), which no enclosure decides: rounded in rational arithmetic.
  // A zero x keeps the levels below (y~ = 0 exactly, E = 0, the formula's signed zero).
  if (const double x = second ? x_b : x_a; zero_angle && factor_->stated && x != 0) {
    r.value = round_rational_product(factor_->exact.v, x, format);
    r.level = 1;
    return r;
  }
  const std::uint64_t* limbs = turns_[static_cast<size_t>(k)].data();
  // Level 1, double-double (detail/double_double_level.h) from the angle of level 2.
  if (!zero_angle) {
    const Angle& angle = angle_for(AngleKey{id_, k, p, 256, 128}, nullptr, limbs, 256, p, 128);
    if (detail::round_double_double(format, angle.dd, factor_->dd, x_a, x_b, second, &r.value)) {
      r.level = 1;
      return r;
    }
  }
  int level = 1;
  for (unsigned w : {128u, 256u}) {
    ++level;
    if (attempt(format, AngleKey{id_, k, p, 256, w}, nullptr, limbs, 256, zero_angle, p, factor_->value.v, kFactorLostBits, w, x_a, x_b, second,
                r.value)) {
      r.level = level;
      return r;
    }
  }
  for (unsigned b : {512u, 1024u, 2048u}) {
    ++level;
    std::vector<Mpz> turns;
    Mpfr a(b + 64);
    recompute(rotary_, b, turns, a.v);
    if (attempt(format, AngleKey{id_, k, p, b, b - 64}, turns[static_cast<size_t>(k)].v, nullptr, b, zero_angle, p, a.v, kFactorLostBits, b - 64,
                x_a, x_b, second, r.value)) {
      r.level = level;
      return r;
    }
  }
  r.level = 0;
  r.resolved = false;
  return r;
}

}  // namespace ropecheck::kernel

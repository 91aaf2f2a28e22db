#include "accuracy/rope_reference.h"

#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/input_error.h"
#include "numeric/decimal_rational.h"
#include "numeric/mp_handles.h"
#include "numeric/precision.h"
#include "numeric/small_floats.h"
#include "spectrum/attention_factor.h"
#include "spectrum/frequencies.h"

namespace ropecheck::accuracy {
namespace {

// An mpfr_t with an explicit precision, freed with its owner (movable so vectors can hold it).
class Mp {
 public:
  explicit Mp(mpfr_prec_t prec) { mpfr_init2(v_, prec); }
  Mp(Mp&& o) noexcept {
    mpfr_init2(v_, MPFR_PREC_MIN);
    mpfr_swap(v_, o.v_);
  }
  Mp(const Mp&) = delete;
  Mp& operator=(const Mp&) = delete;
  ~Mp() { mpfr_clear(v_); }
  mpfr_ptr get() { return v_; }
  mpfr_srcptr get() const { return v_; }

 private:
  mpfr_t v_;
};

// Upper bounds computed in double are inflated by this factor: each is a handful of double
// operations on non-negative numbers, whose relative rounding errors (<= 2^-53 each) it covers.
constexpr double kUp = 1.0 + 0x1p-20;

}  // namespace

// The attention factor as the levels use it.
struct RopeReferenceFactor {
  bool unit = true;
  mpfr_srcptr mid = nullptr;
  double rad = 0, up = 1;
};

namespace {

// Sets mid to the midpoint of x (mid's precision: x's); returns an upward radius: |mid - v| <= r
// for every v in x. |mid - v| <= (hi - lo) / 2 + |mid - (lo + hi)/2|, and the rounding of mid is
// below one of its ulps, 2^(EXP(mid) - prec): bounded by the width plus two ulps.
double midpoint_radius(const Interval& x, Mp& mid) {
  const mpfr_prec_t prec = mpfi_get_prec(x.backend().data());
  Mp lo(prec), hi(prec), width(64);
  mpfi_get_left(lo.get(), x.backend().data());
  mpfi_get_right(hi.get(), x.backend().data());
  mpfr_add(mid.get(), lo.get(), hi.get(), MPFR_RNDN);
  mpfr_div_2ui(mid.get(), mid.get(), 1, MPFR_RNDN);
  mpfr_sub(width.get(), hi.get(), lo.get(), MPFR_RNDU);
  // The ulp is added in MPFR: at max_bits + 64 bits it lies far below double's range, and ldexp
  // would flush it to 0; the upward conversion keeps a radius that underflows at 2^-1074.
  if (!mpfr_zero_p(mid.get())) {
    Mp ulp(2);
    mpfr_set_ui_2exp(ulp.get(), 1, mpfr_get_exp(mid.get()) - prec + 1, MPFR_RNDN);  // exact
    mpfr_add(width.get(), width.get(), ulp.get(), MPFR_RNDU);
  }
  return mpfr_get_d(width.get(), MPFR_RNDU) * kUp;
}

// One precision level's working values: the angle, cos and sin, and the rotation's temporaries.
// Error bounds at level P are carried in double scaled by 2^P (units of 2^-P) and scaled back in
// MPFR: at P = 1024 a bound such as 2^-149 2^-P is far below double's range, and computed there
// it would flush to 0, deciding a rounding the interval does not decide. Scaled, every bound
// holds a term >= 1/2 (the rounding of sin_cos), so a term that underflows (< 2^-1022) is covered
// by kUp's 2^-20 relative slack.
struct Level {
  mpfr_prec_t p;
  Mp angle_exact, angle, t, y, lo, hi, bound{64};
  explicit Level(mpfr_prec_t prec, mpfr_prec_t g_prec)
      : p(prec), angle_exact(g_prec + 64), angle(prec + 64), t(prec + 24), y(prec + 32), lo(prec + 32), hi(prec + 32) {}
};

}  // namespace

struct RopeReference::Shared {
  unsigned bits = 0, max_bits = 0;
  int pairs = 0;
  std::vector<std::uint8_t> identity;
  std::vector<Mp> g_mid;        // midpoint of the enclosure of g_k, at max_bits + 64 bits or more
  std::vector<double> g_rad;    // |g_mid - g_k| <= g_rad (upward)
  bool unit_factor = true;      // attention factor exactly 1
  Mp a_mid{64};                 // midpoint of the enclosure of the attention factor a
  double a_rad = 0;             // |a_mid - a| <= a_rad (upward)
  double a_up = 1;              // >= a
  bool a_stated = false;        // the config states a as a decimal: a_exact holds it (angle 0 below)
  Mpq a_exact;
};

struct RopeReference::Scratch {
  std::int64_t position = 0;
  Level base, high;
  std::vector<Mp> cos, sin;    // at P bits, for the current position
  std::vector<double> err;     // |cos~ - cos|, |sin~ - sin| <= err[k] 2^-P (upward; Level)
  Mp c_high, s_high;
  Mp xa, xb;                   // the inputs, exact at 24 bits
  Scratch(const Shared& sh, mpfr_prec_t g_prec)
      : base(sh.bits, g_prec), high(sh.max_bits, g_prec), c_high(sh.max_bits), s_high(sh.max_bits), xa(24), xb(24) {
    for (int k = 0; k < sh.pairs; ++k) {
      cos.emplace_back(sh.bits);
      sin.emplace_back(sh.bits);
    }
    err.assign(static_cast<size_t>(sh.pairs), 0.0);
  }
};

namespace {

// Sets c, s = cos, sin of p g~_k at level.p bits, times the attention factor a~ when it is not 1;
// returns the upward bound of their error against the exact a cos(p g_k), a sin(p g_k), in units
// of 2^-P (rope_reference.h: e = |p| r_k + |t~| 2^-(P+64) + 2^-(P+1) for the rotation; with a
// factor, a e + r_a + a 2^-P: the factor's radius, and the product rounded to P bits). An infinite
// result (r_k 2^P beyond double) leaves the rounding undecided, never decided wrongly.
double angle_cos_sin(Level& level, mpfr_srcptr g_mid, double g_rad, std::int64_t p, mpfr_ptr c, mpfr_ptr s,
                     const RopeReferenceFactor& factor) {
  mpfr_mul_si(level.angle_exact.get(), g_mid, static_cast<long>(p), MPFR_RNDN);  // exact: 64 + prec(g) bits
  mpfr_set(level.angle.get(), level.angle_exact.get(), MPFR_RNDN);
  mpfr_sin_cos(s, c, level.angle.get(), MPFR_RNDN);
  const double abs_p = std::fabs(static_cast<double>(p));
  const double abs_t = std::fabs(mpfr_get_d(level.angle.get(), MPFR_RNDA));
  const int P = static_cast<int>(level.p);
  const double e = (std::ldexp(abs_p * g_rad, P) + std::ldexp(abs_t, -64) + 0.5) * kUp;
  if (factor.unit) return e;
  mpfr_mul(c, c, factor.mid, MPFR_RNDN);
  mpfr_mul(s, s, factor.mid, MPFR_RNDN);
  return (factor.up * e + std::ldexp(factor.rad, P) + factor.up) * kUp;
}

// One component y = x1 * u + sign * x2 * v (u, v = c~, s~ or s~, c~), with the rounding test.
// Returns: true when both formats were decided.
bool component(Level& level, mpfr_srcptr x1, mpfr_srcptr x2, mpfr_srcptr u, mpfr_srcptr v, bool minus, double abs_sum,
               double err, ExactComponent& out) {
  mpfr_mul(level.t.get(), x2, v, MPFR_RNDN);  // exact: 24 + P bits
  if (minus) mpfr_fms(level.y.get(), x1, u, level.t.get(), MPFR_RNDN);
  else mpfr_fma(level.y.get(), x1, u, level.t.get(), MPFR_RNDN);
  // E 2^P = (|x_a| + |x_b|) e 2^P + |y~| 2^-31, then E = that times 2^-P, exactly, in MPFR.
  const double abs_y = std::fabs(mpfr_get_d(level.y.get(), MPFR_RNDA));
  mpfr_set_d(level.bound.get(), (abs_sum * err + std::ldexp(abs_y, -31)) * kUp, MPFR_RNDU);  // exact: 53 <= 64 bits
  mpfr_mul_2si(level.bound.get(), level.bound.get(), -static_cast<long>(level.p), MPFR_RNDU);  // exact
  mpfr_sub(level.lo.get(), level.y.get(), level.bound.get(), MPFR_RNDD);
  mpfr_add(level.hi.get(), level.y.get(), level.bound.get(), MPFR_RNDU);
  out.value = mpfr_get_d(level.y.get(), MPFR_RNDN);
  for (std::size_t i = 0; i < kKernelDtypes.size(); ++i) {
    out.rounded[i] = round_to_dtype(level.y.get(), kKernelDtypes[i]);
    // Compared as values (==), so that -0 and +0 agree: both are the correct rounding of a y whose
    // magnitude is below half the smallest subnormal, and the exact y has no sign to decide there.
    out.decided[i] = round_to_dtype(level.lo.get(), kKernelDtypes[i]) == round_to_dtype(level.hi.get(), kKernelDtypes[i]);
  }
  return out.all_decided();
}

bool rotate_at(Level& level, mpfr_srcptr xa, mpfr_srcptr xb, mpfr_srcptr c, mpfr_srcptr s, double abs_sum, double err,
               ExactPair& out) {
  const bool a = component(level, xa, xb, c, s, true, abs_sum, err, out.a);   // x_a c - x_b s
  const bool b = component(level, xa, xb, s, c, false, abs_sum, err, out.b);  // x_a s + x_b c
  out.bits = static_cast<unsigned>(level.p);
  return a && b;
}

}  // namespace

RopeReference::RopeReference(const kernel::RopePlan& plan, unsigned precision_bits, unsigned max_bits) {
  if (max_bits > 65536) throw InputError("reference max precision", "at most 65536 bits", std::to_string(max_bits));
  if (precision_bits < 64 || precision_bits > max_bits)
    throw InputError("reference precision", "bits in [64, " + std::to_string(max_bits) + "]", std::to_string(precision_bits));
  auto sh = std::make_shared<Shared>();
  sh->bits = precision_bits;
  sh->max_bits = max_bits;
  sh->pairs = plan.block_pairs();
  std::vector<Interval> g;
  {
    const ScopedPrecision scope(max_bits + 64);
    g = frequencies<Interval>(plan.spectrum());
    sh->unit_factor = unit_attention_factor(plan.spectrum().scaling());
    if (!sh->unit_factor) {
      const Interval a = attention_factor<Interval>(plan.spectrum().scaling());
      Mp mid(mpfi_get_prec(a.backend().data()));
      sh->a_rad = midpoint_radius(a, mid);
      sh->a_up = mpfr_get_d(&a.backend().data()->right, MPFR_RNDU) * kUp;
      mpfr_set_prec(sh->a_mid.get(), mpfr_get_prec(mid.get()));
      mpfr_set(sh->a_mid.get(), mid.get(), MPFR_RNDN);  // exact: same precision
      if (const auto stated = stated_attention_factor(plan.spectrum().scaling())) sh->a_stated = decimal_to_rational(*stated, sh->a_exact.v);
    }
  }
  for (int k = 0; k < sh->pairs; ++k) {
    const bool id = plan.identity(k);
    sh->identity.push_back(id ? 1 : 0);
    const Interval& gk = g[static_cast<size_t>(plan.spectrum_pair(k))];
    Mp mid(mpfi_get_prec(gk.backend().data()));
    sh->g_rad.push_back(midpoint_radius(gk, mid));
    sh->g_mid.push_back(std::move(mid));
    if (id && !mpfr_zero_p(sh->g_mid.back().get()))
      throw std::logic_error("RopeReference: the plan's identity pair " + std::to_string(k) + " has a non-zero frequency");
  }
  shared_ = sh;
  const mpfr_prec_t g_prec = shared_->pairs > 0 ? mpfr_get_prec(shared_->g_mid[0].get()) : max_bits + 64;
  scratch_ = std::make_unique<Scratch>(*shared_, g_prec);
  set_position(0);
}

RopeReference::RopeReference(const RopeReference& other) : shared_(other.shared_) {
  const mpfr_prec_t g_prec = shared_->pairs > 0 ? mpfr_get_prec(shared_->g_mid[0].get()) : shared_->max_bits + 64;
  scratch_ = std::make_unique<Scratch>(*shared_, g_prec);
  set_position(other.position());
}

RopeReference::~RopeReference() = default;

unsigned RopeReference::precision_bits() const { return shared_->bits; }
unsigned RopeReference::max_bits() const { return shared_->max_bits; }
int RopeReference::block_pairs() const { return shared_->pairs; }
std::int64_t RopeReference::position() const { return scratch_->position; }

void RopeReference::set_position(std::int64_t p) {
  Scratch& sc = *scratch_;
  sc.position = p;
  for (int k = 0; k < shared_->pairs; ++k) {
    const auto i = static_cast<size_t>(k);
    if (shared_->identity[i]) {
      mpfr_set_ui(sc.cos[i].get(), 1, MPFR_RNDN);
      mpfr_set_ui(sc.sin[i].get(), 0, MPFR_RNDN);
      sc.err[i] = 0;
      continue;
    }
    sc.err[i] = angle_cos_sin(sc.base, shared_->g_mid[i].get(), shared_->g_rad[i], p, sc.cos[i].get(), sc.sin[i].get(), factor());
  }
}

ExactPair RopeReference::rotate(int k, float x_a, float x_b) {
  if (k < 0 || k >= shared_->pairs) throw std::invalid_argument("RopeReference::rotate: pair " + std::to_string(k) + " outside the block");
  if (!std::isfinite(x_a) || !std::isfinite(x_b)) throw std::invalid_argument("RopeReference::rotate: non-finite input");
  const auto i = static_cast<size_t>(k);
  if (shared_->identity[i]) throw std::invalid_argument("RopeReference::rotate: identity pair " + std::to_string(k));
  Scratch& sc = *scratch_;
  ExactPair out;
  const double da = x_a, db = x_b;
  out.norm = std::sqrt(da * da + db * db);  // the squares are exact in double; two roundings
  mpfr_set_flt(sc.xa.get(), x_a, MPFR_RNDN);
  mpfr_set_flt(sc.xb.get(), x_b, MPFR_RNDN);
  const double abs_sum = (std::fabs(da) + std::fabs(db)) * kUp;
  // At angle 0 (p = 0 or g_k = 0) the map is a (x_a, x_b); with a stated decimal a that product
  // can be an exact tie, which no enclosure decides: rounded exactly in rational arithmetic.
  if (shared_->a_stated && (sc.position == 0 || mpfr_zero_p(shared_->g_mid[i].get()))) {
    const std::pair<float, ExactComponent*> parts[] = {{x_a, &out.a}, {x_b, &out.b}};
    for (const auto& [x, comp] : parts) {
      const mpq_srcptr a = shared_->a_exact.v;
      comp->value = round_rational_product(a, x, 53, -1022, 1023);
      for (std::size_t t = 0; t < kKernelDtypes.size(); ++t) comp->rounded[t] = round_rational_product(a, x, kKernelDtypes[t]);
    }
    out.bits = 0;
    return out;
  }
  if (rotate_at(sc.base, sc.xa.get(), sc.xb.get(), sc.cos[i].get(), sc.sin[i].get(), abs_sum, sc.err[i], out)) return out;
  // The rounding test failed at P bits: the same pair at max_bits.
  const double err = angle_cos_sin(sc.high, shared_->g_mid[i].get(), shared_->g_rad[i], sc.position, sc.c_high.get(), sc.s_high.get(), factor());
  rotate_at(sc.high, sc.xa.get(), sc.xb.get(), sc.c_high.get(), sc.s_high.get(), abs_sum, err, out);
  return out;
}

void RopeReference::cos_sin_double(int k, double& c, double& s) const {
  const auto i = static_cast<size_t>(k);
  c = mpfr_get_d(scratch_->cos[i].get(), MPFR_RNDN);
  s = mpfr_get_d(scratch_->sin[i].get(), MPFR_RNDN);
}

RopeReferenceFactor RopeReference::factor() const {
  return RopeReferenceFactor{shared_->unit_factor, shared_->a_mid.get(), shared_->a_rad, shared_->a_up};
}

ExactComponent RopeReference::exact_identity(float x) {
  ExactComponent c;
  c.value = x;
  // x is exact, so its rounding to each format is the correct rounding.
  for (std::size_t t = 0; t < kKernelDtypes.size(); ++t) c.rounded[t] = value_of_bits(kKernelDtypes[t], bits_of_value(kKernelDtypes[t], x));
  return c;
}

bool ExactComponent::all_decided() const {
  for (bool d : decided)
    if (!d) return false;
  return true;
}

float round_to_f32(mpfr_srcptr y) {
  if (mpfr_nan_p(y)) return std::bit_cast<float>(kCanonicalNaNF32);
  return mpfr_get_flt(y, MPFR_RNDN);  // correctly rounded, subnormals and overflow included
}



}  // namespace ropecheck::accuracy

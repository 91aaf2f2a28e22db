#include "positional-heads.h"

#include <mpfi.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "rotation/angle_sweep.h"
#include "spectrum/frequencies.h"

namespace ropecheck::proofs {

std::string head_name(PositionalHead head) { return head == PositionalHead::diagonal ? "diagonal" : "previous-token"; }

namespace {

// The rotating pairs, fastest first (largest g; ties by index). Ranking by the binary64 frequency is
// enough: it only chooses which pairs carry the norm, and every certified number is then computed
// for exactly those pairs.
std::vector<int> fastest_order(const Spectrum& spectrum) {
  const std::vector<double> g = frequencies<double>(spectrum);
  std::vector<int> order;
  for (int k = 0; k < spectrum.pairs(); ++k)
    if (spectrum.rotated(k)) order.push_back(k);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return g[a] > g[b]; });
  return order;
}

void check_spread(const Spectrum& spectrum, int K) {
  if (K < 1 || K > spectrum.rotated_pairs())
    throw std::invalid_argument("K = " + std::to_string(K) + " outside [1, " + std::to_string(spectrum.rotated_pairs()) +
                                "] (the rotating pairs)");
}

// out[t][m] = sum over the first counts[t] entries of h of scale_i * sin^2(m h_i), m = 0..M
// (scale_i = 1 when `scale` is empty), enclosed; counts increasing, so several prefixes (the K
// fastest pairs for several K) share one sweep. sin(m h) comes from AngleSweep (rotation/
// angle_sweep.h: two sin/cos tables and the addition formula), with absolute width ~M 2^-prec, so
// 1 - c(m) keeps its relative accuracy ~M 2^-prec / dist(m g, 2 pi Z) even at a near-return.
// Raw MPFI on preallocated values in the M-long loop: Boost temporaries would cost more than the
// products themselves.
std::vector<std::vector<Interval>> half_angle_square_sums(const std::vector<Interval>& h, const std::vector<Interval>& scale,
                                                          const std::vector<std::size_t>& counts, long long M) {
  std::vector<std::vector<Interval>> out(counts.size(), std::vector<Interval>(static_cast<size_t>(M + 1), Interval(0)));
  if (h.empty()) return out;
  const AngleSweep sweep(h, M);
  const mpfr_prec_t prec = mpfi_get_prec(h[0].backend().data());
  mpfi_t acc, x;
  mpfi_init2(acc, prec);
  mpfi_init2(x, prec);
  std::vector<Interval> sn;
  for (long long m = 0; m <= M; ++m) {
    sweep.sin_row(m, sn);
    mpfi_set_ui(acc, 0);
    std::size_t t = 0;
    for (std::size_t i = 0; i < h.size() && t < counts.size(); ++i) {
      mpfi_sqr(x, sn[i].backend().data());
      if (!scale.empty()) mpfi_mul(x, x, scale[i].backend().data());
      mpfi_add(acc, acc, x);
      for (; t < counts.size() && counts[t] == i + 1; ++t) mpfi_set(out[t][static_cast<size_t>(m)].backend().data(), acc);
    }
  }
  mpfi_clear(acc);
  mpfi_clear(x);
  return out;
}

}  // namespace

std::vector<Interval> fastest_pairs_weights(const Spectrum& spectrum, int K) {
  check_spread(spectrum, K);
  const std::vector<int> order = fastest_order(spectrum);
  std::vector<Interval> w(static_cast<size_t>(spectrum.pairs()), Interval(0));
  const Interval share = Interval(1) / K;
  for (int t = 0; t < K; ++t) w[static_cast<size_t>(order[static_cast<size_t>(t)])] = share;
  return w;
}

std::vector<Interval> alignment_gaps(const std::vector<Interval>& g, const std::vector<Interval>& weights, long long M) {
  if (g.size() != weights.size()) throw std::invalid_argument("alignment_gaps: one weight per frequency");
  if (M < 0 || M >= (1LL << 40)) throw std::invalid_argument("alignment_gaps: M outside [0, 2^40)");
  for (const Interval& w : weights)
    if (lower_of(w) < 0) throw std::invalid_argument("alignment_gaps: weights must be certainly >= 0");
  std::vector<Interval> h, scale;
  for (size_t k = 0; k < g.size(); ++k) {
    if (lower_of(weights[k]) == 0 && upper_of(weights[k]) == 0) continue;  // adds exactly 0
    if (lower_of(g[k]) == 0 && upper_of(g[k]) == 0) continue;              // sin(0) = 0 adds exactly 0
    h.push_back(Interval(g[k] / 2));
    scale.push_back(Interval(2 * weights[k]));
  }
  if (h.empty()) return std::vector<Interval>(static_cast<size_t>(M + 1), Interval(0));
  return half_angle_square_sums(h, scale, {h.size()}, M)[0];
}

std::vector<std::vector<Interval>> even_spread_gaps(const Spectrum& spectrum, const std::vector<int>& Ks, long long M) {
  if (M < 0 || M >= (1LL << 40)) throw std::invalid_argument("even_spread_gaps: M outside [0, 2^40)");
  for (size_t i = 0; i < Ks.size(); ++i) {
    check_spread(spectrum, Ks[i]);
    if (i > 0 && Ks[i] <= Ks[i - 1]) throw std::invalid_argument("even_spread_gaps: K must increase");
  }
  if (Ks.empty()) return {};
  const std::vector<int> order = fastest_order(spectrum);
  const std::vector<Interval> g = frequencies<Interval>(spectrum);
  // U_K[m] = sum over the K fastest pairs of sin^2(m g_k / 2), one sweep for every K; gaps_K = (2/K) U_K.
  std::vector<Interval> h;
  for (int t = 0; t < Ks.back(); ++t) h.push_back(Interval(g[static_cast<size_t>(order[static_cast<size_t>(t)])] / 2));
  const std::vector<std::size_t> counts(Ks.begin(), Ks.end());
  std::vector<std::vector<Interval>> out = half_angle_square_sums(h, {}, counts, M);
  for (size_t i = 0; i < Ks.size(); ++i) {
    const Interval factor = Interval(2) / Ks[i];
    for (Interval& x : out[i]) x = Interval(x * factor);
  }
  return out;
}

namespace {

// Row i's off-target offsets m with their multiplicities (see the header): diagonal m = 1..i-1;
// previous-token m = 1 (the key one position after the target) and m = 1..i-2.
struct Offsets {
  std::vector<long long> m;
  std::vector<long long> count;
  long long total = 0;
};

Offsets row_offsets(PositionalHead head, long long i) {
  Offsets o;
  const long long last = head == PositionalHead::diagonal ? i - 1 : std::max(1LL, i - 2);
  for (long long m = 1; m <= last; ++m) {
    long long c = 1;
    if (head == PositionalHead::previous_token && m == 1 && i >= 3) c = 2;
    o.m.push_back(m);
    o.count.push_back(c);
    o.total += c;
  }
  return o;
}

void check_row(const std::vector<Interval>& gaps, PositionalHead head, long long i) {
  const long long first = head == PositionalHead::diagonal ? 1 : 2;
  if (i < first) throw std::invalid_argument("row i = " + std::to_string(i) + " below " + std::to_string(first) + " for the " + head_name(head) + " head");
  if (static_cast<long long>(gaps.size()) < i) throw std::invalid_argument("gap table shorter than row i = " + std::to_string(i));
}

}  // namespace

Interval off_target_mass(const std::vector<Interval>& gaps, PositionalHead head, long long i, const Interval& s) {
  check_row(gaps, head, i);
  const Offsets o = row_offsets(head, i);
  Interval sum(0);
  for (size_t t = 0; t < o.m.size(); ++t) sum += Interval(o.count[t]) * Interval(exp(Interval(-(s * gaps[o.m[t]]))));
  return sum;
}

Interval target_attention(const std::vector<Interval>& gaps, PositionalHead head, long long i, const Interval& s) {
  return Interval(1) / Interval(1 + off_target_mass(gaps, head, i, s));
}

namespace {

enum class Side { holds, fails, undecided };

// T_N(s) for the bracket search, in raw MPFI (it sums up to 131072 exponentials per evaluation).
// Terms whose exponent s (1 - c(m)) is certainly >= X are not exponentiated: each is <= e^-X, so
// together they add [0, count e^-X]. The cutoff only has to keep that tail below what separates T_N
// from t at the bracket ends: at s = s* (1 + tol/3) every term has dropped by at least the factor
// e^(-d_min s* tol/3), and s* d_min >= ln(1/t) (T_N >= e^(-s d_min)), so t - T_N >= t r with
// r ~ tol ln(1/t) / 3 (the same at s* (1 - tol/3)). X = ln(total / (t r)) + 7 keeps the tail below
// e^-7 t r. The decisions are rigorous whatever X is; X only decides how often they can be made.
// Each exponential is taken at max(64, bits/4) bits: a term needs relative accuracy ~ e^-7 r ~ 1e-10
// and 64 bits give 5e-20 (the retry ladder still raises it with the working precision); and with
// one MPFR exp instead of MPFI's two (see exp_neg). Together 4x cheaper than mpfi_exp at 256 bits.
class MassEvaluator {
 public:
  MassEvaluator(const std::vector<Interval>& gaps, const Offsets& o, const Interval& t, double tol)
      : gaps_(gaps), o_(o), t_(t) {
    const mpfr_prec_t prec = mpfi_get_prec(t.backend().data());
    const mpfr_prec_t exp_prec = std::max<mpfr_prec_t>(64, prec / 4);
    const double td = to_double(upper_of(t));
    const double r = tol * std::log(1 / td) / 3;
    cutoff_ = Real(std::log(static_cast<double>(o.total) / (td * r)) + 7.0);
    tail_bound_ = Interval(exp(Interval(-Interval(cutoff_))));
    mpfi_init2(x_, prec);
    mpfi_init2(term_, exp_prec);
    mpfi_init2(sum_, prec);
    mpfi_init2(s_, prec);
    mpfr_init2(neg_a_, prec);
    mpfr_init2(width_, prec);
    mpfr_init2(up_, exp_prec);
    mpfr_init2(lo_, exp_prec);
  }
  ~MassEvaluator() {
    for (mpfi_ptr v : {x_, term_, sum_, s_}) mpfi_clear(v);
    for (mpfr_ptr v : {neg_a_, width_, up_, lo_}) mpfr_clear(v);
  }
  MassEvaluator(const MassEvaluator&) = delete;
  MassEvaluator& operator=(const MassEvaluator&) = delete;

  Interval mass(const Real& s) {
    ++evaluations;
    mpfi_set_fr(s_, s.backend().data());
    mpfi_set_ui(sum_, 0);
    long long pruned = 0;
    for (size_t p = 0; p < o_.m.size(); ++p) {
      mpfi_mul(x_, s_, gaps_[o_.m[p]].backend().data());
      if (mpfr_cmp(&x_->left, cutoff_.backend().data()) >= 0) {
        pruned += o_.count[p];
        continue;
      }
      exp_neg(term_, x_);
      if (o_.count[p] != 1) mpfi_mul_si(term_, term_, o_.count[p]);
      mpfi_add(sum_, sum_, term_);
    }
    Interval out;
    mpfi_set(out.backend().data(), sum_);
    if (pruned > 0) out += hull_of(Interval(0), Interval(Interval(pruned) * tail_bound_));
    return out;
  }

  // alpha_{N,target} > 1 - eps  <=>  T_N < t = eps / (1 - eps).
  Side decide(const Interval& mass) const {
    if (upper_of(mass) < lower_of(t_)) return Side::holds;
    if (lower_of(mass) >= upper_of(t_)) return Side::fails;
    return Side::undecided;
  }

  int evaluations = 0;

 private:
  // out = an enclosure of e^-x for x = [a, b] at out's precision, from one exponential: the upper
  // end e^-a rounded up is a bound by MPFR's directed rounding; it is the smallest float >= e^-a, so
  // its predecessor is <= e^-a, and e^-b = e^-a e^-(b-a) >= pred(up) (1 - (b - a)) as e^-w >= 1 - w,
  // with b - a rounded up and the product rounded down. MPFI's exp for wide x (w >= 1).
  void exp_neg(mpfi_ptr out, mpfi_ptr x) {
    mpfr_sub(width_, &x->right, &x->left, MPFR_RNDU);
    mpfr_ui_sub(width_, 1, width_, MPFR_RNDD);
    if (mpfr_sgn(width_) <= 0) {
      mpfi_neg(x, x);
      mpfi_exp(out, x);
      return;
    }
    mpfr_neg(neg_a_, &x->left, MPFR_RNDN);  // exact: same precision
    mpfr_exp(up_, neg_a_, MPFR_RNDU);
    mpfr_set(lo_, up_, MPFR_RNDN);
    mpfr_nextbelow(lo_);
    mpfr_mul(lo_, lo_, width_, MPFR_RNDD);
    mpfi_interv_fr(out, lo_, up_);
  }

  const std::vector<Interval>& gaps_;
  const Offsets& o_;
  Interval t_;
  Real cutoff_;
  Interval tail_bound_;
  mpfi_t x_, term_, sum_, s_;
  mpfr_t neg_a_, width_, up_, lo_;
};

// A binary64 guess of s*: the root of f(s) = ln T(s) - ln t on the gaps' midpoints. ln T is convex
// (a log-sum-exp of linear functions) and decreasing, so Newton's method started left of the root, at
// ln(1/t) / d_min where T >= e^(-s d_min) >= t, climbs monotonically to it: a few sweeps instead of
// ~50 for bisection. Only a guess: every reported number is certified afterwards, and a wrong guess
// only costs more certified evaluations.
double guess_minimal_norm(const std::vector<Interval>& gaps, const Offsets& o, double t) {
  std::vector<double> d(o.m.size());
  double dmin = std::numeric_limits<double>::infinity();
  for (size_t p = 0; p < o.m.size(); ++p) {
    d[p] = to_double(midpoint(gaps[o.m[p]]));
    dmin = std::min(dmin, d[p]);
  }
  // Factor out e^(-s dmin) so that nothing underflows even when s dmin is large.
  double s = std::log(1 / t) / dmin;
  for (int it = 0; it < 100; ++it) {
    double T = 0, dT = 0;  // T(s) e^(s dmin) and -T'(s) e^(s dmin)
    for (size_t p = 0; p < d.size(); ++p) {
      const double x = s * (d[p] - dmin);
      if (x > 745) continue;  // e^-745 underflows binary64
      const double e = static_cast<double>(o.count[p]) * std::exp(-x);
      T += e;
      dT += d[p] * e;
    }
    const double f = std::log(T) - s * dmin - std::log(t);
    const double step = f / (dT / T);
    s += step;
    if (!(std::abs(step) > 1e-14 * s)) break;
  }
  return s;
}

}  // namespace

NormBracket minimal_norm(const std::vector<Interval>& gaps, PositionalHead head, long long N, const Interval& epsilon,
                         double relative_tolerance) {
  if (N < 2) throw std::invalid_argument("minimal_norm: N must be >= 2");
  if (static_cast<long long>(gaps.size()) < N) throw std::invalid_argument("minimal_norm: gap table shorter than N");
  // eps < 1/2 keeps t = eps / (1 - eps) < 1, so s = 0 fails (T_N(0) = total >= 1 > t) and s* > 0:
  // at eps = 1/2 and N = 2 every s > 0 works and no relative bracket of s* = 0 exists.
  if (!(lower_of(epsilon) > 0) || !(upper_of(epsilon) < Real(0.5)))
    throw std::invalid_argument("minimal_norm: epsilon must be certainly in (0, 1/2)");
  if (!(relative_tolerance > 0)) throw std::invalid_argument("minimal_norm: relative tolerance must be > 0");

  NormBracket r;
  const Offsets o = row_offsets(head, N);
  r.min_gap_lower = std::numeric_limits<double>::infinity();
  r.min_gap_upper = std::numeric_limits<double>::infinity();
  for (long long m : o.m) {
    const Real lo = lower_of(gaps[m]), hi = upper_of(gaps[m]);
    if (lo < r.min_gap_lower) {
      r.min_gap_lower = lo;
      r.min_gap_offset = m;
    }
    if (hi < r.min_gap_upper) r.min_gap_upper = hi;
  }
  if (!(r.min_gap_lower > 0)) {
    // That term of T_N is then possibly e^0 = 1 >= t for every s: no s can be certified.
    r.note = "1 - c(m) is not certainly > 0 at offset m = " + std::to_string(r.min_gap_offset) +
             " (a return of m g to 2 pi Z, or too little precision): no finite norm can be certified";
    return r;
  }

  const Interval t = epsilon / (1 - epsilon);
  MassEvaluator ev(gaps, o, t, relative_tolerance);
  const Real tol(relative_tolerance);
  const Real guess(guess_minimal_norm(gaps, o, to_double(t)));
  Real lo = guess * (1 - tol / 3), hi = guess * (1 + tol / 3);
  Interval mass_lo = ev.mass(lo), mass_hi = ev.mass(hi);
  Side side_lo = ev.decide(mass_lo), side_hi = ev.decide(mass_hi);
  auto give_up = [&](const std::string& why) {
    r.evaluations = ev.evaluations;
    r.note = why;
    return r;
  };
  // A guess off by more than tol/3: widen geometrically (s = 0 always fails: T_N(0) = total >= 1 > t).
  Real step = tol;
  for (int it = 0; side_lo == Side::holds; ++it) {
    if (it > 200) return give_up("no failing norm found below the guess");
    hi = lo;
    mass_hi = mass_lo;
    side_hi = Side::holds;
    lo = step >= 1 ? Real(0) : Real(lo * (1 - step));
    step *= 2;
    mass_lo = ev.mass(lo);
    side_lo = ev.decide(mass_lo);
  }
  step = tol;
  for (int it = 0; side_hi == Side::fails; ++it) {
    if (it > 2000) return give_up("no working norm found above the guess");
    lo = hi;
    mass_lo = mass_hi;
    side_lo = Side::fails;
    hi = hi > 0 ? Real(hi * (1 + step)) : Real(1);
    step = step >= 1 ? step : Real(step * 2);
    mass_hi = ev.mass(hi);
    side_hi = ev.decide(mass_hi);
  }
  if (side_lo == Side::undecided || side_hi == Side::undecided)
    return give_up("T_N could not be separated from eps / (1 - eps) at this precision");
  while (hi > lo * (1 + tol)) {
    const Real mid = (lo + hi) / 2;
    const Interval mass_mid = ev.mass(mid);
    const Side side = ev.decide(mass_mid);
    if (side == Side::undecided) return give_up("T_N could not be separated from eps / (1 - eps) at this precision");
    if (side == Side::holds) {
      hi = mid;
      mass_hi = mass_mid;
    } else {
      lo = mid;
      mass_lo = mass_mid;
    }
  }
  r.certified = true;
  r.s_lo = lo;
  r.s_hi = hi;
  r.attention_at_lo = Interval(1) / Interval(1 + mass_lo);
  r.attention_at_hi = Interval(1) / Interval(1 + mass_hi);
  r.evaluations = ev.evaluations;
  return r;
}

NormBracket minimal_norm(const Spectrum& spectrum, const std::vector<Interval>& weights, PositionalHead head, long long N,
                         const Interval& epsilon, double relative_tolerance) {
  return minimal_norm(alignment_gaps(frequencies<Interval>(spectrum), weights, N), head, N, epsilon, relative_tolerance);
}

}  // namespace ropecheck::proofs

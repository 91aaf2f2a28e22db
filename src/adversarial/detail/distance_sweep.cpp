#include "adversarial/detail/distance_sweep.h"

#include <algorithm>
#include <cmath>

#include "numeric/precision.h"
#include "numeric/scalar.h"
#include "spectrum/frequencies.h"

namespace ropecheck::adversarial::detail {

DistanceSweep::DistanceSweep(const Head& head, const std::vector<TypeId>& types, unsigned bits)
    : bits_(bits), t1_(bits), t2_(bits), unit_(bits) {
  mpfi_interv_si(unit_.v, -1, 1);
  const std::vector<int> active = active_chunks(head);
  std::vector<Interval> g;
  {
    // The exact real frequencies, enclosed 64 bits beyond the working precision.
    ScopedPrecision precision(bits + 64);
    g = frequencies<Interval>(head.spectrum);
  }
  for (int p : active) {
    Chunk ch;
    auto make = [&] { return std::make_unique<Mpfi>(bits); };
    ch.g = make(), ch.C = make(), ch.S = make(), ch.c = make(), ch.s = make();
    mpfi_set(ch.g->v, g[static_cast<size_t>(p)].backend().data());
    mpfi_cos(ch.C->v, ch.g->v);
    mpfi_sin(ch.S->v, ch.g->v);
    const double g_hi = mpfr_get_d(&ch.g->v->right, MPFR_RNDU);
    ch.block = g_hi <= 0 ? 4096 : static_cast<long long>(std::clamp(std::floor(0.25 / g_hi), 1.0, 4096.0));
    chunks_.push_back(std::move(ch));
  }
  for (TypeId t : types) {
    const std::vector<double>& k = head.key(t);
    for (int p : active) {
      auto u = std::make_unique<Mpfi>(bits), w = std::make_unique<Mpfi>(bits);
      const double q1 = head.query[2 * p], q2 = head.query[2 * p + 1], k1 = k[2 * p], k2 = k[2 * p + 1];
      // u = q1 k1 + q2 k2, w = q2 k1 - q1 k2: products of binary64 values are exact at >= 106 bits.
      mpfi_set_d(u->v, q1);
      mpfi_mul_d(u->v, u->v, k1);
      mpfi_set_d(t1_.v, q2);
      mpfi_mul_d(t1_.v, t1_.v, k2);
      mpfi_add(u->v, u->v, t1_.v);
      mpfi_set_d(w->v, q2);
      mpfi_mul_d(w->v, w->v, k1);
      mpfi_set_d(t1_.v, q1);
      mpfi_mul_d(t1_.v, t1_.v, k2);
      mpfi_sub(w->v, w->v, t1_.v);
      u_.push_back(std::move(u));
      w_.push_back(std::move(w));
    }
    a_.push_back(std::make_unique<Mpfi>(bits));
    e_.push_back(std::make_unique<Mpfi>(bits));
  }
  a_valid_.assign(types.size(), 0);
  e_valid_.assign(types.size(), 0);
  for (auto& ch : chunks_) direct(ch, 0);
}

void DistanceSweep::direct(Chunk& ch, long long s) {
  // s as a long (64 bits here): exact for every distance, also beyond 2^53.
  static_assert(sizeof(long) >= sizeof(long long));
  mpfi_mul_si(t1_.v, ch.g->v, static_cast<long>(s));
  mpfi_cos(ch.c->v, t1_.v);
  mpfi_sin(ch.s->v, t1_.v);
  ch.last_direct = s;
}

void DistanceSweep::step(Chunk& ch) {
  mpfi_mul(t1_.v, ch.c->v, ch.C->v);
  mpfi_mul(t2_.v, ch.s->v, ch.S->v);
  mpfi_mul(ch.s->v, ch.s->v, ch.C->v);
  mpfi_sub(t1_.v, t1_.v, t2_.v);
  mpfi_mul(t2_.v, ch.c->v, ch.S->v);
  mpfi_add(ch.s->v, ch.s->v, t2_.v);
  mpfi_swap(ch.c->v, t1_.v);
  mpfi_intersect(ch.c->v, ch.c->v, unit_.v);
  mpfi_intersect(ch.s->v, ch.s->v, unit_.v);
}

void DistanceSweep::advance_to(long long s) {
  if (s == s_) return;
  for (auto& ch : chunks_) {
    if (s - s_ == 1 && s - ch.last_direct < ch.block) step(ch);
    else direct(ch, s);
  }
  s_ = s;
  std::fill(a_valid_.begin(), a_valid_.end(), 0);
  std::fill(e_valid_.begin(), e_valid_.end(), 0);
}

mpfi_srcptr DistanceSweep::activation(size_t i) {
  if (!a_valid_[i]) {
    mpfi_ptr a = a_[i]->v;
    mpfi_set_si(a, 0);
    const size_t n = chunks_.size();
    for (size_t p = 0; p < n; ++p) {
      mpfi_mul(t1_.v, chunks_[p].c->v, u_[i * n + p]->v);
      mpfi_mul(t2_.v, chunks_[p].s->v, w_[i * n + p]->v);
      mpfi_sub(t1_.v, t1_.v, t2_.v);  // a(s) = cos(s g) u - sin(s g) w: the key is s tokens BEFORE the query
      mpfi_add(a, a, t1_.v);
    }
    a_valid_[i] = 1;
  }
  return a_[i]->v;
}

mpfi_srcptr DistanceSweep::exp_activation(size_t i) {
  if (!e_valid_[i]) {
    mpfi_exp(e_[i]->v, activation(i));
    e_valid_[i] = 1;
  }
  return e_[i]->v;
}

}  // namespace ropecheck::adversarial::detail

#include "adversarial/detail/bounded_attention.h"

#include <algorithm>
#include <limits>

#include "adversarial/detail/float_activations.h"
#include "numeric/exact_sum.h"
#include "numeric/mp_handles.h"
#include "numeric/precision.h"

namespace ropecheck::adversarial::detail {
namespace {

// x (1 + [-r, r]) in MPFI at the precision of `out` (outward rounded: exact x, interval factor).
void scaled(mpfi_ptr out, mpfi_srcptr x, double r) {
  Mpfi f(mpfi_get_prec(out));
  mpfi_interv_d(f.v, -r, r);
  mpfi_add_ui(f.v, f.v, 1);
  mpfi_mul(out, x, f.v);
}

// Adds [0, count * kDroppedBound] to x: the exact values of `count` dropped terms.
void dropped_slack(mpfi_ptr x, long long count) {
  if (count == 0) return;
  Mpfi d(mpfi_get_prec(x));
  mpfi_set_d(d.v, FloatActivations::kDroppedBound);
  mpfi_mul_si(d.v, d.v, static_cast<long>(count));
  mpfi_put_si(d.v, 0);  // the hull with 0
  mpfi_add(x, x, d.v);
}

Interval to_interval(mpfi_srcptr x, unsigned bits) {
  ScopedPrecision precision(bits);
  Interval r;
  mpfi_set(r.backend().data(), x);
  return r;
}

}  // namespace

std::optional<std::vector<AttentionEnclosure>> bounded_attention(const Head& head, const std::vector<Sequence>& seqs, unsigned bits) {
  std::vector<TypeId> types = {kTarget};
  for (size_t i = 0; i < head.distractors.size(); ++i) types.push_back(distractor(static_cast<int>(i)));
  if (head.bos) types.push_back(kBos);
  FloatActivations act(head, types);
  act.choose_shift(std::min(seqs.front().context(), 4095LL) + 1);
  if (!act.exp_applicable()) return std::nullopt;
  auto index_of = [&](TypeId t) { return static_cast<size_t>(std::find(types.begin(), types.end(), t) - types.begin()); };
  const long long L = seqs.front().context();
  const size_t n = seqs.size(), nt = types.size();
  std::vector<std::vector<ExactSum>> sum(n, std::vector<ExactSum>(nt));
  std::vector<std::vector<long long>> dropped(n, std::vector<long long>(nt, 0));
  std::vector<double> a_target(n), other_max(n, -std::numeric_limits<double>::infinity());
  std::vector<FloatActivations::ShiftedExp> e_target(n);
  std::vector<long long> target_pos(n);
  for (size_t i = 0; i < n; ++i) target_pos[i] = seqs[i].target_position();
  std::vector<double> a(nt);
  std::vector<FloatActivations::ShiftedExp> e(nt);
  std::vector<char> have(nt);
  for (long long s = 0; s <= L; ++s) {
    act.at(s);
    const long long pos = L - s;
    std::fill(have.begin(), have.end(), 0);
    for (size_t i = 0; i < n; ++i) {
      const size_t ti = index_of(seqs[i].at(pos));
      if (!have[ti]) a[ti] = act.activation(ti), e[ti] = act.shifted_exp(ti), have[ti] = 1;
      sum[i][ti].add(e[ti].value);
      if (e[ti].dropped) ++dropped[i][ti];
      if (pos == target_pos[i]) a_target[i] = a[ti], e_target[i] = e[ti];
      else other_max[i] = std::max(other_max[i], a[ti]);
    }
  }
  double e_all = 0;
  for (size_t t = 0; t < nt; ++t) e_all = std::max(e_all, act.error_bound(t));
  std::vector<AttentionEnclosure> out(n);
  for (size_t i = 0; i < n; ++i) {
    AttentionEnclosure& r = out[i];
    r.target_position = target_pos[i];
    Mpfi at(bits), other(bits), s(bits), term(bits), et(bits), alpha(bits), pm(bits);
    mpfi_interv_d(pm.v, -act.error_bound(0), act.error_bound(0));
    mpfi_add_d(at.v, pm.v, a_target[i]);
    mpfi_interv_d(pm.v, -e_all, e_all);
    mpfi_add_d(other.v, pm.v, other_max[i]);
    mpfi_set_si(s.v, 0);
    for (size_t t = 0; t < nt; ++t) {
      const long need = std::max<long>(sum[i][t].bits_needed(), 64);
      Mpfr exact(need);
      sum[i][t].to_mpfr(exact.v);  // exact at this precision
      Mpfi x(need);
      mpfi_set_fr(x.v, exact.v);
      scaled(term.v, x.v, act.exp_relative_error(t));
      mpfi_add(s.v, s.v, term.v);
      dropped_slack(s.v, dropped[i][t]);
    }
    if (e_target[i].dropped) {
      mpfi_set_si(et.v, 0);
      dropped_slack(et.v, 1);
    } else {
      mpfi_set_d(et.v, e_target[i].value);
      scaled(et.v, et.v, act.exp_relative_error(0));
    }
    mpfi_div(alpha.v, et.v, s.v);
    // alpha = E_t / (E_t + the other terms) lies in (0, 1]: the enclosure may keep only that part.
    Mpfi unit(bits);
    mpfi_interv_si(unit.v, 0, 1);
    mpfi_intersect(alpha.v, alpha.v, unit.v);
    r.a_target = to_interval(at.v, bits);
    r.a_other_max = to_interval(other.v, bits);
    r.alpha = to_interval(alpha.v, bits);
  }
  return out;
}

}  // namespace ropecheck::adversarial::detail

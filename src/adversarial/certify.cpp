#include "adversarial/certify.h"

#include <algorithm>
#include <set>

#include "adversarial/bounded_scan.h"
#include "adversarial/detail/bounded_attention.h"
#include "adversarial/detail/distance_sweep.h"
#include "adversarial/detail/thresholds.h"
#include "io/printf_string.h"
#include "numeric/decimal.h"
#include "numeric/mp_handles.h"
#include "numeric/precision.h"

namespace ropecheck::adversarial {
namespace {

using detail::DistanceSweep;
using detail::thresholds;
using detail::Thresholds;

Interval to_interval(mpfi_srcptr x, unsigned bits) {
  ScopedPrecision precision(bits);
  Interval r;
  mpfi_set(r.backend().data(), x);
  return r;
}

// Decides works and breaks from the enclosures (the same for the MPFI and the binary64 route).
void judge(const Head& head, const Thresholds& th, unsigned bits, AttentionEnclosure& r) {
  ScopedPrecision precision(bits);
  if (head.notion == Notion::attention) {
    r.works = decide_less(th.one_minus_eps, r.alpha);
    // breaks: alpha <= break_at.
    const Decision above = decide_less(th.break_at, r.alpha);
    r.breaks = above == Decision::yes ? Decision::no : above == Decision::no ? Decision::yes : Decision::undecided;
  } else {
    r.works = decide_less(r.a_other_max, r.a_target);
    // breaks: some other activation > the target's. max_lo > upper(a_t): some other certainly
    // above; max_hi <= lower(a_t): every other certainly at or below.
    r.breaks = lower_of(r.a_other_max) > upper_of(r.a_target)   ? Decision::yes
               : upper_of(r.a_other_max) <= lower_of(r.a_target) ? Decision::no
                                                                 : Decision::undecided;
  }
}

// Evaluates several sequences of the same length in one sweep over distances.
std::vector<AttentionEnclosure> evaluate(const Head& head, const std::vector<Sequence>& seqs, unsigned bits) {
  std::vector<TypeId> types = {kTarget};
  for (size_t i = 0; i < head.distractors.size(); ++i) types.push_back(distractor(static_cast<int>(i)));
  if (head.bos) types.push_back(kBos);
  auto index_of = [&](TypeId t) { return static_cast<size_t>(std::find(types.begin(), types.end(), t) - types.begin()); };
  const long long L = seqs.front().context();
  DistanceSweep sweep(head, types, bits);
  const size_t n = seqs.size();
  std::vector<std::unique_ptr<Mpfi>> sum, at;
  std::vector<std::unique_ptr<Mpfr>> max_lo, max_hi;
  std::vector<long long> target_pos(n);
  std::vector<char> any_other(n, 0);
  for (size_t i = 0; i < n; ++i) {
    sum.push_back(std::make_unique<Mpfi>(bits));
    at.push_back(std::make_unique<Mpfi>(bits));
    mpfi_set_si(sum[i]->v, 0);
    target_pos[i] = seqs[i].target_position();
  }
  for (size_t i = 0; i < n; ++i) {
    max_lo.push_back(std::make_unique<Mpfr>(bits));
    max_hi.push_back(std::make_unique<Mpfr>(bits));
  }
  for (long long s = 0; s <= L; ++s) {
    sweep.advance_to(s);
    const long long pos = L - s;
    for (size_t i = 0; i < n; ++i) {
      const size_t ti = index_of(seqs[i].at(pos));
      mpfi_add(sum[i]->v, sum[i]->v, sweep.exp_activation(ti));
      mpfi_srcptr a = sweep.activation(ti);
      if (pos == target_pos[i]) {
        mpfi_set(at[i]->v, a);
      } else if (!any_other[i]) {
        mpfi_get_left(max_lo[i]->v, a);
        mpfi_get_right(max_hi[i]->v, a);
        any_other[i] = 1;
      } else {
        // The hull of the maxima: the largest lower and the largest upper endpoint.
        if (mpfr_cmp(&a->left, max_lo[i]->v) > 0) mpfr_set(max_lo[i]->v, &a->left, MPFR_RNDD);
        if (mpfr_cmp(&a->right, max_hi[i]->v) > 0) mpfr_set(max_hi[i]->v, &a->right, MPFR_RNDU);
      }
    }
  }
  const Thresholds th = thresholds(head, bits);
  std::vector<AttentionEnclosure> out(n);
  for (size_t i = 0; i < n; ++i) {
    AttentionEnclosure& r = out[i];
    r.target_position = target_pos[i];
    Mpfi e(bits), alpha(bits), other(bits);
    mpfi_exp(e.v, at[i]->v);
    mpfi_div(alpha.v, e.v, sum[i]->v);
    mpfi_interv_fr(other.v, max_lo[i]->v, max_hi[i]->v);
    r.a_target = to_interval(at[i]->v, bits);
    r.a_other_max = to_interval(other.v, bits);
    r.alpha = to_interval(alpha.v, bits);
    judge(head, th, bits, r);
  }
  return out;
}

}  // namespace

AttentionEnclosure certified_attention(const Head& head, const Sequence& sequence, unsigned bits) {
  return evaluate(head, {sequence}, bits).front();
}

AttackCheck check_attack(const Head& head, const Sequence& before, const std::vector<Swap>& swaps) {
  const Sequence after = apply_swaps(before, swaps);
  AttackCheck check;
  auto verdict_of = [](const AttentionEnclosure& b, const AttentionEnclosure& a) {
    const Verdict v = combine({b.works, a.breaks}, Verdict::holds, Verdict::fails);
    return v == Verdict::holds ? ReplayVerdict::still_breaks : v == Verdict::fails ? ReplayVerdict::no_longer_breaks : ReplayVerdict::inconclusive;
  };
  // First the binary64 route with its proved error budget (one pass, ~50x faster than MPFI); MPFI
  // when the head is outside that budget or the budget leaves the verdict open.
  if (auto r = detail::bounded_attention(head, {before, after}, kCertifyBits)) {
    const Thresholds th = thresholds(head, kCertifyBits);
    for (AttentionEnclosure& e : *r) judge(head, th, kCertifyBits, e);
    check.before = (*r)[0];
    check.after = (*r)[1];
    check.bits = 53;
    check.method = "binary64 with proved error bounds";
    check.verdict = verdict_of(check.before, check.after);
  }
  for (unsigned bits = kCertifyBits; bits <= 1024 && check.verdict == ReplayVerdict::inconclusive; bits *= 2) {
    const std::vector<AttentionEnclosure> r = evaluate(head, {before, after}, bits);
    check.before = r[0];
    check.after = r[1];
    check.bits = bits;
    check.method = "MPFI at " + std::to_string(bits) + " bits";
    check.verdict = verdict_of(check.before, check.after);
  }
  if (head.notion == Notion::attention) {
    check.detail = "context " + std::to_string(before.context()) + ": alpha before " + decimal_interval_text(check.before.alpha, 8) + " (works: " +
                   decision_name(check.before.works) + ", > 1 - " + head.epsilon + "), after " + decimal_interval_text(check.after.alpha, 8) +
                   " (breaks: " + decision_name(check.after.breaks) + ", <= " + head.break_at + "), " + check.method;
  } else {
    check.detail = "context " + std::to_string(before.context()) + ": a_target before " + decimal_interval_text(check.before.a_target, 8) + " vs others " +
                   decimal_interval_text(check.before.a_other_max, 8) + " (works: " + decision_name(check.before.works) + "), after " +
                   decimal_interval_text(check.after.a_target, 8) + " vs " + decimal_interval_text(check.after.a_other_max, 8) + " (breaks: " +
                   decision_name(check.after.breaks) + "), " + check.method;
  }
  return check;
}

namespace {

// The cases neither pass decides: a context below 2 (nothing shorter) and heads outside the fill family.
bool trivial_minimality(const Head& head, long long context, MinimalityCheck& m) {
  if (head.notion == Notion::attention && head.distractors.size() == 1 && context >= 2) return false;
  m.undecided_at = context < 2 ? 0 : 1;
  m.none_shorter = context < 2 ? Decision::yes : Decision::undecided;
  return true;
}

}  // namespace

BoundedScan bounded_scan_with_mpfi_prefix(const Head& head, long long max_context) {
  BoundedScan fast = bounded_scan(head, max_context);
  if (fast.outcome != BoundedScan::Outcome::undecided || fast.context > kMpfiPrefixContexts || max_context <= kMpfiPrefixContexts) return fast;
  // Undecided among the shortest contexts: certify [1, kMpfiPrefixContexts] in MPFI, then resume.
  const MinimalityCheck prefix = certify_no_shorter_break_mpfi(head, kMpfiPrefixContexts + 1);
  if (prefix.none_shorter != Decision::yes) return fast;  // a break (or undecided) there: the MPFI route handles it
  const long long evaluated = fast.distances_evaluated;
  fast = bounded_scan(head, max_context, kMpfiPrefixContexts + 1);
  fast.distances_evaluated += evaluated;
  return fast;
}

MinimalityCheck certify_no_shorter_break(const Head& head, long long context, unsigned bits) {
  MinimalityCheck m;
  if (trivial_minimality(head, context, m)) return m;
  // First the binary64 pass with its proved error budget (bounded_scan.h); MPFI when it cannot
  // decide some context or the head is outside its budget.
  const BoundedScan fast = bounded_scan_with_mpfi_prefix(head, context - 1);
  if (fast.outcome == BoundedScan::Outcome::none || fast.outcome == BoundedScan::Outcome::found) {
    m.none_shorter = fast.outcome == BoundedScan::Outcome::none ? Decision::yes : Decision::no;
    if (fast.outcome == BoundedScan::Outcome::found) m.first_break = fast.context;
    m.method = "binary64 with proved error bounds";
    return m;
  }
  return certify_no_shorter_break_mpfi(head, context, bits);
}

MinimalityCheck certify_no_shorter_break_mpfi(const Head& head, long long context, unsigned bits) {
  MinimalityCheck m;
  if (trivial_minimality(head, context, m)) return m;
  m.method = "MPFI at " + std::to_string(bits) + " bits";
  const Thresholds th = thresholds(head, bits);
  // break_at = 0: alpha > 0 always, nothing ever breaks.
  const bool can_break = lower_of(th.break_at) > 0;
  std::vector<TypeId> types = {kTarget, distractor(0)};
  if (head.bos) types.push_back(kBos);
  DistanceSweep sweep(head, types, bits);
  const bool bos = head.bos.has_value();
  Mpfi prefix(bits), S(bits), w(bits), c(bits), wr(bits), br(bits);
  mpfi_set(wr.v, th.works_ratio.backend().data());
  if (can_break) mpfi_set(br.v, th.breaks_ratio.backend().data());
  Mpfr w_lo(bits), w_hi(bits), c_lo(bits), c_hi(bits);
  bool have_candidates = false;
  mpfi_set_si(prefix.v, 0);
  // Running extrema over the target candidates s: w(s) = E_t eps/(1-eps) + E_o (works iff some
  // w(s) > S_L) and c(s) = E_t (1-b)/b + E_o (breaks iff some c(s) <= S_L); scan.h derives both.
  auto add_candidate = [&]() {
    mpfi_srcptr et = sweep.exp_activation(0);
    mpfi_srcptr eo = sweep.exp_activation(1);
    mpfi_mul(w.v, et, wr.v);
    mpfi_add(w.v, w.v, eo);
    if (!have_candidates || mpfr_cmp(&w.v->left, w_lo.v) > 0) mpfr_set(w_lo.v, &w.v->left, MPFR_RNDD);
    if (!have_candidates || mpfr_cmp(&w.v->right, w_hi.v) > 0) mpfr_set(w_hi.v, &w.v->right, MPFR_RNDU);
    if (can_break) {
      mpfi_mul(c.v, et, br.v);
      mpfi_add(c.v, c.v, eo);
      if (!have_candidates || mpfr_cmp(&c.v->left, c_lo.v) < 0) mpfr_set(c_lo.v, &c.v->left, MPFR_RNDD);
      if (!have_candidates || mpfr_cmp(&c.v->right, c_hi.v) < 0) mpfr_set(c_hi.v, &c.v->right, MPFR_RNDU);
    }
    have_candidates = true;
  };
  // Decides context L from S (= S_L) and the candidates so far; returns false to stop.
  auto decide = [&](long long L) {
    if (!have_candidates) return true;  // no target position: nothing to break
    const bool works_no = mpfr_cmp(w_hi.v, &S.v->left) <= 0;
    const bool works_yes = mpfr_cmp(w_lo.v, &S.v->right) > 0;
    const bool breaks_no = !can_break || mpfr_cmp(c_lo.v, &S.v->right) > 0;
    const bool breaks_yes = can_break && mpfr_cmp(c_hi.v, &S.v->left) <= 0;
    if (works_no || breaks_no) return true;
    if (works_yes && breaks_yes) {
      m.none_shorter = Decision::no;
      m.first_break = L;
    } else {
      m.none_shorter = Decision::undecided;
      m.undecided_at = L;
    }
    return false;
  };
  for (long long s = 0; s < context; ++s) {
    sweep.advance_to(s);
    if (bos) {
      // Context L = s: the bos at distance s, distractors at 0..s-1 (prefix), candidates 1..s-1.
      mpfi_add(S.v, prefix.v, sweep.exp_activation(2));
      if (s >= 1 && !decide(s)) return m;
      mpfi_add(prefix.v, prefix.v, sweep.exp_activation(1));
      if (s >= 1) add_candidate();
    } else {
      // Context L = s: distractors at 0..s, candidates 1..s.
      mpfi_add(prefix.v, prefix.v, sweep.exp_activation(1));
      if (s >= 1) add_candidate();
      mpfi_set(S.v, prefix.v);
      if (s >= 1 && !decide(s)) return m;
    }
  }
  m.none_shorter = Decision::yes;
  return m;
}

PositionFreeCertificate certify_position_free(const Head& head, long long probe, unsigned bits) {
  PositionFreeCertificate cert;
  std::vector<TypeId> types = {kTarget};
  for (size_t i = 0; i < head.distractors.size(); ++i) types.push_back(distractor(static_cast<int>(i)));
  if (head.bos) types.push_back(kBos);
  if (!position_free(head)) {
    cert.holds = Decision::no;
    cert.reason = "not position-free: some active chunk rotates";
    return cert;
  }
  std::vector<std::vector<Interval>> at(types.size());
  DistanceSweep sweep(head, types, bits);
  for (long long s : {0LL, 1LL, std::max(2LL, probe)}) {
    sweep.advance_to(s);
    for (size_t i = 0; i < types.size(); ++i) at[i].push_back(to_interval(sweep.activation(i), bits));
  }
  bool identical = true;
  for (auto& v : at)
    for (auto& x : v) identical = identical && lower_of(x) == lower_of(v[0]) && upper_of(x) == upper_of(v[0]);
  for (auto& v : at) cert.activation.push_back(v[0]);
  const Thresholds th = thresholds(head, bits);
  const bool disjoint = lower_of(th.one_minus_eps) > upper_of(th.break_at);
  cert.holds = identical && disjoint ? Decision::yes : Decision::undecided;
  std::string acts;
  for (size_t i = 0; i < types.size(); ++i) acts += (i ? ", " : "") + type_name(types[i]) + " " + decimal_interval_text(cert.activation[i], 8);
  cert.reason = std::string(identical ? "position-free (certified)" : "position-free by its spectrum, but the enclosures differ") +
                ": every active chunk has g = 0 exactly, so each type's activation is the same at every distance (" + acts +
                "); alpha depends only on the multiset of tokens, no permutation changes it, and 'works' (alpha > 1 - " + head.epsilon +
                ") and 'breaks' (alpha <= " + head.break_at + ") are disjoint";
  return cert;
}

}  // namespace ropecheck::adversarial

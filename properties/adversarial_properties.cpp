// Properties of the adversarial search's model (issue 6) over generated heads, sequences and swaps
// (adversarial_generators.h):
//   (1) every RoPE head with a single low-frequency channel is broken by one swap at the thm-6.1
//       (Lemma A.3) context bound, certified in MPFI, and the guided scan finds a certified
//       counterexample within that bound whenever an independent MPFI pass certifies that one exists;
//   (2) no p-RoPE head whose channel lives in the removed (g = 0) band is ever broken;
//   (3) a NoPE head's attention to a unique target never changes under any permutation;
//   (4) activation invariance a(i+s, j+s) = a(i, j): exactly (MPFI enclosures overlap) and through
//       the production kernel (f32, every path) within an error bound derived from its contract.
// Every failure prints every operand (binary64/binary32 values as %a, intervals as rigorous
// decimal bounds).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "adversarial/certify.h"
#include "adversarial/scan.h"
#include "adversarial_generators.h"
#include "attention/activation.h"
#include "io/printf_string.h"
#include "kernel/apply_rope.h"
#include "numeric/decimal.h"
#include "numeric/precision.h"
#include "spectrum/frequencies.h"
#include "tests/support/show.h"

namespace ropecheck {
namespace {

using adversarial::Head;
using adversarial::Sequence;
using adversarial::Swap;

// ---- printing every operand -------------------------------------------------------------------

std::string vec_text(const std::vector<double>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + hex_double(v[i]);
  return s + ")";
}

std::string head_text(const Head& h) {
  std::string s = "head{" + h.spectrum.describe() + "; notion " + adversarial::notion_name(h.notion) + ", epsilon " + h.epsilon +
                  ", break_at " + h.break_at + "; query " + vec_text(h.query) + "; target " + vec_text(h.target);
  for (size_t i = 0; i < h.distractors.size(); ++i) s += "; d" + std::to_string(i) + " " + vec_text(h.distractors[i]);
  if (h.bos) s += "; bos " + vec_text(*h.bos);
  return s + "}";
}

std::string sequence_text(const Sequence& q) {
  std::string s = "sequence{length " + std::to_string(q.length) + ", fill " + adversarial::type_name(q.fill) + ", tokens";
  for (const auto& [p, t] : q.tokens) s += " " + std::to_string(p) + ":" + adversarial::type_name(t);
  return s + "}";
}

std::string swaps_text(const std::vector<Swap>& sw) {
  std::string s = "swaps[" + std::to_string(sw.size()) + "]";
  for (const auto& [a, b] : sw) s += " (" + std::to_string(a) + "," + std::to_string(b) + ")";
  return s;
}

std::string enclosure_text(const adversarial::AttentionEnclosure& e) {
  return "{target at " + std::to_string(e.target_position) + ", a_target " + show(e.a_target) + ", a_other_max " + show(e.a_other_max) +
         ", alpha " + show(e.alpha) + ", works " + decision_name(e.works) + ", breaks " + decision_name(e.breaks) + "}";
}

Vector<Interval> to_interval_vector(const std::vector<double>& v) {
  Vector<Interval> out(static_cast<Eigen::Index>(v.size()));
  for (size_t i = 0; i < v.size(); ++i) out[static_cast<Eigen::Index>(i)] = Interval(v[i]);  // binary64: exact
  return out;
}

// ---- (1) single low-frequency channels -----------------------------------------------------------

// The largest thm-6.1 bound a generated channel may have, and the share (out of 100) of spectra
// taken from released models. gemma-7b's lowest pairs have bounds of ~1.2e5 (one case costs a few
// seconds); llama-3.1-8b's need ~1e7 and are rejected by this cap (they would take minutes each).
constexpr long long kMaxChannelBound = 130000;
constexpr int kModelWeight = 4;

// An independent certified evaluation of the fill family (sequence.h) of a one-distractor head at
// every context L' = 1..L, from the closed forms (no library softmax, no scan or sweep code). With
// E_x(s) = exp(a_x(s)) and R_s = sum of E_o over the distances 0..L' other than s (the query is a
// distractor at distance 0), alpha_L'(s) = E_t(s) / (E_t(s) + R_s), so
//   works at L'   iff some s in 1..L' has eps E_t(s) > (1 - eps) R_s,
//   breaks at L'  iff some s in 1..L' has (1 - b) E_t(s) <= b R_s.
// R_s = S_L' - E_o(s) must not be formed by a subtraction when E_o(s) dominates S_L' (activations
// reach +-1e6: no precision survives that cancellation). At most one distance, the argmax m of E_o,
// can hold more than half of S_L'; it is kept apart with R_m = the sum of every other term (a sum of
// positives). For every other s, R_s >= S_L' / 2 and the tests are evaluated without a subtraction
// as eps E_t(s) + (1 - eps) E_o(s) > (1 - eps) S_L' (and likewise for breaks), whose running extrema
// over s decide every context in one pass. Which distance is kept apart is chosen by midpoints: the
// choice affects only tightness, never correctness.
struct FillFamilyTruth {
  std::vector<char> works_yes, works_no, breaks_yes, breaks_no;  // indexed by L' (0 unused)
  long long first_certain = 0;  // the first L' certified to both work and break (0: none)
  bool all_decided = true;      // every L' has both questions decided
};

FillFamilyTruth fill_family_truth(const Head& head, long long L, unsigned bits) {
  ScopedPrecision precision(bits);
  const std::vector<Interval> g = frequencies<Interval>(head.spectrum);
  const std::vector<int> active = adversarial::active_chunks(head);
  const PairProducts<Interval> pt = pair_products(to_interval_vector(head.query), to_interval_vector(head.target));
  const PairProducts<Interval> po = pair_products(to_interval_vector(head.query), to_interval_vector(head.distractors[0]));
  const Interval eps = from_decimal<Interval>(head.epsilon), b = from_decimal<Interval>(head.break_at);
  const Interval one_minus_eps = Interval(1 - eps), one_minus_b = Interval(1 - b);
  // a_x(s) = sum over active chunks of cos(s g) u - sin(s g) w (relative distance -s).
  auto activations = [&](long long s, Interval& et, Interval& eo) {
    Interval at(0), ao(0), sn, cs;
    for (int c : active) {
      sin_cos(rotation_angle<Interval>(-s, g[static_cast<size_t>(c)]), sn, cs);
      at += Interval(cs * pt.u[static_cast<size_t>(c)] + sn * pt.w[static_cast<size_t>(c)]);
      ao += Interval(cs * po.u[static_cast<size_t>(c)] + sn * po.w[static_cast<size_t>(c)]);
    }
    et = exp(at);
    eo = exp(ao);
  };
  FillFamilyTruth t;
  const auto n = static_cast<size_t>(L + 1);
  t.works_yes.assign(n, 0), t.works_no.assign(n, 0), t.breaks_yes.assign(n, 0), t.breaks_no.assign(n, 0);
  Interval et_m, eo_m;  // the distance m kept apart
  activations(0, et_m, eo_m);
  long long m = 0;
  Interval rest(0);  // R_m: every E_o at distances 0..L' except m's
  bool have_regular = false;
  Real lw_lo_max, lw_hi_max, lb_lo_min, lb_hi_min;
  auto add_regular = [&](const Interval& et, const Interval& eo) {
    const Interval lw = Interval(eps * et + one_minus_eps * eo), lb = Interval(one_minus_b * et + b * eo);
    if (!have_regular) {
      lw_lo_max = lower_of(lw), lw_hi_max = upper_of(lw), lb_lo_min = lower_of(lb), lb_hi_min = upper_of(lb);
      have_regular = true;
    } else {
      lw_lo_max = std::max<Real>(lw_lo_max, lower_of(lw)), lw_hi_max = std::max<Real>(lw_hi_max, upper_of(lw));
      lb_lo_min = std::min<Real>(lb_lo_min, lower_of(lb)), lb_hi_min = std::min<Real>(lb_hi_min, upper_of(lb));
    }
  };
  Interval et, eo;
  for (long long l = 1; l <= L; ++l) {
    activations(l, et, eo);
    if (midpoint(eo) > midpoint(eo_m)) {  // a new argmax: the old one becomes a regular term
      if (m >= 1) add_regular(et_m, eo_m);
      rest += eo_m;
      m = l, et_m = et, eo_m = eo;
    } else {
      rest += eo;
      add_regular(et, eo);
    }
    const Interval S = Interval(rest + eo_m);
    const Interval ws = Interval(one_minus_eps * S), bs = Interval(b * S);
    const Interval wm = Interval(eps * et_m), wr = Interval(one_minus_eps * rest);
    const Interval bm = Interval(one_minus_b * et_m), br = Interval(b * rest);
    const bool m_candidate = m >= 1;
    const auto i = static_cast<size_t>(l);
    t.works_yes[i] = (have_regular && lw_lo_max > upper_of(ws)) || (m_candidate && lower_of(wm) > upper_of(wr));
    t.works_no[i] = (!have_regular || lw_hi_max <= lower_of(ws)) && (!m_candidate || upper_of(wm) <= lower_of(wr));
    t.breaks_yes[i] = (have_regular && lb_hi_min <= lower_of(bs)) || (m_candidate && upper_of(bm) <= lower_of(br));
    t.breaks_no[i] = (!have_regular || lb_lo_min > upper_of(bs)) && (!m_candidate || lower_of(bm) > upper_of(br));
    if (!(t.works_yes[i] || t.works_no[i]) || !(t.breaks_yes[i] || t.breaks_no[i])) t.all_decided = false;
    if (t.first_certain == 0 && t.works_yes[i] && t.breaks_yes[i]) t.first_certain = l;
  }
  return t;
}

RC_GTEST_PROP(AdversarialProperties, LowFrequencyChannelBreaksWithinTheLemmaA3Bound, ()) {
  const Head head = *gen::low_frequency_channel_heads(kMaxChannelBound, kModelWeight);
  const int chunk = adversarial::active_chunks(head).at(0);
  const long long L = gen::channel_context_bound(head.spectrum, chunk);
  RC_TAG(head.spectrum_request.config ? *head.spectrum_request.config : std::string("small rope"),
         L <= 64 ? "bound <= 64" : L <= 4096 ? "bound <= 4096" : "bound > 4096");
  const std::string who = head_text(head) + ", chunk " + std::to_string(chunk) + ", bound L = " + std::to_string(L);

  // Lemma A.3 at the bound: the float argmin of alpha over the target distance, certified.
  const long long s_after = adversarial::most_breaking_distance(head, L);
  if (s_after < 1 || s_after > L) RC_FAIL("most_breaking_distance out of [1, L]: " + std::to_string(s_after) + " for " + who);
  const Sequence broken = adversarial::fill_sequence(head, L, s_after);
  const adversarial::AttentionEnclosure e = adversarial::certified_attention(head, broken);
  if (e.breaks != Decision::yes)
    RC_FAIL("not certified broken at the Lemma A.3 bound (breaks = " + decision_name(e.breaks) + "): " + who + ", target distance " +
            std::to_string(s_after) + ", " + sequence_text(broken) + ", " + enclosure_text(e));

  // The scan against an independent certified pass: a counterexample (works and breaks at the same
  // context) exists within L iff some L' <= L certainly has both; undecided contexts are retried
  // at 512 bits, and a context still undecided fails the property.
  FillFamilyTruth truth = fill_family_truth(head, L, 128);
  if (truth.first_certain == 0 && !truth.all_decided) truth = fill_family_truth(head, L, 512);
  if (truth.first_certain == 0 && !truth.all_decided) RC_FAIL("the independent MPFI pass left a context undecided at 512 bits: " + who);
  const adversarial::ScanResult r = adversarial::scan_and_certify(head, L, false);
  const std::string scan = "scan{found " + std::to_string(r.found) + ", context " + std::to_string(r.candidate.context) + ", before " +
                           std::to_string(r.candidate.distance_before) + ", after " + std::to_string(r.candidate.distance_after) +
                           ", dropped " + std::to_string(r.dropped) + ", " + r.check.detail + "}";
  if (truth.first_certain != 0) {
    RC_TAG("a counterexample exists within the bound");
    if (!r.found || r.candidate.context > L)
      RC_FAIL("a break is certified at context " + std::to_string(truth.first_certain) + " but the scan did not find one within L: " + who +
              ", " + scan);
  } else {
    RC_TAG("no context within the bound both works and breaks");
    if (r.found) RC_FAIL("the scan reports a counterexample where the independent pass certifies none: " + who + ", " + scan);
  }
  if (r.found) {
    if (r.check.verdict != ReplayVerdict::still_breaks)
      RC_FAIL("a reported counterexample is not still_breaks: " + who + ", " + scan);
    if (r.candidate.context < 1 || r.candidate.context > L) RC_FAIL("the scan's context is outside [1, L]: " + who + ", " + scan);
    const auto c = static_cast<size_t>(r.candidate.context);
    if (truth.works_no[c] || truth.breaks_no[c])
      RC_FAIL("the scan's context contradicts the independent pass (works_no " + std::to_string(truth.works_no[c]) + ", breaks_no " +
              std::to_string(truth.breaks_no[c]) + "): " + who + ", " + scan);
  }
}

// ---- (2) and (3): position-free heads -------------------------------------------------------------

constexpr long long kMaxLength = 4096;

// Returns: a distance for probing activations: small, the near-returns of g = 1, up to 2^40.
rc::Gen<long long> distances() {
  return rc::gen::weightedOneOf<long long>({
      {2, rc::gen::inRange<long long>(2, 1000001)},
      {1, rc::gen::element<long long>(2, 44, 710, 103993, 1000000, 1LL << 40)},
  });
}

// Each type's activation a(distance) = q^T R^(-distance) k enclosed by attention/activation.h at 128
// bits: every chunk, active or not (an inactive one contributes an exact 0).
std::vector<Interval> type_activations(const Head& h, long long distance) {
  ScopedPrecision precision(128);
  const std::vector<Interval> g = frequencies<Interval>(h.spectrum);
  const Vector<Interval> q = to_interval_vector(h.query);
  std::vector<Interval> a;
  a.push_back(activation<Interval>(q, to_interval_vector(h.target), -distance, g));
  for (const auto& d : h.distractors) a.push_back(activation<Interval>(q, to_interval_vector(d), -distance, g));
  if (h.bos) a.push_back(activation<Interval>(q, to_interval_vector(*h.bos), -distance, g));
  return a;
}

// Fails unless every type's activation has the same endpoints at distances 0, 1, probe and `far`.
void require_identical_activations(const Head& h, long long probe, long long far) {
  const std::vector<Interval> a0 = type_activations(h, 0);
  for (long long dist : {1LL, probe, far}) {
    const std::vector<Interval> a = type_activations(h, dist);
    for (size_t t = 0; t < a.size(); ++t)
      if (!(lower_of(a[t]) == lower_of(a0[t]) && upper_of(a[t]) == upper_of(a0[t])))
        RC_FAIL("type " + std::to_string(t) + " activation differs between distance 0 " + show(a0[t]) + " and distance " +
                std::to_string(dist) + " " + show(a[t]) + ": " + head_text(h));
  }
}

RC_GTEST_PROP(AdversarialProperties, PRopeHeadInTheRemovedBandIsNeverBroken, ()) {
  const Head head = *gen::p_rope_unrotated_heads();
  const Sequence seq = *gen::sequences(head, kMaxLength);
  const std::vector<Swap> sw = *gen::swaps(seq, head);
  const long long probe = *distances();
  const std::string who = head_text(head) + ", " + sequence_text(seq) + ", " + swaps_text(sw) + ", probe " + std::to_string(probe);
  RC_TAG(adversarial::active_chunks(head).empty() ? "no active chunk" : "active chunks in the removed band");
  if (!adversarial::position_free(head)) RC_FAIL("position_free() is false for a head active only where g = 0: " + who);

  const adversarial::PositionFreeCertificate pf = adversarial::certify_position_free(head, probe);
  if (pf.holds != Decision::yes) RC_FAIL("certify_position_free: " + decision_name(pf.holds) + " (" + pf.reason + "): " + who);

  require_identical_activations(head, probe, seq.length - 1);

  const adversarial::AttackCheck ac = adversarial::check_attack(head, seq, sw);
  RC_TAG("verdict " + verdict_name(ac.verdict));
  if (ac.verdict == ReplayVerdict::still_breaks)
    RC_FAIL("a swap broke a position-free p-RoPE head: " + who + ", before " + enclosure_text(ac.before) + ", after " + enclosure_text(ac.after) +
            ", " + ac.detail);
}

// The relative width of a certified alpha must stay below a bound derived from the precision p
// (u = 2^(1-p): one outward rounding moves an endpoint by at most one ulp <= u |x|), whatever the
// order in which certify.cpp evaluates it:
//   a_x: a sum of at most n = 8 * pairs roundings over products of exact binary64 components, so
//        width(a_x) <= 2 gamma_n M_x, gamma_n = n u / (1 - n u), M_x = sum_p (|q1| + |q2|)(|k1| + |k2|)
//        (every product that can enter, in absolute value); cos 0 = 1, sin 0 = 0 are exact (NoPE).
//   E_x = exp(a_x): relative width <= e^{width(a_x)} (1 + u)/(1 - u) - 1 ~ width(a_x) + 2u.
//   alpha = E_t / (sum of L + 1 positive terms): the sum adds at most (L + 1) u relative width, the
//        quotient adds the two relative widths and u; evaluating with the maximum activation
//        subtracted first (a - a_max) at most doubles every activation's width.
// Hence relwidth(alpha) <= 2 [2 (2 w + 2u) + (L + 2) u] to first order, w = max_x width(a_x); the
// factor 2 of the final bound below covers the second-order terms (each below 2^-100 here).
Real alpha_width_bound(const Head& h, long long L, unsigned bits) {
  const Real u = ldexp(Real(1), 1 - static_cast<int>(effective_precision_bits(bits)));  // exact power of two
  const Real n = 8 * h.spectrum.pairs();
  const Real gamma = n * u / (1 - n * u);
  Real m = 0;
  auto mass = [&](const std::vector<double>& k) {
    Real s = 0;
    for (int p = 0; p < h.spectrum.pairs(); ++p)
      s += Real(std::fabs(h.query[2 * p]) + std::fabs(h.query[2 * p + 1])) * Real(std::fabs(k[2 * p]) + std::fabs(k[2 * p + 1]));
    m = std::max<Real>(m, s);
  };
  mass(h.target);
  for (const auto& d : h.distractors) mass(d);
  if (h.bos) mass(*h.bos);
  const Real w = 2 * gamma * m;
  return 2 * (2 * (2 * (2 * w + 2 * u) + (L + 2) * u));
}

Real relative_width(const Interval& x) { return (upper_of(x) - lower_of(x)) / lower_of(x); }

RC_GTEST_PROP(AdversarialProperties, NoPEAttentionToAUniqueTargetIgnoresEveryPermutation, ()) {
  const Head head = *gen::nope_heads();
  const Sequence seq = *gen::sequences(head, kMaxLength);
  const std::vector<Swap> sw = *gen::permutation_swaps(seq, head);
  const long long probe = *distances();
  const Sequence permuted = adversarial::apply_swaps(seq, sw);
  const std::string who = head_text(head) + ", " + sequence_text(seq) + ", " + swaps_text(sw) + ", permuted " + sequence_text(permuted);
  RC_TAG(head.distractors.size() == 1 ? "1 distractor type" : head.distractors.size() == 2 ? "2 distractor types" : "3 distractor types");

  require_identical_activations(head, probe, seq.length - 1);

  const adversarial::AttentionEnclosure before = adversarial::certified_attention(head, seq, adversarial::kCertifyBits);
  const adversarial::AttentionEnclosure after = adversarial::certified_attention(head, permuted, adversarial::kCertifyBits);
  const Real bound = alpha_width_bound(head, seq.context(), adversarial::kCertifyBits);
  const std::string detail = ", before " + enclosure_text(before) + ", after " + enclosure_text(after) + ", width bound " + to_decimal(bound, 6);
  if (!certainly_positive(before.alpha) || !certainly_positive(after.alpha)) RC_FAIL("alpha not certainly positive: " + who + detail);
  if (!overlaps(before.alpha, after.alpha)) RC_FAIL("a permutation changed a NoPE head's attention: " + who + detail);
  if (!(relative_width(before.alpha) <= bound) || !(relative_width(after.alpha) <= bound))
    RC_FAIL("alpha wider than the precision allows (relative widths " + to_decimal(relative_width(before.alpha), 6) + ", " +
            to_decimal(relative_width(after.alpha), 6) + "): " + who + detail);
}

// ---- (4) activation invariance -------------------------------------------------------------------

// Components for the exact check: simple numbers, or bit patterns with exponents in [-30, 30].
rc::Gen<double> invariance_components() {
  return rc::gen::weightedOneOf<double>({{1, gen::simple_doubles()}, {2, gen::binary64_with_exponents(-30, 30)}});
}

RC_GTEST_PROP(AdversarialProperties, ActivationIsShiftInvariantInExactArithmetic, ()) {
  const Spectrum spectrum = *gen::spectra(16);
  const auto d = static_cast<size_t>(spectrum.dim());
  const std::vector<double> q = *rc::gen::container<std::vector<double>>(d, invariance_components());
  const std::vector<double> k = *rc::gen::container<std::vector<double>>(d, invariance_components());
  const std::int64_t i = *gen::positions(), j = *gen::positions(), s = *gen::positions();
  ScopedPrecision precision(128);
  const std::vector<Interval> g = frequencies<Interval>(spectrum);
  const Vector<Interval> qi = to_interval_vector(q), ki = to_interval_vector(k);
  const Interval a0 = absolute_activation<Interval>(qi, i, ki, j, g);
  const Interval a1 = absolute_activation<Interval>(qi, i + s, ki, j + s, g);
  // Both enclose the same real number (R^(i+s) = R^s R^i, R^s orthogonal), so they overlap. That is
  // only informative if the enclosures are narrow: |angles| <= 2^42 (|positions| <= 2^41, g <= 2),
  // the frequency enclosed to a few ulps (2^-124 relative) at 128 bits, so each angle to < 2^-80
  // absolute; cos, sin and every rotated component then to < 2^-79 times the chunk's 1-norm, and
  // the dot product to < 2^-76 sum_p |q_p|_1 |k_p|_1. The bound 2^-64 times that sum keeps 2^12 in
  // reserve for the constant factors of those estimates.
  Real mass = 0;
  for (size_t p = 0; p < d / 2; ++p)
    mass += Real(std::fabs(q[2 * p]) + std::fabs(q[2 * p + 1])) * Real(std::fabs(k[2 * p]) + std::fabs(k[2 * p + 1]));
  const Real width_bound = ldexp(mass, -64);
  const std::string who = spectrum.describe() + ", q " + vec_text(q) + ", k " + vec_text(k) + ", i " + std::to_string(i) + ", j " +
                          std::to_string(j) + ", s " + std::to_string(s) + ": a(i, j) " + show(a0) + ", a(i+s, j+s) " + show(a1);
  if (!overlaps(a0, a1)) RC_FAIL("a(i+s, j+s) and a(i, j) are certainly different: " + who);
  if (!(upper_of(a0) - lower_of(a0) <= width_bound) || !(upper_of(a1) - lower_of(a1) <= width_bound))
    RC_FAIL("an enclosure is wider than 2^-64 sum |q_p|_1 |k_p|_1 = " + to_decimal(width_bound, 6) + ": " + who);
}

// Inputs for the kernel: zeros, simple values and binary32 bit patterns with exponents in
// [-20, 20], so every non-zero pair has norm >= 2^-20 and every product of two outputs is a normal
// binary64 computed exactly.
rc::Gen<float> kernel_components() {
  return rc::gen::weightedOneOf<float>({
      {1, rc::gen::element<float>(0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 2.0f)},
      {3, gen::binary32_with_exponents(-20, 20)},
  });
}

// The kernel-facing form. The kernel rotates q at position i+s and k at j+s (one call, two tokens),
// the dot product of the float outputs is summed in binary64, and the result must lie within B of
// the exact a(i, j) = (R^i q)^T (R^j k) = (R^(i+s) q)^T (R^(j+s) k). Derivation of B:
//  - Kernel (apply_rope.h, f32): each output component of a rotated pair (x_a, x_b) of norm N is
//    within (1/2 + 2^-25) max(ulp(y), 2^-24 N) of the exact component y; |y| <= N, so ulp(y) <=
//    max(2^-23 N, 2^-149), and the error is at most e = (1/2 + 2^-25) max(2^-23 N, 2^-149).
//    Identity pairs and pass-through elements are copied: error 0.
//  - With Q, K the exact rotated vectors and q~ = Q + dq, k~ = K + dk the kernel's outputs:
//    q~.k~ - Q.K = sum_c q~_c dk_c + dq_c K_c, and |K_c| <= N^k of its pair (rotations preserve the
//    pair's norm), so |q~.k~ - Q.K| <= sum_c |q~_c| e^k_c + e^q_c N^k_c.
//  - The dot product in binary64: each product of two binary32 values is exact (48 bits, normal by
//    the input range), and the d - 1 additions in order give |fl - exact| <= gamma_{d-1} sum_c
//    |q~_c k~_c|, gamma_m = m 2^-53 / (1 - m 2^-53).
// B is evaluated in MPFI and its upper endpoint taken; the property requires |dot - a(i, j)| <= B
// certainly (an undecided comparison fails, printed).
RC_GTEST_PROP(AdversarialProperties, KernelActivationIsShiftInvariantWithinTheContractBound, ()) {
  const Spectrum spectrum = *gen::spectra(16);
  const kernel::Layout layout = *rc::gen::element(kernel::Layout::interleaved, kernel::Layout::half);
  const int d = spectrum.dim();
  const std::vector<float> q = *rc::gen::container<std::vector<float>>(static_cast<size_t>(d), kernel_components());
  const std::vector<float> k = *rc::gen::container<std::vector<float>>(static_cast<size_t>(d), kernel_components());
  const std::int64_t i = *gen::positions(), j = *gen::positions(), s = *gen::positions();
  const kernel::RopePlan plan(spectrum, layout);

  // The math's chunks (2p, 2p+1) from the plan's pairs (first, second); pass-through elements keep
  // their index (they are g = 0 chunks, so their placement does not change any dot product).
  std::vector<int> chunk_element(static_cast<size_t>(d));
  for (int e = 0; e < d; ++e) chunk_element[static_cast<size_t>(e)] = e;
  for (int p = 0; p < plan.block_pairs(); ++p) {
    chunk_element[static_cast<size_t>(2 * p)] = plan.first_element(p);
    chunk_element[static_cast<size_t>(2 * p + 1)] = plan.second_element(p);
  }
  ScopedPrecision precision(128);
  const std::vector<Interval> g = frequencies<Interval>(spectrum);
  Vector<Interval> qm(d), km(d);
  for (int e = 0; e < d; ++e) {
    qm[e] = Interval(static_cast<double>(q[static_cast<size_t>(chunk_element[static_cast<size_t>(e)])]));
    km[e] = Interval(static_cast<double>(k[static_cast<size_t>(chunk_element[static_cast<size_t>(e)])]));
  }
  const Interval exact = absolute_activation<Interval>(qm, i, km, j, g);

  std::vector<float> in(static_cast<size_t>(2 * d));
  std::copy(q.begin(), q.end(), in.begin());
  std::copy(k.begin(), k.end(), in.begin() + d);
  const std::vector<std::int64_t> pos = {i + s, j + s};
  const Interval unit_error = Interval(Interval(0.5) + Interval(0x1p-25));
  for (cpu::Path path : cpu::available_paths()) {
    std::vector<float> out(in.size());
    kernel::apply_rope(plan, pos, kernel::dense_view(static_cast<const float*>(in.data()), 2, 1, d), kernel::dense_view(out.data(), 2, 1, d),
                       kernel::KernelOptions{path, 1});
    const float* qr = out.data();
    const float* kr = out.data() + d;
    double dot = 0;
    Interval abs_sum(0), kernel_error(0);
    for (int e = 0; e < d; ++e) {
      dot += static_cast<double>(qr[e]) * static_cast<double>(kr[e]);
      abs_sum += Interval(std::fabs(static_cast<double>(qr[e]) * static_cast<double>(kr[e])));
    }
    for (int p = 0; p < plan.block_pairs(); ++p) {
      if (plan.identity(p)) continue;
      const auto a = static_cast<size_t>(plan.first_element(p)), b = static_cast<size_t>(plan.second_element(p));
      const Interval qa(static_cast<double>(q[a])), qb(static_cast<double>(q[b]));
      const Interval ka(static_cast<double>(k[a])), kb(static_cast<double>(k[b]));
      const Interval nq = sqrt(Interval(qa * qa + qb * qb)), nk = sqrt(Interval(ka * ka + kb * kb));
      // max(2^-23 N, 2^-149) <= 2^-23 N + 2^-149 (both terms are >= 0).
      const Interval eq = Interval(unit_error * (nq * 0x1p-23 + 0x1p-149));
      const Interval ek = Interval(unit_error * (nk * 0x1p-23 + 0x1p-149));
      for (size_t c : {a, b}) kernel_error += Interval(std::fabs(static_cast<double>(qr[c])) * ek + eq * nk);
    }
    const Interval m = Interval(Interval(d - 1) * 0x1p-53);
    const Interval bound = Interval(kernel_error + m / (1 - m) * abs_sum);
    const Interval err = abs(Interval(Interval(dot) - exact));
    if (!(upper_of(err) <= lower_of(bound))) {
      std::string outs;
      for (int e = 0; e < 2 * d; ++e) outs += (e ? ", " : "") + hex_float(out[static_cast<size_t>(e)]);
      std::string ins;
      for (int e = 0; e < 2 * d; ++e) ins += (e ? ", " : "") + hex_float(in[static_cast<size_t>(e)]);
      RC_FAIL("kernel path " + cpu::path_name(path) + ", " + plan.describe() + ": |dot - a(i, j)| = " + show(err) + " not certainly <= B = " +
              show(bound) + "; i " + std::to_string(i) + ", j " + std::to_string(j) + ", s " + std::to_string(s) + ", inputs q|k " + ins +
              ", outputs " + outs + ", dot " + hex_double(dot) + ", exact a(i, j) " + show(exact));
    }
  }
}

// ---- the generators themselves ---------------------------------------------------------------------

// Every generated head, sequence and swap list satisfies its contract (validate() passes) and has
// the shape it promises; cheap, so it runs on every generator, band heads included.
RC_GTEST_PROP(AdversarialProperties, GeneratedHeadsSequencesAndSwapsAreValid, ()) {
  const int family = *rc::gen::inRange(0, 4);
  Head head;
  switch (family) {
    case 0: head = *gen::low_frequency_channel_heads(4096); break;
    case 1: head = *gen::band_heads(); break;
    case 2: head = *gen::p_rope_unrotated_heads(); break;
    default: head = *gen::nope_heads(); break;
  }
  const Sequence seq = *gen::sequences(head, 1 << 20);
  const std::vector<Swap> sw = *gen::permutation_swaps(seq, head);
  const std::string who = head_text(head) + ", " + sequence_text(seq) + ", " + swaps_text(sw);
  try {
    adversarial::validate(head);
    adversarial::validate(seq, head);
    adversarial::validate_swaps(sw, seq);
    adversarial::validate(adversarial::apply_swaps(seq, sw), head);
  } catch (const std::exception& e) {
    RC_FAIL(std::string("a generated case is invalid: ") + e.what() + ": " + who);
  }
  const std::vector<int> active = adversarial::active_chunks(head);
  if (family == 0) {
    RC_ASSERT(active.size() == 1u);
    const std::vector<int> low = gen::detail::lowest(head.spectrum, 8);
    RC_ASSERT(std::find(low.begin(), low.end(), active[0]) != low.end());
  }
  if (family == 1) {
    const std::vector<int> low = gen::detail::lowest(head.spectrum, 8);
    for (int c : active) RC_ASSERT(std::find(low.begin(), low.end(), c) != low.end());
  }
  if (family >= 2) RC_ASSERT(adversarial::position_free(head));
}

}  // namespace
}  // namespace ropecheck

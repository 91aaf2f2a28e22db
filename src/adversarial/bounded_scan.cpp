#include "adversarial/bounded_scan.h"

#include "adversarial/detail/float_activations.h"
#include "adversarial/detail/thresholds.h"
#include "io/input_error.h"
#include "numeric/exact_sum.h"

#include <algorithm>

namespace ropecheck::adversarial {
namespace {

constexpr double kU = 0x1p-53;
constexpr int kBlock = 256;

// gamma_n = n u / (1 - n u), rounded up generously (n u < 2^-40 here).
double gamma(double n) { return n * kU * (1 + 0x1p-40); }

// Composes relative radii: if X = X^ (1 +- a) and the computation adds a factor (1 +- b), the
// result is within (1 + a)(1 + b) - 1 <= a + b + ab; the 1.0001 covers binary64's rounding of
// this expression itself (every radius here is below 2^-20).
double compose(double a, double b) { return 1.0001 * (a + b + a * b); }

// Certified comparisons of two positive quantities X in [x (1 - rx), x (1 + rx)] and Y likewise,
// through one factor kappa = 1 - 2 (rx + ry + 2u) computed once (every operand normal):
//   le: x <= RN(y kappa)  implies  X <= Y, since RN(y kappa) <= y kappa (1 + u) <= y (1 - ry)/(1 + rx);
//   gt: RN(x kappa) > y   implies  X > Y,  since x (1 - rx)/(1 + ry) >= x kappa (1 + u) >= RN(x kappa).
// (kappa (1 + u) = (1 - 2r - 4u)(1 + u) <= 1 - r - 3u <= min((1 - ry)/(1 + rx), (1 - rx)/(1 + ry))
// with r = rx + ry; the subtraction computing kappa errs by at most u, inside the factor 2.)
struct Comparison {
  double kappa;
  Comparison(double rx, double ry) : kappa(1 - 2 * (rx + ry + 2 * kU)) {}
  bool le(double x, double y) const { return x <= y * kappa; }
  bool gt(double x, double y) const { return x * kappa > y; }
};

// A running sum of nonnegative binary64 terms: blocks of kBlock terms summed in binary64, the
// blocks' sums added exactly, value() = RN(RN(blocks) + block): within gamma_(kBlock+1) of the sum
// of the terms added (Higham 4.4 for a block of terms of one sign, one rounding of the exact
// blocks, one addition). Dropped terms are counted.
struct BlockSum {
  ExactSum blocks;
  double blocks_value = 0, block = 0;
  int in_block = 0;
  long long dropped = 0;
  void add(const detail::FloatActivations::ShiftedExp& e) {
    if (e.dropped) ++dropped;
    block += e.value;
    if (++in_block == kBlock) {
      blocks.add(block);
      blocks_value = blocks.value();
      block = 0;
      in_block = 0;
    }
  }
  double value() const { return blocks_value + block; }
};

// The best two values added so far (largest or smallest) with their distances, so that the best
// one at a distance other than a given one is at hand.
struct BestTwo {
  bool larger;
  double v[2] = {0, 0};
  long long at[2] = {0, 0};
  int n = 0;
  explicit BestTwo(bool keep_larger) : larger(keep_larger) {}
  bool better(double a, double b) const { return larger ? a > b : a < b; }
  void add(double x, long long s) {
    if (n == 0 || better(x, v[0])) {
      v[1] = v[0], at[1] = at[0];
      v[0] = x, at[0] = s;
      n = std::min(n + 1, 2);
    } else if (n == 1 || better(x, v[1])) {
      v[1] = x, at[1] = s;
      n = 2;
    }
  }
  // The best value at a distance other than `skip`; false when there is none.
  bool best_except(long long skip, double& x, long long& s) const {
    for (int i = 0; i < n; ++i)
      if (at[i] != skip) {
        x = v[i], s = at[i];
        return true;
      }
    return false;
  }
};

}  // namespace

std::string outcome_name(BoundedScan::Outcome o) {
  switch (o) {
    case BoundedScan::Outcome::found: return "found";
    case BoundedScan::Outcome::none: return "none";
    case BoundedScan::Outcome::undecided: return "undecided";
    case BoundedScan::Outcome::not_applicable: return "not applicable";
  }
  return "?";
}

BoundedScan bounded_scan(const Head& head, long long max_context, long long from_context) {
  if (max_context < 1 || max_context > (1LL << 31)) throw InputError("max_context", "an integer in [1, 2^31]", std::to_string(max_context));
  if (from_context < 1 || from_context > max_context)
    throw InputError("from_context", "an integer in [1, max_context]", std::to_string(from_context));
  BoundedScan out;
  if (head.distractors.size() != 1 || head.notion != Notion::attention) {
    out.reason = "one distractor type and the attention notion only";
    return out;
  }
  detail::FloatActivations act(head);
  act.choose_shift(std::min(max_context, 4095LL) + 1);
  if (!act.exp_applicable()) {
    out.reason = "an activation error bound above 2^-20";
    return out;
  }
  const detail::Thresholds th = detail::thresholds(head, 128);
  const detail::RelativeEnclosure rw = detail::relative_enclosure(th.works_ratio);
  const bool can_break = lower_of(th.break_at) > 0;  // b = 0: alpha > 0, nothing ever breaks
  const detail::RelativeEnclosure rc = can_break ? detail::relative_enclosure(th.breaks_ratio) : detail::RelativeEnclosure{1, 0};
  if (rw.rel < 0 || rc.rel < 0) {
    out.reason = "eps/(1-eps) or (1-b)/b outside [2^-100, 2^100]";
    return out;
  }
  const bool bos = head.bos.has_value();
  const double rt = act.exp_relative_error(0), ro = act.exp_relative_error(1), rb = bos ? act.exp_relative_error(2) : 0;
  // The radii (X^ computed, X exact, X in [X^ (1 - r), X^ (1 + r)]):
  //  prefix = sum of E_o over the distractor distances so far. Its terms are within ro of theirs;
  //    the binary64 sum of the current block is within gamma_255 of the terms' sum (Higham 4.4,
  //    terms of one sign), the finished blocks' exact sum is rounded once (u), the two are added
  //    (u): within gamma_257 of the sum of the computed terms, hence r_P = compose(ro, 1.0001 gamma_257).
  //  S_L = prefix (+ E_bos(L), within rb, one more addition): r_S = compose(max(r_P, rb), u).
  //  w(s) = E_t(s) eps/(1-eps) + E_o(s) as RN(RN(e_t rw) + e_o): r_w = compose(compose(rt, rw.rel), ro) + 3u
  //    (one product, one sum: each rounding relative u, with the sum of two positive terms within
  //    the larger of their radii); c(s) likewise with (1-b)/b.
  //  The running max of w^ (min of c^) is within r_w of the exact max (min): the index attaining
  //  the computed extremum bounds the exact one on one side, every index's bound on the other.
  //  Dropped terms (FloatActivations::shifted_exp: below e^-599 after the common shift) are 0 in
  //  every computed value and each adds at most kDroppedBound to the exact one: an absolute slack,
  //  kept apart as a count (prefix, bos) or per candidate (w, c), added to upper bounds only.
  //  Adding a slack to a value costs one more rounding: 2u more on the upper side's radius.
  const double r_prefix = compose(ro, 1.0001 * gamma(kBlock + 1));
  const double r_sum = compose(std::max(r_prefix, rb), kU) + 2 * kU;
  const double r_w = compose(compose(rt, rw.rel), ro) + 5 * kU;
  const double r_c = compose(compose(rt, rc.rel), ro) + 5 * kU;
  //  The dominant candidate m (the target distance whose computed E_o is largest, as in scan.h):
  //  w(m) > S_L is decided as E_t(m) eps/(1-eps) > R_m = S_L - E_o(m), with R_m summed directly
  //  (`rest`: every distractor term but m's, same radius as the prefix), because when E_o(m) is
  //  most of S_L the two sides of w(m) vs S_L agree to the last bits. Every other candidate s has
  //  S_L - E_o(s) >= E_o(m) >= E_o(s), so w(s) vs S_L loses at most a factor 2 of its margin.
  //  E_t(m) eps/(1-eps) as RN(e_t rw): r_tw = compose(rt, rw.rel) + 4u (one rounding, one slack).
  const double r_tw = compose(rt, rw.rel) + 4 * kU, r_tc = compose(rt, rc.rel) + 4 * kU;
  const Comparison works_cmp(r_w, r_sum), breaks_cmp(r_c, r_sum), works_m_cmp(r_tw, r_sum), breaks_m_cmp(r_tc, r_sum);
  out.relative_radius = std::max({r_sum, r_w, r_c, r_tw, r_tc});
  constexpr double kDrop = detail::FloatActivations::kDroppedBound;
  using Term = detail::FloatActivations::ShiftedExp;
  // Upper bounds of a slack: the count of dropped terms times the bound, and the ratios' upper
  // ends, each rounded up by the factor 1.01 (slacks are ~1e-260: only their upper bound matters).
  const double rw_hi = rw.value * 1.01, rc_hi = rc.value * 1.01;
  auto slack = [&](long long dropped) { return static_cast<double>(dropped) * kDrop * 1.01; };

  BlockSum prefix;  // every distractor term so far
  BlockSum rest;    // every distractor term but the dominant candidate's
  long long m = 0;  // the dominant candidate (0: none yet)
  Term eo_m{0, false}, et_m{0, false};
  // Running extrema over the candidates, the best two each, so the best other than m is at hand:
  // of the computed values (the exact max of w is at least w_lo (1 - r_w), attained at its
  // distance; the exact min of c at least c_lo (1 - r_c)) and of the values plus their slack (the
  // exact max of w at most w_hi (1 + r_w); the exact min of c at most c_hi (1 + r_c), attained at
  // its distance).
  BestTwo w_lo(true), w_hi(true), c_lo(false), c_hi(false);
  auto add_candidate = [&](long long s, const Term& et, const Term& eo) {
    const double w = et.value * rw.value + eo.value;
    const double c = et.value * rc.value + eo.value;
    w_lo.add(w, s);
    w_hi.add(w + ((et.dropped ? kDrop * rw_hi : 0) + (eo.dropped ? kDrop : 0)), s);
    if (can_break) {
      c_lo.add(c, s);
      c_hi.add(c + ((et.dropped ? kDrop * rc_hi : 0) + (eo.dropped ? kDrop : 0)), s);
    }
    // The distractor term at s goes to `rest` unless s becomes the dominant candidate.
    if (m == 0 || eo.value > eo_m.value) {
      if (m != 0) rest.add(eo_m);
      m = s, eo_m = eo, et_m = et;
    } else {
      rest.add(eo);
    }
  };
  // Decides context L from S^ (the binary64 S_L of the kept terms, with its count of dropped
  // terms) and R^ (S_L without m's distractor term); returns false when the scan ends at L.
  auto decide = [&](long long L, double S, long long S_dropped, double R, long long R_dropped) {
    if (m == 0 || L < from_context) return true;  // no target distance: nothing to break; or not asked
    const double S_hi = S + slack(S_dropped), R_hi = R + slack(R_dropped);
    double x;
    long long at;
    // m's own tests, then the best other candidate's (absent: that side is certainly false).
    const double tw = et_m.value * rw.value, tw_hi = tw + (et_m.dropped ? kDrop * rw_hi : 0);
    const double tc = et_m.value * rc.value, tc_hi = tc + (et_m.dropped ? kDrop * rc_hi : 0);
    const bool works_no = works_m_cmp.le(tw_hi, R) && (!w_hi.best_except(m, x, at) || works_cmp.le(x, S));
    const bool breaks_no = !can_break || (breaks_m_cmp.gt(tc, R_hi) && (!c_lo.best_except(m, x, at) || breaks_cmp.gt(x, S_hi)));
    if (works_no || breaks_no) return true;
    long long works_at = 0, breaks_at = 0;
    if (works_m_cmp.gt(tw, R_hi)) works_at = m;
    else if (w_lo.best_except(m, x, at) && works_cmp.gt(x, S_hi)) works_at = at;
    if (can_break && breaks_m_cmp.le(tc_hi, R)) breaks_at = m;
    else if (can_break && c_hi.best_except(m, x, at) && breaks_cmp.le(x, S)) breaks_at = at;
    out.context = L;
    if (works_at != 0 && breaks_at != 0) {
      out.outcome = BoundedScan::Outcome::found;
      out.distance_before = works_at;
      out.distance_after = breaks_at;
    } else {
      out.outcome = BoundedScan::Outcome::undecided;
    }
    return false;
  };
  for (long long s = 0; s <= max_context; ++s) {
    act.at(s);
    ++out.distances_evaluated;
    const Term eo = act.shifted_exp(1);
    const Term et = s >= 1 ? act.shifted_exp(0) : Term{0, false};
    if (bos) {
      // Context L = s: the bos at distance s, distractors at 0..s-1, target candidates 1..s-1.
      if (s >= 1) {
        const Term eb = act.shifted_exp(2);
        const long long bd = eb.dropped ? 1 : 0;
        if (!decide(s, prefix.value() + eb.value, prefix.dropped + bd, rest.value() + eb.value, rest.dropped + bd)) return out;
      }
      prefix.add(eo);
      if (s >= 1) add_candidate(s, et, eo);
      else rest.add(eo);
    } else {
      // Context L = s: distractors at 0..s, candidates 1..s.
      prefix.add(eo);
      if (s >= 1) add_candidate(s, et, eo);
      else rest.add(eo);
      if (s >= 1 && !decide(s, prefix.value(), prefix.dropped, rest.value(), rest.dropped)) return out;
    }
  }
  out.outcome = BoundedScan::Outcome::none;
  out.context = max_context;
  return out;
}

}  // namespace ropecheck::adversarial

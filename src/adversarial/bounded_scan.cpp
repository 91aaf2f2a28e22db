#include "adversarial/bounded_scan.h"

#include "adversarial/detail/float_activations.h"
#include "adversarial/detail/thresholds.h"
#include "io/input_error.h"
#include "numeric/exact_sum.h"

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

BoundedScan bounded_scan(const Head& head, long long max_context) {
  if (max_context < 1 || max_context > (1LL << 31)) throw InputError("max_context", "an integer in [1, 2^31]", std::to_string(max_context));
  BoundedScan out;
  if (head.distractors.size() != 1 || head.notion != Notion::attention) {
    out.reason = "one distractor type and the attention notion only";
    return out;
  }
  detail::FloatActivations act(head);
  if (!act.exp_applicable()) {
    out.reason = "activations beyond |a| + E = 600 or an error bound above 2^-20";
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
  const double r_prefix = compose(ro, 1.0001 * gamma(kBlock + 1));
  const double r_sum = compose(std::max(r_prefix, rb), kU);
  const double r_w = compose(compose(rt, rw.rel), ro) + 3 * kU;
  const double r_c = compose(compose(rt, rc.rel), ro) + 3 * kU;
  const Comparison works_cmp(r_w, r_sum), breaks_cmp(r_c, r_sum);
  out.relative_radius = std::max({r_sum, r_w, r_c});

  ExactSum blocks;           // exact sum of the finished blocks' binary64 sums
  double blocks_value = 0;   // RN(blocks)
  double block = 0;          // the current block's binary64 sum
  int in_block = 0;
  double w_max = 0, c_min = 0;
  long long w_at = 0, c_at = 0;
  bool have_candidates = false;
  auto add_distractor = [&](double e) {
    block += e;
    if (++in_block == kBlock) {
      blocks.add(block);
      blocks_value = blocks.value();
      block = 0;
      in_block = 0;
    }
  };
  auto add_candidate = [&](long long s, double et, double eo) {
    const double w = et * rw.value + eo;
    const double c = et * rc.value + eo;
    if (!have_candidates || w > w_max) w_max = w, w_at = s;
    if (can_break && (!have_candidates || c < c_min)) c_min = c, c_at = s;
    have_candidates = true;
  };
  // Decides context L with S^ = the binary64 S_L; returns false when the scan ends at L.
  auto decide = [&](long long L, double S) {
    if (!have_candidates) return true;  // no target distance: nothing to break
    const bool works_no = works_cmp.le(w_max, S);
    const bool breaks_no = !can_break || breaks_cmp.gt(c_min, S);
    if (works_no || breaks_no) return true;
    const bool works_yes = works_cmp.gt(w_max, S);
    const bool breaks_yes = can_break && breaks_cmp.le(c_min, S);
    out.context = L;
    if (works_yes && breaks_yes) {
      out.outcome = BoundedScan::Outcome::found;
      out.distance_before = w_at;
      out.distance_after = c_at;
    } else {
      out.outcome = BoundedScan::Outcome::undecided;
    }
    return false;
  };
  for (long long s = 0; s <= max_context; ++s) {
    act.at(s);
    ++out.distances_evaluated;
    const double eo = act.exp_activation(1);
    const double et = s >= 1 ? act.exp_activation(0) : 0;
    if (bos) {
      // Context L = s: the bos at distance s, distractors at 0..s-1, target candidates 1..s-1.
      if (s >= 1 && !decide(s, (blocks_value + block) + act.exp_activation(2))) return out;
      add_distractor(eo);
      if (s >= 1) add_candidate(s, et, eo);
    } else {
      // Context L = s: distractors at 0..s, candidates 1..s.
      add_distractor(eo);
      if (s >= 1) add_candidate(s, et, eo);
      if (s >= 1 && !decide(s, blocks_value + block)) return out;
    }
  }
  out.outcome = BoundedScan::Outcome::none;
  out.context = max_context;
  return out;
}

}  // namespace ropecheck::adversarial

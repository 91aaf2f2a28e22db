#include "adversarial/scan.h"

#include <cmath>
#include <cstdlib>
#include <limits>

#include "adversarial/bounded_scan.h"
#include "io/input_error.h"
#include "adversarial/detail/float_activations.h"

namespace ropecheck::adversarial {
namespace {

// log(e^x + e^y) without overflow.
inline double log_add_exp(double x, double y) {
  if (x == -std::numeric_limits<double>::infinity()) return y;
  if (y == -std::numeric_limits<double>::infinity()) return x;
  const double m = x > y ? x : y;
  return m + std::log1p(std::exp(-std::fabs(x - y)));
}

void check_scannable(const Head& head) {
  if (head.distractors.size() != 1)
    throw InputError("head.distractors", "one distractor type for the guided scan (replay accepts any number)",
                     std::to_string(head.distractors.size()) + " types");
  if (head.notion != Notion::attention) throw InputError("head.notion", "attention for the guided scan (replay accepts argmax)", "argmax");
}

double ratio(const std::string& eps_or_b, bool works) {
  const double x = std::strtod(eps_or_b.c_str(), nullptr);
  return works ? x / (1 - x) : (1 - x) / x;
}

double midpoint_double(const Interval& x) { return 0.5 * (static_cast<double>(lower_of(x)) + static_cast<double>(upper_of(x))); }

// alpha = E_t / (E_t + S - E_o), from logs.
double alpha_of(double a_t, double a_o, double log_s) {
  const double rest = std::exp(log_s - a_t) * -std::expm1(a_o - log_s);
  return 1 / (1 + rest);
}

}  // namespace

// Running extrema of one score over the target candidates, keeping the best two (with their
// distances) so the candidate that is also the largest distractor term can be set aside.
struct TopTwo {
  double v1, v2;
  long long s1 = 0, s2 = 0;
  double at1 = 0, ao1 = 0, at2 = 0, ao2 = 0;
  bool larger;  // true: keep the largest values, false: the smallest
  explicit TopTwo(bool keep_larger)
      : v1(keep_larger ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity()), v2(v1), larger(keep_larger) {}
  bool better(double a, double b) const { return larger ? a > b : a < b; }
  void add(double v, long long s, double a_t, double a_o) {
    if (better(v, v1)) {
      v2 = v1, s2 = s1, at2 = at1, ao2 = ao1;
      v1 = v, s1 = s, at1 = a_t, ao1 = a_o;
    } else if (better(v, v2)) {
      v2 = v, s2 = s, at2 = a_t, ao2 = a_o;
    }
  }
};

ScanCandidate guided_scan(const Head& head, long long max_context, long long from_context) {
  check_scannable(head);
  if (from_context < 1 || max_context < from_context || max_context > (1LL << 31))
    throw InputError("context range", "1 <= from <= max <= 2^31", std::to_string(from_context) + ".." + std::to_string(max_context));
  const double ninf = -std::numeric_limits<double>::infinity();
  const double log_rw = std::log(ratio(head.epsilon, true));
  const double b = std::strtod(head.break_at.c_str(), nullptr);
  const double log_rc = b > 0 ? std::log(ratio(head.break_at, false)) : std::numeric_limits<double>::infinity();
  const bool bos = head.bos.has_value();
  detail::FloatActivations act(head);
  ScanCandidate cand;
  // Why the largest distractor term is kept apart: "works" at distance s compares
  // E_t(s) eps/(1-eps) + E_o(s) with S_L, i.e. E_t(s) eps/(1-eps) with S_L - E_o(s). When E_o(s)
  // is most of S_L the two sides agree to the last bits of a double and the test cancels away
  // (the adversarial property (1) found such a head). For every distance but the one, m, with
  // the largest E_o, S_L - E_o(s) >= S_L / 2, so the direct test is safe; for m itself the scan
  // compares E_t(m) eps/(1-eps) with R_m = S_L - E_o(m), the log-sum of every other term, kept
  // separately (the same for "breaks" with (1-b)/b). The best two candidates of each score are
  // kept, so the best candidate other than m is always at hand.
  double log_max_o = ninf, log_rest_o = ninf;  // largest candidate E_o (at m), log-sum of the other distractor terms
  long long m = 0;
  double at_m = 0;
  TopTwo w(true), c(false);
  auto log_sum_all = [&](double log_bos) { return log_add_exp(log_add_exp(log_max_o, log_rest_o), log_bos); };
  auto test = [&](long long L, double log_bos) {
    if (L < from_context || w.s1 == 0) return false;
    const double log_s = log_sum_all(log_bos);
    const double log_rest_m = log_add_exp(log_rest_o, log_bos);  // S_L - E_o(m)
    // works: the best candidate other than m by the direct test, or m by its own.
    long long s0 = 0;
    double at0 = 0, ao0 = 0;
    if (w.s1 != m && w.v1 > log_s) s0 = w.s1, at0 = w.at1, ao0 = w.ao1;
    else if (w.s1 == m && w.s2 != 0 && w.v2 > log_s) s0 = w.s2, at0 = w.at2, ao0 = w.ao2;
    else if (m != 0 && at_m + log_rw > log_rest_m) s0 = m, at0 = at_m, ao0 = log_max_o;
    if (s0 == 0) return false;
    long long s1 = 0;
    double at1 = 0, ao1 = 0;
    if (m != 0 && at_m + log_rc <= log_rest_m) s1 = m, at1 = at_m, ao1 = log_max_o;
    else if (c.s1 != m && c.v1 <= log_s) s1 = c.s1, at1 = c.at1, ao1 = c.ao1;
    else if (c.s1 == m && c.s2 != 0 && c.v2 <= log_s) s1 = c.s2, at1 = c.at2, ao1 = c.ao2;
    if (s1 == 0) return false;
    cand.found = true;
    cand.context = L;
    cand.distance_before = s0;
    cand.distance_after = s1;
    cand.alpha_before = alpha_of(at0, ao0, log_s);
    cand.alpha_after = alpha_of(at1, ao1, log_s);
    return true;
  };
  auto add_distractor = [&](long long s, double a_o, bool candidate) {
    if (candidate && a_o > log_max_o) {
      log_rest_o = log_add_exp(log_rest_o, log_max_o);
      log_max_o = a_o, m = s;
    } else {
      log_rest_o = log_add_exp(log_rest_o, a_o);
    }
  };
  for (long long s = 0; s <= max_context; ++s) {
    act.at(s);
    const double a_t = act.activation(0), a_o = act.activation(1);
    cand.distances_evaluated++;
    auto add_candidate = [&] {
      w.add(log_add_exp(a_t + log_rw, a_o), s, a_t, a_o);
      c.add(log_add_exp(a_t + log_rc, a_o), s, a_t, a_o);
    };
    if (bos) {
      // Context L = s: bos at distance s, distractors at 0..s-1, candidates 1..s-1.
      if (s >= 1 && test(s, act.activation(2))) return cand;
      add_distractor(s, a_o, s >= 1);
      if (m == s) at_m = a_t;
      if (s >= 1) add_candidate();
    } else {
      add_distractor(s, a_o, s >= 1);
      if (m == s) at_m = a_t;
      if (s >= 1) add_candidate();
      if (s >= 1 && test(s, ninf)) return cand;
    }
  }
  return cand;
}

long long most_breaking_distance(const Head& head, long long context) {
  check_scannable(head);
  if (context < 2 || context > (1LL << 31)) throw InputError("context", "an integer in [2, 2^31]", std::to_string(context));
  const bool bos = head.bos.has_value();
  detail::FloatActivations act(head);
  const long long last = bos ? context - 1 : context;  // distractor distances 0..last
  double log_s = -std::numeric_limits<double>::infinity();
  for (long long s = 0; s <= last; ++s) {
    act.at(s);
    log_s = log_add_exp(log_s, act.activation(1));
  }
  if (bos) {
    act.at(context);
    log_s = log_add_exp(log_s, act.activation(2));
  }
  long long best = 1;
  double best_alpha = std::numeric_limits<double>::infinity();
  for (long long s = 1; s <= last; ++s) {
    act.at(s);
    const double alpha = alpha_of(act.activation(0), act.activation(1), log_s);
    if (alpha < best_alpha) best_alpha = alpha, best = s;
  }
  return best;
}

namespace {

// The fill-family attack at context L (target from distance `before` to `after`), re-checked by
// value; fills `result` and returns true when it still breaks.
bool certify_attack(const Head& head, const ScanCandidate& cand, ScanResult& result) {
  const long long L = cand.context;
  Sequence before = fill_sequence(head, L, cand.distance_before);
  std::vector<Swap> swaps = {{L - cand.distance_before, L - cand.distance_after}};
  AttackCheck check = check_attack(head, before, swaps);
  if (check.verdict != ReplayVerdict::still_breaks) return false;
  result.found = true;
  result.candidate = cand;
  result.before = std::move(before);
  result.swaps = std::move(swaps);
  result.check = std::move(check);
  return true;
}

}  // namespace

ScanResult scan_and_certify(const Head& head, long long max_context, bool certify_minimal, int max_dropped) {
  ScanResult result;
  // The binary64 scan with its proved error budget answers the search and the minimality in one
  // pass (bounded_scan.h); the attack it finds is then re-checked by value (check_attack). The
  // float scan + MPFI below runs only when that scan cannot decide or the head is outside it.
  const BoundedScan fast = bounded_scan_with_mpfi_prefix(head, max_context);
  result.distances_evaluated += fast.distances_evaluated;
  result.search = "bounded scan (one pass over distances in binary64 with proved error bounds)";
  const MinimalityCheck fast_minimal{Decision::yes, 0, 0, "binary64 with proved error bounds"};
  if (fast.outcome == BoundedScan::Outcome::none) {
    result.none_certified = true;
    return result;
  }
  if (fast.outcome == BoundedScan::Outcome::found) {
    ScanCandidate cand;
    cand.found = true;
    cand.context = fast.context;
    cand.distance_before = fast.distance_before;
    cand.distance_after = fast.distance_after;
    cand.distances_evaluated = fast.distances_evaluated;
    if (certify_attack(head, cand, result)) {
      result.candidate.alpha_before = midpoint_double(result.check.before.alpha);
      result.candidate.alpha_after = midpoint_double(result.check.after.alpha);
      result.minimal = fast_minimal;  // certified by the same pass: free, so set even when not asked
      return result;
    }
  }
  result.search = "guided scan (one pass over distances), then MPFI";
  long long from = 1;
  while (from <= max_context) {
    const ScanCandidate cand = guided_scan(head, max_context, from);
    result.distances_evaluated += cand.distances_evaluated;
    if (!cand.found) return result;
    if (certify_attack(head, cand, result)) {
      // Every context below the one the binary64 pass stopped at was decided there (neither works
      // and breaks); only beyond it does minimality need the MPFI pass.
      if (certify_minimal)
        result.minimal = cand.context <= fast.context ? fast_minimal : certify_no_shorter_break_mpfi(head, cand.context);
      return result;
    }
    if (++result.dropped > max_dropped) return result;
    from = cand.context + 1;
  }
  return result;
}

}  // namespace ropecheck::adversarial

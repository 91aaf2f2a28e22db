#include "adversarial/moved_key.h"

#include <cmath>

#include "adversarial/detail/float_activations.h"
#include "adversarial/head.h"
#include "attention/activation.h"
#include "io/input_error.h"
#include "numeric/decision.h"
#include "numeric/precision.h"
#include "spectrum/frequencies.h"

namespace ropecheck::adversarial {

std::string outcome_name(MovedKeyBreak::Outcome o) {
  switch (o) {
    case MovedKeyBreak::Outcome::found: return "found";
    case MovedKeyBreak::Outcome::none: return "none";
    case MovedKeyBreak::Outcome::undecided: return "undecided";
  }
  return "undecided";
}

namespace {

constexpr double kU = 0x1p-53;

void check_vector(const std::vector<double>& v, size_t size, const std::string& name) {
  if (v.size() != size) throw InputError(name, "a vector of " + std::to_string(size) + " components", std::to_string(v.size()) + " components");
  for (size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i])) throw InputError(name + "[" + std::to_string(i) + "]", "a finite number", std::to_string(v[i]));
}

// A pass-through dot product in binary64 and a bound on its error: n products and n - 1 additions
// in order, |fl - exact| <= gamma_n sum |x_i y_i| (Higham, Th. 3.1 with n roundings per term),
// taken as 1.01 n u sum|x y| for n u < 0.01.
struct Dot {
  double value = 0, error = 0;
};
Dot pass_dot(const std::vector<double>& x, const std::vector<double>& y) {
  Dot d;
  double magnitude = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    d.value += x[i] * y[i];
    magnitude += std::fabs(x[i] * y[i]);
  }
  d.error = 1.01 * static_cast<double>(x.size() + 1) * kU * magnitude;
  return d;
}

Interval pass_dot_interval(const std::vector<double>& x, const std::vector<double>& y) {
  Interval s(0);
  for (size_t i = 0; i < x.size(); ++i) s += Interval(x[i]) * Interval(y[i]);
  return s;
}

// a(t) - a' - m in MPFI at `bits`: yes = certainly wins (> margin_high), no = certainly loses (< margin_low).
Decision mpfi_wins(const MovedKey& m, long long t, unsigned bits) {
  ScopedPrecision precision(bits);
  const std::vector<Interval> g = frequencies<Interval>(m.spectrum);
  Vector<Interval> q(m.query.size()), k(m.key.size()), r(m.runner.size());
  for (size_t i = 0; i < m.query.size(); ++i) {
    q[static_cast<Eigen::Index>(i)] = Interval(m.query[i]);
    k[static_cast<Eigen::Index>(i)] = Interval(m.key[i]);
    r[static_cast<Eigen::Index>(i)] = Interval(m.runner[i]);
  }
  const Interval a = activation<Interval>(q, k, -t, g) + pass_dot_interval(m.query_pass, m.key_pass);
  const Interval b = activation<Interval>(q, r, -m.runner_distance, g) + pass_dot_interval(m.query_pass, m.runner_pass);
  if (decide_less(a, b + Interval(m.margin_low)) == Decision::yes) return Decision::no;
  if (decide_less(b + Interval(m.margin_high), a) == Decision::yes) return Decision::yes;
  return Decision::undecided;
}

}  // namespace

MovedKeyBreak certify_moved_key_break(const MovedKey& m, long long max_distance) {
  const size_t dim = static_cast<size_t>(m.spectrum.dim());
  check_vector(m.query, dim, "query");
  check_vector(m.key, dim, "key");
  check_vector(m.runner, dim, "runner");
  check_vector(m.key_pass, m.query_pass.size(), "key_pass");
  check_vector(m.runner_pass, m.query_pass.size(), "runner_pass");
  check_vector(m.query_pass, m.query_pass.size(), "query_pass");
  if (!std::isfinite(m.margin_low) || !std::isfinite(m.margin_high) || m.margin_low > m.margin_high)
    throw InputError("margin_low, margin_high", "finite numbers with margin_low <= margin_high",
                     std::to_string(m.margin_low) + ", " + std::to_string(m.margin_high));
  if (m.runner_distance < 0) throw InputError("runner_distance", "an integer >= 0", std::to_string(m.runner_distance));
  if (m.from_distance < 0) throw InputError("from_distance", "an integer >= 0", std::to_string(m.from_distance));
  if (max_distance < m.from_distance || max_distance > (1LL << 40))
    throw InputError("max_distance", "an integer in [from_distance, 2^40]", std::to_string(max_distance));

  Head head;
  head.spectrum = m.spectrum;
  head.query = m.query;
  head.target = m.key;
  head.distractors = {m.runner};
  detail::FloatActivations acts(head, {kTarget, distractor(0)});
  const Dot key_pass = pass_dot(m.query_pass, m.key_pass), runner_pass = pass_dot(m.query_pass, m.runner_pass);

  // a'^ = RN(a_r^ + P_r^): |a'^ - a'| <= E_r + e(P_r) + u |a'^|.
  acts.at(m.runner_distance);
  const double runner = acts.activation(1) + runner_pass.value;
  const double runner_error = acts.error_bound(1) + runner_pass.error + kU * std::fabs(runner);

  MovedKeyBreak out;
  out.max_distance = max_distance;
  out.runner_activation = runner;
  unsigned top_bits = 0;
  constexpr long long kMpfiLimit = 4096;  // distances handed to MPFI before the pass gives up
  for (long long t = m.from_distance; t <= max_distance; ++t) {
    acts.at(t);
    // s = RN(a^ + P^), f = RN(s - a'^): |f - (a(t) - a')| <= E_t + e(P) + u|s| + u|f| + (a' error).
    const double s = acts.activation(0) + key_pass.value;
    const double f = s - runner;
    const double bound = 1.01 * (acts.error_bound(0) + key_pass.error + kU * std::fabs(s) + kU * std::fabs(f) + runner_error);
    Decision wins = Decision::undecided;
    if (m.margin_low == 0 && m.margin_high == 0) {
      wins = f > bound ? Decision::yes : f < -bound ? Decision::no : Decision::undecided;
    } else {
      // Against the margin: RN(f - m) adds u |f - m| to the bound, taken on each end.
      const double above = f - m.margin_high, below = f - m.margin_low;
      if (above > 1.01 * (bound + kU * std::fabs(above)))
        wins = Decision::yes;
      else if (below < -1.01 * (bound + kU * std::fabs(below)))
        wins = Decision::no;
    }
    if (wins == Decision::undecided) {
      if (++out.mpfi_distances > kMpfiLimit) {
        out.outcome = MovedKeyBreak::Outcome::undecided;
        out.distance = t;
        break;
      }
      for (unsigned bits : {128u, 256u, 512u}) {
        wins = mpfi_wins(m, t, bits);
        top_bits = std::max(top_bits, bits);
        if (wins != Decision::undecided) break;
      }
    }
    if (wins == Decision::no) {
      out.outcome = MovedKeyBreak::Outcome::found;
      out.distance = t;
      break;
    }
    if (wins == Decision::undecided) {
      out.outcome = MovedKeyBreak::Outcome::undecided;
      out.distance = t;
      break;
    }
    if (t == max_distance) out.outcome = MovedKeyBreak::Outcome::none;
  }
  out.method = "binary64 with proved error bounds";
  if (out.mpfi_distances > 0)
    out.method += ", MPFI up to " + std::to_string(top_bits) + " bits at " + std::to_string(out.mpfi_distances) + " distances";
  return out;
}

}  // namespace ropecheck::adversarial

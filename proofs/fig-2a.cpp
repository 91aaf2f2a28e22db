#include "fig-2a.h"

#include <chrono>
#include <stdexcept>

#include "certificate/decision.h"
#include "certificate/retry.h"
#include "io/input_error.h"
#include "numeric/interval_series.h"
#include "rotation/angle_sweep.h"
#include "spectrum/frequencies.h"

namespace ropecheck::proofs {

std::vector<Interval> all_ones_activation(const std::vector<Interval>& g, long long r_max) {
  if (g.empty()) throw std::invalid_argument("all_ones_activation: no frequencies");
  const AngleSweep sweep(g, r_max);
  const long long pairs = static_cast<long long>(g.size());
  std::vector<Interval> f(static_cast<std::size_t>(r_max + 1)), c;
  for (long long r = 0; r <= r_max; ++r) {
    sweep.cos_row(r, c);
    Interval sum(0);
    for (const Interval& x : c) sum += x;
    f[static_cast<std::size_t>(r)] = Interval(sum / pairs);
  }
  return f;
}

namespace {

Certificate check_fig_2a(const ResolvedSpectrum& rs, const std::string& label, long long N, unsigned bits) {
  const auto start = std::chrono::steady_clock::now();
  ScopedPrecision precision(bits);
  const std::vector<Interval> f = all_ones_activation(frequencies<Interval>(rs.spectrum), N);
  const long long early_hi = N / 50, late_lo = (N + 4) / 5;  // [0, N/50] and [ceil(N/5), N]

  Certificate c;
  c.claim_id = "fig-2a";
  c.statement = "all-ones q = k, f(r) = (1/d) q^T R^r k = (2/d) sum_k cos(r g_k), every integer 0 <= r <= " +
                std::to_string(N) + ": f(0) = 1 > f(r) for 1 <= r <= N; f decays on average (mean over [0, " +
                std::to_string(early_hi) + "] > mean over [" + std::to_string(late_lo) + ", " + std::to_string(N) +
                "]) but not monotonically (certified r with f(r+1) > f(r)); first r with f(r) < 0";
  c.parameters = {{"configuration", label},
                  {"spectrum", rs.spectrum.describe()},
                  {"N", N},
                  {"early_window", {0, early_hi}},
                  {"late_window", {late_lo, N}},
                  {"precision_bits", precision.bits()}};
  c.method = "interval arithmetic (MPFI), " + std::to_string(precision.bits()) +
             " bits, cos(r g_k) for every r in 0..N by the addition formulas (rotation/angle_sweep.h)";
  c.expected = Verdict::holds;

  const Interval& f0 = f[0];
  const Extremum rest = maximum_over(f, 1, N);
  const FirstNegative neg = first_negative(f, 0, N);
  const SignCounts signs = count_signs(f, 0, N);
  const Extremum late_max = maximum_over(f, late_lo, N);
  const Extremum late_min = minimum_over(f, late_lo, N);
  const Interval early_mean = mean_over(f, 0, early_hi);
  const Interval late_mean = mean_over(f, late_lo, N);
  const StepCounts steps = count_steps(f, 0, N);

  // f(0) = (1/P) sum_k cos 0 = 1 exactly: an enclosure without 1 is a defect, not a finding.
  const Decision at_zero = contains(f0, Real(1)) ? Decision::yes : Decision::no;
  const Decision strict_max = decide_less(rest.lower, rest.upper, lower_of(f0), upper_of(f0));
  const Decision decays = decide_less(late_mean, early_mean);
  const Decision not_monotone = steps.increases > 0 ? Decision::yes : steps.undecided == 0 ? Decision::no : Decision::undecided;
  // The first negative r is reported only when every earlier sign is certified.
  const Decision first_negative_known = neg.decided() ? Decision::yes : Decision::undecided;

  c.quantities.push_back(enclosure("f(0)", f0));
  c.quantities.push_back(real_bounds("max_{1<=r<=N} f(r)", rest.lower, rest.upper));
  if (neg.at >= 0) {
    c.quantities.push_back(exact_integer("first r with f(r) < 0", neg.at));
    c.quantities.push_back(enclosure("f at that r", f[static_cast<std::size_t>(neg.at)]));
    if (neg.at > 0) {
      const Extremum before = minimum_over(f, 0, neg.at - 1);
      c.quantities.push_back(real_bounds("min_{0<=r<first} f(r) (positive)", before.lower, before.upper));
    }
  }
  c.quantities.push_back(exact_integer("r in 0..N with f(r) < 0", signs.negative));
  c.quantities.push_back(real_bounds("max over late window", late_max.lower, late_max.upper));
  c.quantities.push_back(exact_integer("argmax over late window", late_max.at));
  c.quantities.push_back(real_bounds("min over late window", late_min.lower, late_min.upper));
  c.quantities.push_back(exact_integer("argmin over late window", late_min.at));
  c.quantities.push_back(enclosure("mean over early window", early_mean));
  c.quantities.push_back(enclosure("mean over late window", late_mean));
  c.quantities.push_back(exact_integer("certified increases f(r+1) > f(r), 0 <= r < N", steps.increases));
  c.quantities.push_back(exact_integer("certified decreases", steps.decreases));

  nlohmann::json first_increases = steps.first_increases;
  c.details = {{"conjuncts",
                {{"f(0) = 1", decision_name(at_zero)},
                 {"f(r) < f(0) for 1 <= r <= N", decision_name(strict_max)},
                 {"mean early > mean late", decision_name(decays)},
                 {"not monotone", decision_name(not_monotone)},
                 {"signs certified up to the first negative", decision_name(first_negative_known)}}},
               {"first_increases_r", first_increases},
               {"undecided_steps", steps.undecided},
               {"undecided_signs", signs.undecided},
               {"first_undecided_sign_r", neg.undecided_at},
               {"late_argmax_candidates", late_max.candidates},
               {"series", "not stored (N + 1 values); all_ones_activation() in proofs/fig-2a.h recomputes it"}};
  // fails: some conjunct certainly false (NoPE: f = 1 everywhere). holds: every conjunct certified.
  c.verdict = combine({at_zero, strict_max, decays, not_monotone, first_negative_known});
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

}  // namespace

std::vector<Certificate> check_fig_2a(const ClaimOptions& o) {
  const long long N = o.max_n.value_or(5000);
  if (N < 50 || N >= (1LL << 40))
    throw InputError("--max-n", "an integer in [50, 2^40) for fig-2a (the windows [0, N/50] and [N/5, N] need N >= 50)",
                     std::to_string(N));
  std::vector<ResolvedSpectrum> heads;
  if (o.spectrum.config || o.spectrum.dim) {
    heads.push_back(resolve(o.spectrum));
  } else {
    for (int d : {128, 256}) {
      SpectrumRequest r = o.spectrum;
      r.dim = d;
      heads.push_back(resolve(r));
    }
  }
  std::vector<Certificate> out;
  for (const ResolvedSpectrum& rs : heads)
    out.push_back(certify_with_retry(o.precision_bits, o.max_precision_bits,
                                     [&](unsigned bits) { return check_fig_2a(rs, short_label(rs), N, bits); }));
  return out;
}

}  // namespace ropecheck::proofs

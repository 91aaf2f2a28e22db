#include "roformer-decay.h"

#include <mpfi.h>

#include <chrono>
#include <stdexcept>

#include "certificate/decision.h"
#include "certificate/retry.h"
#include "fig-2a.h"
#include "io/input_error.h"
#include "numeric/interval_series.h"
#include "rotation/angle_sweep.h"
#include "spectrum/frequencies.h"

namespace ropecheck::proofs {
namespace {

// x^2 as a square, not x*x: MPFI squares an interval straddling 0 as [0, max^2], where a product
// would give a negative lower end and sqrt() of it a NaN end.
Interval squared(const Interval& x) {
  Interval y;
  mpfi_sqr(y.backend().data(), x.backend().data());
  return y;
}

}  // namespace

std::vector<Interval> roformer_bound(const std::vector<Interval>& g, long long r_max) {
  if (g.empty()) throw std::invalid_argument("roformer_bound: no frequencies");
  const AngleSweep sweep(g, r_max);
  const long long pairs = static_cast<long long>(g.size());
  std::vector<Interval> B(static_cast<std::size_t>(r_max + 1)), c, s;
  for (long long r = 0; r <= r_max; ++r) {
    sweep.row(r, c, s);
    Interval re(0), im(0), total(0);
    for (std::size_t k = 0; k < c.size(); ++k) {
      re += c[k];
      im += s[k];
      // |S_j| = sqrt(re^2 + im^2); at r = 0, im = 0 and re = j exactly, and the square root of a
      // perfect square is exact, so B(0) comes out as the exact (P+1)/2.
      total += sqrt(Interval(squared(re) + squared(im)));
    }
    B[static_cast<std::size_t>(r)] = Interval(total / pairs);
  }
  return B;
}

EnvelopeCounts roformer_envelope(const std::vector<Interval>& B, const std::vector<Interval>& f) {
  if (B.size() != f.size()) throw std::invalid_argument("roformer_envelope: B and f differ in length");
  EnvelopeCounts e;
  for (std::size_t r = 0; r < B.size(); ++r) {
    const Interval af = abs(f[r]);
    if (upper_of(af) <= lower_of(B[r])) ++e.certified;
    else if (lower_of(af) > upper_of(B[r])) {
      ++e.violated;
      if (e.first_violation < 0) e.first_violation = static_cast<long long>(r);
    } else ++e.undecided;
  }
  return e;
}

namespace {

Certificate check_decay_bound(const ResolvedSpectrum& rs, const std::string& label, long long N, unsigned bits) {
  const auto start = std::chrono::steady_clock::now();
  ScopedPrecision precision(bits);
  const std::vector<Interval> g = frequencies<Interval>(rs.spectrum);
  const std::vector<Interval> B = roformer_bound(g, N);
  const std::vector<Interval> f = all_ones_activation(g, N);
  const long long P = rs.spectrum.pairs();
  const long long early_hi = N / 8, late_lo = N - N / 8;  // [0, 32] and [224, 256] at N = 256

  Certificate c;
  c.claim_id = "roformer-decay";
  c.statement = "RoFormer's Abel bound B(r) = (1/(d/2)) sum_{j=1..d/2} |sum_{k<j} e^(i r g_k)|, every integer 0 <= r <= " +
                std::to_string(N) + ": B(0) = (d/2+1)/2; |f(r)| <= B(r) for the all-ones activation f(r) = (2/d) sum_k cos(r g_k); "
                "B decays on average (mean over [0, " + std::to_string(early_hi) + "] > mean over [" + std::to_string(late_lo) + ", " +
                std::to_string(N) + "]) but not monotonically (certified r with B(r+1) > B(r))";
  c.parameters = {{"configuration", label},
                  {"spectrum", rs.spectrum.describe()},
                  {"N", N},
                  {"early_window", {0, early_hi}},
                  {"late_window", {late_lo, N}},
                  {"precision_bits", precision.bits()}};
  c.method = "interval arithmetic (MPFI), " + std::to_string(precision.bits()) +
             " bits, e^(i r g_k) for every r in 0..N by the addition formulas (rotation/angle_sweep.h), partial sums in pair order";
  c.expected = Verdict::holds;

  // B(0): S_j(0) = j, so B(0) = (1/P) P(P+1)/2 = (P+1)/2, exact in binary for every P.
  const Real b0_exact = Real(P + 1) / 2;
  const Decision b0 = contains(B[0], b0_exact) ? Decision::yes : Decision::no;

  // Envelope: |f(r)| <= B(r) at every r (roformer_envelope), and how close it comes.
  const EnvelopeCounts env = roformer_envelope(B, f);
  const long long envelope_ok = env.certified, envelope_bad = env.violated, envelope_undecided = env.undecided,
                  first_bad = env.first_violation;
  std::vector<Interval> gap(static_cast<std::size_t>(N + 1));
  for (long long r = 0; r <= N; ++r)
    gap[static_cast<std::size_t>(r)] = Interval(B[static_cast<std::size_t>(r)] - abs(f[static_cast<std::size_t>(r)]));
  const Extremum min_gap = minimum_over(gap, 0, N);
  const Decision envelope = envelope_bad > 0 ? Decision::no : envelope_undecided > 0 ? Decision::undecided : Decision::yes;

  const Interval early_mean = mean_over(B, 0, early_hi);
  const Interval late_mean = mean_over(B, late_lo, N);
  const Decision decays = decide_less(late_mean, early_mean);
  const StepCounts steps = count_steps(B, 0, N);
  const Decision not_monotone = steps.increases > 0 ? Decision::yes : steps.undecided == 0 ? Decision::no : Decision::undecided;
  const Extremum lowest = minimum_over(B, 0, N);

  c.quantities.push_back(enclosure("B(0)", B[0]));
  c.quantities.push_back(real_bounds("B(0) exact = (d/2+1)/2", b0_exact, b0_exact));
  c.quantities.push_back(enclosure("B(1)", B[1]));
  c.quantities.push_back(enclosure("B(N)", B[static_cast<std::size_t>(N)]));
  c.quantities.push_back(real_bounds("min_r B(r)", lowest.lower, lowest.upper));
  c.quantities.push_back(exact_integer("argmin_r B(r)", lowest.at));
  c.quantities.push_back(exact_integer("r with |f(r)| <= B(r) certified", envelope_ok));
  c.quantities.push_back(real_bounds("min_r (B(r) - |f(r)|)", min_gap.lower, min_gap.upper));
  c.quantities.push_back(exact_integer("r of that smallest gap", min_gap.at));
  c.quantities.push_back(enclosure("mean of B over early window", early_mean));
  c.quantities.push_back(enclosure("mean of B over late window", late_mean));
  c.quantities.push_back(exact_integer("certified increases B(r+1) > B(r), 0 <= r < N", steps.increases));
  c.quantities.push_back(exact_integer("certified decreases", steps.decreases));

  nlohmann::json first_increases = steps.first_increases;
  c.details = {{"conjuncts",
                {{"B(0) = (d/2+1)/2", decision_name(b0)},
                 {"|f(r)| <= B(r) for 0 <= r <= N", decision_name(envelope)},
                 {"mean early > mean late", decision_name(decays)},
                 {"not monotone", decision_name(not_monotone)}}},
               {"first_increases_r", first_increases},
               {"undecided_steps", steps.undecided},
               {"envelope_violated", envelope_bad},
               {"envelope_undecided", envelope_undecided},
               {"first_violation_r", first_bad},
               {"series", "not stored (N + 1 values); roformer_bound() in proofs/roformer-decay.h recomputes it"}};
  c.verdict = combine({b0, envelope, decays, not_monotone});
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

}  // namespace

std::vector<Certificate> check_roformer_decay(const ClaimOptions& o) {
  const long long N = o.max_n.value_or(256);
  if (N < 8 || N >= (1LL << 40))
    throw InputError("--max-n", "an integer in [8, 2^40) for roformer-decay (the windows [0, N/8] and [N - N/8, N] need N >= 8)",
                     std::to_string(N));
  SpectrumRequest r = o.spectrum;
  if (!r.config && !r.dim) r.dim = 128;  // the d = 128 at RoFormer's theta = 1e4
  const ResolvedSpectrum rs = resolve(r);
  const std::string label = short_label(rs);
  return {certify_with_retry(o.precision_bits, o.max_precision_bits, [&](unsigned bits) { return check_decay_bound(rs, label, N, bits); })};
}

}  // namespace ropecheck::proofs

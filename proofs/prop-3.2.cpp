#include "prop-3.2.h"

#include <mpfi.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>

#include "certificate/decision.h"
#include "certificate/retry.h"
#include "io/input_error.h"
#include "numeric/interval_series.h"
#include "random/counter_rng.h"
#include "random/dyadic_vector.h"
#include "rotation/angle_sweep.h"
#include "spectrum/frequencies.h"

namespace ropecheck::proofs {
namespace {

// Preallocated MPFI scratch values: the inner loop runs (N + 1) x d/2 times (1.6M for the defaults)
// and a Boost temporary per operation would cost an allocation each.
struct Scratch {
  explicit Scratch(mpfr_prec_t prec) {
    for (mpfi_ptr v : all()) mpfi_init2(v, prec);
  }
  ~Scratch() {
    for (mpfi_ptr v : all()) mpfi_clear(v);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  std::vector<mpfi_ptr> all() { return {cc, ss, q, q2, fro, a2, tr, x, y, t}; }
  mpfi_t cc, ss, q, q2, fro, a2, tr, x, y, t;
};

void store(Interval& out, mpfi_srcptr v) {
  mpfi_set_prec(out.backend().data(), mpfi_get_prec(v));
  mpfi_set(out.backend().data(), v);
}

}  // namespace

RotationMoments rotation_moments(const std::vector<Interval>& g, long long r_max, const std::vector<Vector<Interval>>& keys,
                                 const std::vector<long long>& key_distances, NormCheck& norms) {
  if (g.empty()) throw std::invalid_argument("rotation_moments: no frequencies");
  const std::size_t pairs = g.size();
  for (const auto& k : keys)
    if (static_cast<std::size_t>(k.size()) != 2 * pairs) throw std::invalid_argument("rotation_moments: key of the wrong size");
  std::vector<char> wanted(static_cast<std::size_t>(r_max + 1), 0);
  for (long long r : key_distances) {
    if (r < 0 || r > r_max) throw std::invalid_argument("rotation_moments: key distance outside [0, r_max]");
    wanted[static_cast<std::size_t>(r)] = 1;
  }
  const AngleSweep sweep(g, r_max);
  const mpfr_prec_t prec = mpfi_get_prec(g[0].backend().data());
  const long long d = 2 * static_cast<long long>(pairs);

  RotationMoments m;
  m.frobenius.resize(static_cast<std::size_t>(r_max + 1));
  m.fourth.resize(m.frobenius.size());
  m.trace.resize(m.frobenius.size());
  // Width of frobenius[r], w = the sweep's bound on each cos/sin enclosure, e = 2^-p, valid for w <= 1:
  // |c|, |s| <= 1 + w <= 2, so c^2 has width <= 2 (1 + w) w + 8e <= 4w + 8e (outward rounding of two
  // endpoints below 4, ulp <= 4e); c^2 + s^2 <= 8w + 32e (the sum, below 8, rounds by <= 16e); the
  // d/2 partial sums stay below 4d and each addition rounds by <= 16 d e: sum <= (d/2)(8w + 32e) + 8d^2 e;
  // the factor 2 is exact. W = 8 d w + 32 d e + 16 d^2 e.
  const Real w = sweep.width_bound();
  if (w <= 1) {
    Real e;
    mpfr_set_prec(e.backend().data(), prec);
    mpfr_set_ui_2exp(e.backend().data(), 1, -prec, MPFR_RNDU);
    Real W, t;
    mpfr_mul_si(W.backend().data(), w.backend().data(), 8 * d, MPFR_RNDU);
    mpfr_mul_si(t.backend().data(), e.backend().data(), 32 * d + 16 * d * d, MPFR_RNDU);
    mpfr_add(W.backend().data(), W.backend().data(), t.backend().data(), MPFR_RNDU);
    m.frobenius_width_bound = W;
  } else {
    m.frobenius_width_bound = std::numeric_limits<double>::infinity();
  }

  std::vector<Interval> key_norms;
  for (const auto& k : keys) key_norms.push_back(squared_norm(k));
  norms = NormCheck{};
  bool first_deviation = true;

  Scratch z(prec);
  std::vector<Interval> c, s;
  for (long long r = 0; r <= r_max; ++r) {
    sweep.row(r, c, s);
    mpfi_set_ui(z.fro, 0);
    mpfi_set_ui(z.a2, 0);
    mpfi_set_ui(z.tr, 0);
    for (std::size_t k = 0; k < pairs; ++k) {
      mpfi_sqr(z.cc, c[k].backend().data());
      mpfi_sqr(z.ss, s[k].backend().data());
      mpfi_add(z.q, z.cc, z.ss);  // c^2 + s^2: the squared singular value of the block (1 exactly)
      mpfi_add(z.fro, z.fro, z.q);
      mpfi_sqr(z.q2, z.q);
      mpfi_add(z.a2, z.a2, z.q2);
      mpfi_add(z.tr, z.tr, c[k].backend().data());
    }
    // Each block contributes twice (two equal singular values, two diagonal entries c).
    mpfi_mul_2ui(z.fro, z.fro, 1);
    mpfi_mul_2ui(z.a2, z.a2, 1);
    mpfi_mul_2ui(z.tr, z.tr, 1);
    const std::size_t at = static_cast<std::size_t>(r);
    store(m.frobenius[at], z.fro);
    store(m.trace[at], z.tr);
    mpfi_sqr(z.t, z.fro);
    mpfi_mul_2ui(z.x, z.a2, 1);
    mpfi_add(z.t, z.t, z.x);
    mpfi_mul_ui(z.t, z.t, 3);
    store(m.fourth[at], z.t);

    if (!wanted[at]) continue;
    for (std::size_t t = 0; t < keys.size(); ++t) {
      // ||R^r k||^2 from the rotated chunks (c x - s y, s x + c y), squared and summed.
      Interval norm(0);
      mpfi_set_prec(norm.backend().data(), prec);
      mpfi_set_ui(norm.backend().data(), 0);
      for (std::size_t k = 0; k < pairs; ++k) {
        mpfi_srcptr x0 = keys[t][2 * k].backend().data(), y0 = keys[t][2 * k + 1].backend().data();
        mpfi_mul(z.x, c[k].backend().data(), x0);
        mpfi_mul(z.q, s[k].backend().data(), y0);
        mpfi_sub(z.x, z.x, z.q);
        mpfi_mul(z.y, s[k].backend().data(), x0);
        mpfi_mul(z.q, c[k].backend().data(), y0);
        mpfi_add(z.y, z.y, z.q);
        mpfi_sqr(z.x, z.x);
        mpfi_sqr(z.y, z.y);
        mpfi_add(norm.backend().data(), norm.backend().data(), z.x);
        mpfi_add(norm.backend().data(), norm.backend().data(), z.y);
      }
      ++norms.checked;
      if (!overlaps(norm, key_norms[t])) ++norms.mismatches;
      const Interval dev = Interval(norm - key_norms[t]);
      norms.deviation = first_deviation ? dev : hull_of(norms.deviation, dev);
      first_deviation = false;
    }
  }
  return m;
}

namespace {

// Stream ids in the counter-based RNG: ASCII "p3.2 key" (key t uses stream + t) and "p3.2 r".
constexpr std::uint64_t kKeyStream = 0x70332e32206b6579ULL;
constexpr std::uint64_t kDistanceStream = 0x70332e322072ULL;
constexpr int kRandomDistances = 61;

// The distances where the seeded keys are rotated: 0, 1, N and 61 seeded ones in [2, N - 1].
std::vector<long long> key_distances(long long N, std::uint64_t seed) {
  std::vector<long long> out = {0, std::min(1LL, N), N};
  if (N > 2) {
    const CounterRng rng(seed, kDistanceStream);
    for (int i = 0; i < kRandomDistances; ++i) out.push_back(2 + static_cast<long long>(rng.bits(static_cast<std::uint64_t>(i)) % static_cast<std::uint64_t>(N - 2)));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

struct Run {
  Certificate independent;
  Certificate dependent;
};

Run check_one(const ResolvedSpectrum& rs, long long N, long long trials, std::uint64_t seed, unsigned bits) {
  const auto start = std::chrono::steady_clock::now();
  ScopedPrecision precision(bits);
  const int d = rs.spectrum.dim();
  std::vector<Vector<Interval>> keys;
  for (long long t = 0; t < trials; ++t) keys.push_back(random_dyadic_vector<Interval>(d, seed, kKeyStream + static_cast<std::uint64_t>(t)));
  const std::vector<long long> distances = key_distances(N, seed);
  NormCheck norms;
  const RotationMoments m = rotation_moments(frequencies<Interval>(rs.spectrum), N, keys, distances, norms);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const nlohmann::json parameters = {{"configuration", rs.name},
                                     {"spectrum", rs.spectrum.describe()},
                                     {"N", N},
                                     {"context", rs.context},
                                     {"precision_bits", precision.bits()}};
  const std::string method = "interval arithmetic (MPFI), " + std::to_string(precision.bits()) +
                             " bits, cos/sin(r g_k) for every r in 0..N by the addition formulas (rotation/angle_sweep.h)";

  // Independent q, k. The mean is an identity, not a computation: E[q^T M k] = sum_ij M_ij E[q_i] E[k_j]
  // = 0 for any fixed M once q and k are independent and centred. The variance and fourth moment are
  // sums of the rotation blocks' entries, checked numerically.
  Run out;
  Certificate& a = out.independent;
  a.claim_id = "prop-3.2";
  a.statement = "independent q, k ~ N(0, I), every integer 0 <= r <= " + std::to_string(N) +
                " (negative r: R^-r = (R^r)^T, same moments): E[q^T R^r k] = 0, E[(q^T R^r k)^2] = ||R^r||_F^2 = d, "
                "E[(q^T R^r k)^4] = 3(d^2 + 2d), and ||R^r k|| = ||k|| (so q^T R^r k | k ~ N(0, ||k||^2): the law of q^T k)";
  a.parameters = parameters;
  a.parameters["keys"] = {{"source", "seeded random: components uniform in [-1, 1), multiples of 2^-52, Philox4x32-10"},
                          {"seed", seed},
                          {"stream", kKeyStream},
                          {"trials", trials},
                          {"distances", distances}};
  a.method = method;
  a.expected = Verdict::holds;

  const Real dd(d), m4(3.0 * (static_cast<double>(d) * d + 2.0 * d));
  long long fro_misses = 0, fourth_misses = 0;
  Interval fro_hull = m.frobenius[0], fourth_hull = m.fourth[0];
  Real widest(0);
  for (std::size_t r = 0; r < m.frobenius.size(); ++r) {
    if (!contains(m.frobenius[r], dd)) ++fro_misses;
    if (!contains(m.fourth[r], m4)) ++fourth_misses;
    fro_hull = hull_of(fro_hull, m.frobenius[r]);
    fourth_hull = hull_of(fourth_hull, m.fourth[r]);
    Real width = upper_of(m.frobenius[r]);
    mpfr_sub(width.backend().data(), width.backend().data(), lower_of(m.frobenius[r]).backend().data(), MPFR_RNDU);
    if (width > widest) widest = width;
  }
  // A value outside an enclosure certainly differs from the identity's d: the identity would be false
  // (or the code wrong): fails. An enclosure wider than its a-priori bound means the bound's
  // assumptions broke: undecided, so the ladder retries at a higher precision.
  const Decision moments = fro_misses + fourth_misses > 0 ? Decision::no : Decision::yes;
  const Decision tight = widest <= m.frobenius_width_bound ? Decision::yes : Decision::undecided;
  const Decision norm_kept = norms.mismatches > 0 ? Decision::no : Decision::yes;

  a.quantities.push_back({"E[q^T R^r k], every r (identity for independent centred q, k)", "0", "0", "exact"});
  a.quantities.push_back(enclosure("E[(q^T R^r k)^2] = ||R^r||_F^2, hull over r", fro_hull, 40));
  a.quantities.push_back(exact_integer("d", d));
  a.quantities.push_back(real_bounds("widest enclosure of ||R^r||_F^2", widest, widest));
  a.quantities.push_back(real_bounds("a-priori width bound W", m.frobenius_width_bound, m.frobenius_width_bound));
  a.quantities.push_back(enclosure("E[(q^T R^r k)^4], hull over r", fourth_hull, 30));
  a.quantities.push_back(exact_integer("3(d^2 + 2d)", 3LL * (static_cast<long long>(d) * d + 2LL * d)));
  a.quantities.push_back(exact_integer("(key, r) pairs with ||R^r k||^2 checked", norms.checked));
  if (norms.checked > 0) a.quantities.push_back(enclosure("||R^r k||^2 - ||k||^2, hull", norms.deviation, 12));
  a.details = {{"conjuncts",
                {{"||R^r||_F^2 and the fourth moment contain d and 3(d^2+2d) at every r", decision_name(moments)},
                 {"every ||R^r||_F^2 enclosure narrower than W", decision_name(tight)},
                 {"||R^r k||^2 overlaps ||k||^2 for every key and distance", decision_name(norm_kept)}}},
               {"frobenius_misses", fro_misses},
               {"fourth_moment_misses", fourth_misses},
               {"norm_mismatches", norms.mismatches}};
  a.verdict = combine({moments, tight, norm_kept});
  a.seconds = seconds;

  // q = k: the hypothesis of independence dropped. E[k^T R^r k] = tr(R^r) E[k_i^2] = tr(R^r).
  Certificate& b = out.dependent;
  b.claim_id = "prop-3.2";
  b.statement = "without independence: q = k ~ N(0, I), every integer 1 <= r <= " + std::to_string(N) +
                ": E[q^T R^r k] = tr(R^r) = 2 sum_k cos(r g_k) (= d f(r), f of fig-2a) is not 0 (counterexample)";
  b.parameters = parameters;
  b.method = method;
  b.expected = Verdict::counterexample;
  const SignCounts signs = count_signs(m.trace, 1, N);
  const FirstNegative neg = first_negative(m.trace, 1, N);
  const Extremum lo = minimum_over(m.trace, 1, N), hi = maximum_over(m.trace, 1, N);
  b.quantities.push_back(enclosure("E[k^T R k] = tr(R^1)", m.trace[1]));
  b.quantities.push_back(exact_integer("r in 1..N with tr(R^r) > 0", signs.positive));
  b.quantities.push_back(exact_integer("r in 1..N with tr(R^r) < 0", signs.negative));
  b.quantities.push_back(exact_integer("r in 1..N with undecided sign", signs.undecided));
  if (neg.at >= 0) b.quantities.push_back(exact_integer("first r with tr(R^r) < 0", neg.at));
  b.quantities.push_back(real_bounds("min_{1<=r<=N} tr(R^r)", lo.lower, lo.upper));
  b.quantities.push_back(exact_integer("argmin", lo.at));
  b.quantities.push_back(real_bounds("max_{1<=r<=N} tr(R^r)", hi.lower, hi.upper));
  b.quantities.push_back(exact_integer("argmax", hi.at));
  b.details = {{"first_negative_r", neg.at}, {"signs_certified_up_to_first_negative", neg.decided()}};
  // A counterexample needs one distance r >= 1 where the mean is certainly non-zero.
  b.verdict = signs.positive + signs.negative > 0 ? Verdict::counterexample : Verdict::inconclusive;
  b.seconds = seconds;
  return out;
}

}  // namespace

std::vector<Certificate> check_prop_3_2(const ClaimOptions& o) {
  const long long trials = o.trials.value_or(4);
  if (trials < 1 || trials > 1000) throw InputError("--trials", "an integer in [1, 1000] for prop-3.2", std::to_string(trials));
  std::vector<ResolvedSpectrum> configs;
  if (o.spectrum.config || o.spectrum.dim) configs.push_back(resolve(o.spectrum));
  else
    for (const char* name : {"gemma-7b", "llama-3.1-8b"}) configs.push_back(resolve(o.spectrum, std::string(name)));

  std::vector<Certificate> out;
  for (const ResolvedSpectrum& rs : configs) {
    const long long N = o.max_n.value_or(std::min(8192LL, rs.context));
    if (N < 1 || N >= (1LL << 40)) throw InputError("--max-n", "an integer in [1, 2^40) for prop-3.2", std::to_string(N));
    // One sweep gives both certificates; the ladder climbs for the independent one, and the dependent
    // one is taken from the last attempt (it climbs on its own only if that left it undecided).
    Certificate dependent;
    Certificate independent = certify_with_retry(o.precision_bits, o.max_precision_bits, [&](unsigned bits) {
      Run run = check_one(rs, N, trials, o.seed, bits);
      dependent = std::move(run.dependent);
      return run.independent;
    });
    if (dependent.verdict == Verdict::inconclusive)
      dependent = certify_with_retry(o.precision_bits, o.max_precision_bits,
                                     [&](unsigned bits) { return check_one(rs, N, trials, o.seed, bits).dependent; });
    else
      dependent.details["precision_attempts"] = independent.details["precision_attempts"];
    out.push_back(std::move(independent));
    out.push_back(std::move(dependent));
  }
  return out;
}

}  // namespace ropecheck::proofs

#include "lemma-a2.h"

#include <gmp.h>
#include <mpfr.h>

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "certificate/retry.h"
#include "claims/angle_option.h"
#include "claims/decimal_option.h"
#include "io/input_error.h"
#include "numeric/decimal.h"
#include "spectrum/frequencies.h"
#include "spectrum/request.h"

namespace ropecheck::proofs {

CertifiedContinuedFraction certified_continued_fraction(const Interval& alpha, long long max_denominator) {
  CertifiedContinuedFraction cf;
  Interval x = alpha;
  // p_{-1} = 1, q_{-1} = 0, p_{-2} = 0, q_{-2} = 1.
  __int128 p1 = 1, q1 = 0, p2 = 0, q2 = 1;
  for (;;) {
    const Real lo = floor(lower_of(x)), hi = floor(upper_of(x));
    // A quotient is certified only when floor() agrees over the whole enclosure; past 2^50 the
    // enclosure is a few ulps around a rational's end and nothing more can be certified anyway.
    if (lo != hi || lo < 0 || lo > Real(std::int64_t{1} << 50)) break;
    const long long a = lo.convert_to<long long>();
    const __int128 p = a * p1 + p2, q = a * q1 + q2;
    if (q > max_denominator || p > (__int128{1} << 62)) break;
    cf.quotients.push_back(a);
    cf.p.push_back(static_cast<long long>(p));
    cf.q.push_back(static_cast<long long>(q));
    p2 = p1, q2 = q1, p1 = p, q1 = q;
    const Interval frac = x - Interval(a);
    if (!certainly_positive(frac)) break;  // the enclosure reaches a rational's last quotient
    x = 1 / frac;
  }
  return cf;
}

Interval orbit_offset(const Interval& g, long long n, const Interval& phi, long long& m) {
  const Interval two_pi = 2 * pi_value<Interval>();
  const Interval x = Interval(n) * g - phi;
  const Real ratio = midpoint(x) / midpoint(two_pi);
  m = round(ratio).convert_to<long long>();
  return abs(Interval(x - two_pi * Interval(m)));
}

namespace {

static_assert(sizeof(unsigned long) == 8, "mpz_get_ui must return 64 bits");
using u64 = std::uint64_t;
using i128 = __int128;

// A real number modulo 1 in 64-bit fixed point: x * 2^64 lies in [base, base + width] modulo 2^64.
// n*x is then in [n*base, n*base + n*width] modulo 2^64, and n*base mod 2^64 is what unsigned
// wrap-around multiplication gives: one exact integer operation per n, so an exhaustive scan of
// 10^8 positions costs milliseconds, with an error of n*width/2^64 that is carried, not ignored.
struct FixedAngle {
  u64 base = 0;
  u64 width = 0;
};

FixedAngle to_fixed(const Interval& x) {
  mpfr_t y;
  mpz_t lo, hi;
  mpfr_init2(y, static_cast<mpfr_prec_t>(precision_bits_of(x)));
  mpz_inits(lo, hi, nullptr);
  mpfi_get_left(y, x.backend().data());
  mpfr_mul_2ui(y, y, 64, MPFR_RNDN);  // exact: a power of two
  mpfr_get_z(lo, y, MPFR_RNDD);
  mpfi_get_right(y, x.backend().data());
  mpfr_mul_2ui(y, y, 64, MPFR_RNDN);
  mpfr_get_z(hi, y, MPFR_RNDU);
  mpz_sub(hi, hi, lo);
  FixedAngle f;
  // The enclosures here come from >= 53-bit intervals of numbers below 10^6, so the width is a
  // few units; a width near 2^32 would make the n*width error term meaningless, and is refused.
  if (mpz_cmp_ui(hi, 1ul << 32) >= 0) throw std::invalid_argument("to_fixed: enclosure too wide for 64-bit fixed point");
  f.width = mpz_get_ui(hi);
  mpz_fdiv_r_2exp(lo, lo, 64);  // non-negative remainder, also for negative x
  f.base = mpz_get_ui(lo);
  mpfr_clear(y);
  mpz_clears(lo, hi, nullptr);
  return f;
}

// Returns: floor (down) or ceil (up) of x * 2^64 for 0 < x < 1.
i128 scaled(const Real& x, bool up) {
  mpfr_t y;
  mpz_t z;
  mpfr_init2(y, static_cast<mpfr_prec_t>(precision_bits_of(x)));
  mpz_init(z);
  mpfr_mul_2ui(y, x.backend().data(), 64, MPFR_RNDN);
  mpfr_get_z(z, y, up ? MPFR_RNDU : MPFR_RNDD);
  mpz_t high;
  mpz_init(high);
  mpz_fdiv_q_2exp(high, z, 64);
  mpz_fdiv_r_2exp(z, z, 64);
  const i128 out = (static_cast<i128>(mpz_get_ui(high)) << 64) + static_cast<i128>(mpz_get_ui(z));
  mpz_clears(z, high, nullptr);
  mpfr_clear(y);
  return out;
}

enum class Near { within, outside, undecided };

// The exhaustive scan of n*alpha - beta modulo 1 against the tolerance delta' = delta/(2 pi).
class OrbitScan {
 public:
  OrbitScan(const Interval& alpha, const Interval& beta, const Interval& delta_turns)
      : a_(to_fixed(alpha)), b_(to_fixed(beta)), d_lo_(scaled(lower_of(delta_turns), false)), d_hi_(scaled(upper_of(delta_turns), true)) {}

  // Signed offset of the fixed-point n*alpha - beta (the base values) from 0, in units of 2^-64.
  std::int64_t offset(long long n) const {
    return static_cast<std::int64_t>(static_cast<u64>(n) * a_.base - b_.base);
  }
  // Certainly |n alpha - beta|_{R/Z} < delta', certainly >= delta', or undecided. The true offset
  // lies in [offset - width_beta, offset + n width_alpha]; |offset| <= 2^63 and n width_alpha +
  // width_beta < 2^62 (n <= 2^40, widths < 2^16 in practice, < 2^22 checked), so only the
  // multiples -1, 0, 1 of 2^64 can be near, and the -1, +1 ones are farther than delta' < 2^62.
  Near classify(long long n) const {
    const i128 s = offset(n);
    const i128 lo = s - static_cast<i128>(b_.width), hi = s + static_cast<i128>(n) * static_cast<i128>(a_.width);
    if (lo > -d_lo_ && hi < d_lo_) return Near::within;
    if (hi <= -d_hi_ || lo >= d_hi_) return Near::outside;
    return Near::undecided;
  }
  u64 alpha_base() const { return a_.base; }
  u64 beta_base() const { return b_.base; }

 private:
  FixedAngle a_, b_;
  i128 d_lo_, d_hi_;
};

}  // namespace

DensityWitness approach_angle(const Interval& g, const Interval& phi, const Interval& delta, long long N, long long scan_limit) {
  DensityWitness w;
  const Interval two_pi = 2 * pi_value<Interval>();
  const Interval alpha = g / two_pi, beta = phi / two_pi, delta_turns = delta / two_pi;
  const OrbitScan scan(alpha, beta, delta_turns);

  // 1. The convergents, up to denominators the scans can afford.
  const CertifiedContinuedFraction cf = certified_continued_fraction(alpha, std::min<long long>(scan_limit, std::int64_t{1} << 40));
  Interval theta_prev_abs(1);  // |q_{-1} alpha - p_{-1}| = 1
  for (size_t k = 0; k < cf.q.size(); ++k) {
    const Interval theta = Interval(cf.q[k]) * alpha - Interval(cf.p[k]);
    const Interval theta_abs = abs(theta);
    const bool small = certainly_less(theta_abs, delta_turns);
    if (small && (certainly_positive(theta) || certainly_negative(theta))) {
      w.convergent_index = static_cast<int>(k);
      w.q_j = cf.q[k];
      w.q_prev = k == 0 ? 0 : cf.q[k - 1];
      // 2. A-priori bound: the start is at most one gap (<= |theta_{j-1}|) away, and each step of
      // q_j moves by |theta_j|, so steps <= round(gap/|theta_j|) <= floor(|theta_{j-1}|/|theta_j| + 1/2).
      Real ratio;
      mpfr_div(ratio.backend().data(), upper_of(theta_prev_abs).backend().data(), lower_of(theta_abs).backend().data(), MPFR_RNDU);
      const Real max_steps = floor(Real(ratio + Real(0.5)));
      const Real bound = Real(w.q_j + w.q_prev) + Real(w.q_j) * max_steps;
      w.a_priori_bound = bound > Real(std::int64_t{1} << 62) ? (std::int64_t{1} << 62) : bound.convert_to<long long>();
      const long long coarse = w.q_j + w.q_prev;
      if (coarse > scan_limit) {
        w.reason = "the neighbour scan 1.." + std::to_string(coarse) + " exceeds the scan limit " + std::to_string(scan_limit);
        break;
      }
      // 3. The two neighbours of beta among n alpha, 1 <= n <= q_j + q_{j-1}.
      long long left = 1, right = 1;
      u64 d_left = ~u64{0}, d_right = ~u64{0};
      for (long long n = 1; n <= coarse; ++n) {
        const u64 x = static_cast<u64>(n) * scan.alpha_base();
        const u64 dl = scan.beta_base() - x, dr = x - scan.beta_base();
        if (dl < d_left) d_left = dl, left = n;
        if (dr < d_right) d_right = dr, right = n;
      }
      // 4. Walk from the neighbour behind beta (in the direction q_j moves) by steps of q_j.
      const bool up = certainly_positive(theta);
      const std::int64_t step = static_cast<std::int64_t>(static_cast<u64>(w.q_j) * scan.alpha_base());
      const u64 step_abs = static_cast<u64>(step < 0 ? -step : step);
      const u64 d = up ? d_left : d_right;
      w.start = up ? left : right;
      w.steps = static_cast<long long>((d + step_abs / 2) / step_abs);
      const i128 n = static_cast<i128>(w.start) + static_cast<i128>(w.steps) * w.q_j;
      if (n > N) {
        w.reason = "the construction gives n = " + std::to_string(static_cast<long long>(std::min<i128>(n, std::int64_t{1} << 62))) +
                   " > N = " + std::to_string(N);
        break;
      }
      w.n = static_cast<long long>(n);
      w.constructed = true;
      break;
    }
    theta_prev_abs = theta_abs;
  }
  if (w.convergent_index < 0)
    w.reason = "no convergent q_k <= " + std::to_string(std::min<long long>(scan_limit, std::int64_t{1} << 40)) +
               " of g/(2 pi) with ||q_k g/(2 pi)|| < delta/(2 pi) could be certified (" + std::to_string(cf.q.size()) +
               " partial quotients certified" + (cf.q.empty() ? "" : ", last denominator " + std::to_string(cf.q.back())) +
               "): g/(2 pi) may be rational";

  // 5. Exhaustive scan for the smallest n (and the witness when nothing was constructed).
  const long long scan_to = std::min({w.constructed ? w.n : N, scan_limit, N});
  long long undecided_at = 0;
  for (long long n = 1; n <= scan_to; ++n) {
    const Near r = scan.classify(n);
    if (r == Near::outside) continue;
    if (r == Near::undecided) {
      if (!undecided_at) undecided_at = n;
      continue;
    }
    w.scanned_to = n;
    if (!undecided_at) {
      w.smallest_known = true;
      w.smallest = n;
    }
    break;
  }
  if (!w.scanned_to) w.scanned_to = scan_to;
  if (!w.smallest_known) {
    w.smallest_note = undecided_at ? "n = " + std::to_string(undecided_at) + " is too close to delta for the 64-bit fixed-point scan"
                                   : "no n in 1.." + std::to_string(scan_to) + " is within delta";
  }
  if (w.smallest_known) {
    long long m = 0;
    w.smallest_distance = orbit_offset(g, w.smallest, phi, m);
    // The fixed-point scan and MPFI must agree; an MPFI enclosure that does not certify it leaves
    // the smallest n unknown rather than trusting one side.
    if (!certainly_less(w.smallest_distance, delta)) {
      w.smallest_known = false;
      w.smallest_note = "the scan's n = " + std::to_string(w.smallest) + " is not certified by MPFI";
    }
  }
  if (!w.constructed && w.smallest_known) {
    w.n = w.smallest;
    w.n_by_scan = true;
  }
  if (w.n >= 1) {
    w.distance = orbit_offset(g, w.n, phi, w.m);
    w.certified = certainly_less(w.distance, delta) && w.n <= N;
    if (!w.certified && w.reason.empty()) w.reason = "|n g - phi - 2 pi m| < delta not decided at this precision";
  }
  return w;
}

namespace {

struct Labelled {
  std::string label;
  std::string text;  // parsed by angle_option at each precision
};

constexpr long long kDefaultN = 1000000000000LL;  // 10^12: far above any context, below 2^40
constexpr long long kScanLimit = 1LL << 28;       // ~2.7e8 fixed-point steps, about 0.3 s

Certificate check_one(const Labelled& freq, const Labelled& tol, const std::vector<Labelled>& targets, long long N, unsigned bits,
                      bool gemma_g119) {
  const auto start = std::chrono::steady_clock::now();
  ScopedPrecision precision(bits);
  const std::string freq_accepted = "a decimal or K*pi/M in (0, 1000] (radians per token)";
  Interval g;
  if (gemma_g119) {
    g = frequencies<Interval>(resolve(SpectrumRequest{}, std::string("gemma-7b")).spectrum)[118];
  } else {
    g = angle_option(freq.text, freq.text, "--frequency", freq_accepted);
    if (!certainly_positive(g) || upper_of(g) > 1000) throw InputError("--frequency", freq_accepted, freq.text);
  }
  const std::string tol_accepted = "a decimal in [1e-8, 1]";
  const Interval delta = decimal_option(tol.text, tol.text, "--tolerance", tol_accepted);
  if (lower_of(delta) < Real("1e-8") || upper_of(delta) > 1) throw InputError("--tolerance", tol_accepted, tol.text);

  Certificate c;
  c.claim_id = "lemma-a2";
  std::string names;
  for (const Labelled& t : targets) names += (names.empty() ? "" : ", ") + t.label;
  c.statement = "for g = " + freq.label + " and each target phi in {" + names + "}: some n with 1 <= n <= " + std::to_string(N) +
                " has dist(n*g - phi, 2*pi*Z) < " + tol.label +
                " (n built from the continued fraction of g/(2*pi), certified in MPFI). The lemma is about every delta > 0 and n in Z: "
                "this is one delta and a finite range of n";
  nlohmann::json target_json = nlohmann::json::array();
  for (const Labelled& t : targets) target_json.push_back(t.label);
  c.parameters = {{"frequency", freq.label},
                  {"frequency_value", decimal_bounds(g, 25).lower},
                  {"tolerance", tol.label},
                  {"targets", target_json},
                  {"N", N},
                  {"scan_limit", kScanLimit},
                  {"precision_bits", precision.bits()}};
  // The table's configuration column: short, the full labels are in the parameters.
  const std::string short_g = freq.label.rfind("1 (g_1", 0) == 0 ? "1" : freq.label.rfind("g_119", 0) == 0 ? "g_119" : freq.label;
  c.parameters["configuration"] = "g=" + short_g + " delta=" + tol.label;
  c.method = "continued fraction of g/(2 pi) in MPFI, neighbour scan and walk by the convergent q_j in exact 64-bit fixed point, "
             "witness certified in MPFI at " + std::to_string(precision.bits()) + " bits; smallest n by exhaustive fixed-point scan";
  c.expected = Verdict::holds;

  bool all = true, only_beyond_n = true;
  nlohmann::json rows = nlohmann::json::array();
  for (const Labelled& t : targets) {
    const Interval phi = angle_option(t.text, t.text, "--phase", "a decimal or K*pi/M with |phi| <= 10^6");
    if (upper_of(abs(phi)) > 1000000) throw InputError("--phase", "a decimal or K*pi/M with |phi| <= 10^6", t.text);
    const DensityWitness w = approach_angle(g, phi, delta, N, kScanLimit);
    all = all && w.certified;
    // The construction is exact integer work: an n > N stays > N at any precision. Any other
    // failure (a convergent or a comparison not certified) may yield to more bits.
    if (!w.certified) only_beyond_n = only_beyond_n && w.n == 0 && w.reason.find("> N") != std::string::npos;
    const std::string p = "phi=" + t.label + ": ";
    if (w.n >= 1) {
      c.quantities.push_back(exact_integer(p + (w.n_by_scan ? "n found by scan" : "constructed n"), w.n));
      c.quantities.push_back(enclosure(p + "|n*g - phi - 2*pi*m|", w.distance, 6));
    }
    if (w.convergent_index >= 0) c.quantities.push_back(exact_integer(p + "a-priori bound on the constructed n", w.a_priori_bound));
    if (w.smallest_known) c.quantities.push_back(exact_integer(p + "smallest n (exhaustive)", w.smallest));
    nlohmann::json row = {{"target", t.label},
                          {"certified", w.certified},
                          {"constructed", w.constructed},
                          {"convergent_index", w.convergent_index},
                          {"q_j", w.q_j},
                          {"q_j_minus_1", w.q_prev},
                          {"a_priori_bound", w.a_priori_bound},
                          {"start", w.start},
                          {"steps", w.steps},
                          {"n", w.n},
                          {"n_by_scan", w.n_by_scan},
                          {"m", w.m},
                          {"smallest_known", w.smallest_known},
                          {"scanned_to", w.scanned_to}};
    if (w.n >= 1) row["distance"] = bounds_json(w.distance, 12);
    if (w.smallest_known) {
      row["smallest"] = w.smallest;
      row["smallest_distance_upper"] = decimal_bounds(w.smallest_distance, 12).upper;
    } else {
      row["smallest_note"] = w.smallest_note;
    }
    if (!w.reason.empty()) row["reason"] = w.reason;
    rows.push_back(row);
  }
  const CertifiedContinuedFraction cf = certified_continued_fraction(g / (2 * pi_value<Interval>()), kScanLimit);
  nlohmann::json quotients = nlohmann::json::array();
  for (size_t k = 0; k < std::min<size_t>(cf.quotients.size(), 16); ++k) quotients.push_back(cf.quotients[k]);
  c.details = {{"targets", rows}, {"continued_fraction_of_g_over_2pi_first_quotients", quotients}};
  // holds: every target has a certified witness n <= N. A missing witness never refutes the lemma
  // (it speaks of all n in Z; a rational g/(2 pi) is outside its real hypothesis), so it is
  // inconclusive, with the reason in the row.
  c.verdict = all ? Verdict::holds : Verdict::inconclusive;
  if (!all && only_beyond_n) c.details["precision_cannot_help"] = true;
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

}  // namespace

std::vector<Certificate> check_lemma_a2(const ClaimOptions& o) {
  struct Freq {
    Labelled l;
    bool gemma;
  };
  std::vector<Freq> freqs;
  if (o.frequency) freqs.push_back({{*o.frequency, *o.frequency}, false});
  else freqs = {{{"1 (g_1, the fastest pair of every RoPE model)", "1"}, false}, {{"g_119 of gemma-7b = 10000^(-236/256)", ""}, true}};
  std::vector<Labelled> tols;
  if (o.tolerance) tols.push_back({*o.tolerance, *o.tolerance});
  else tols = {{"1e-3", "1e-3"}, {"1e-6", "1e-6"}};
  std::vector<Labelled> targets;
  if (o.phase) targets.push_back({*o.phase, *o.phase});
  // 1 and 3 would be hit exactly at n = 1, 3 by g = 1; 3*pi/2 and 0.5 are on no short orbit.
  else targets = {{"pi/2", "pi/2"}, {"pi", "pi"}, {"3*pi/2", "3*pi/2"}, {"0.5", "0.5"}};
  const long long N = o.max_n.value_or(kDefaultN);

  std::vector<Certificate> out;
  for (const Freq& f : freqs)
    for (const Labelled& t : tols)
      out.push_back(certify_with_retry(o.precision_bits, o.max_precision_bits,
                                       [&](unsigned bits) { return check_one(f.l, t, targets, N, bits, f.gemma); }));
  return out;
}

}  // namespace ropecheck::proofs

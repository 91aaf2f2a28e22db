#include "lemma-a1.h"

#include <mpfi.h>

#include <chrono>
#include <limits>

#include "certificate/retry.h"
#include "numeric/decimal.h"
#include "spectrum/frequencies.h"

namespace ropecheck::proofs {

ClosestReturn closest_return(const Interval& g, long long N) {
  // Raw MPFI calls on preallocated values: this loop runs N times per frequency (8M times for
  // llama-3.1-8b) and Boost temporaries would double its cost.
  const mpfr_prec_t prec = mpfi_get_prec(g.backend().data());
  mpfi_t two_pi, x, m, d;
  mpfr_t two_pi_mid, two_pi_lo, mid, q, lo, hi, alt;
  for (mpfi_ptr v : {two_pi, x, m, d}) mpfi_init2(v, prec);
  for (mpfr_ptr v : {two_pi_mid, two_pi_lo, mid, q, lo, hi, alt}) mpfr_init2(v, prec);
  mpfi_const_pi(two_pi);
  mpfi_mul_ui(two_pi, two_pi, 2);
  mpfi_mid(two_pi_mid, two_pi);
  mpfi_get_left(two_pi_lo, two_pi);

  ClosestReturn best;
  best.lower = std::numeric_limits<double>::infinity();
  best.upper = std::numeric_limits<double>::infinity();
  for (long long n = 1; n <= N; ++n) {
    mpfi_mul_si(x, g.backend().data(), n);
    // j = the multiple of 2*pi nearest the midpoint. Any j gives a valid bound below; the nearest
    // makes it tight.
    mpfi_mid(mid, x);
    mpfr_div(q, mid, two_pi_mid, MPFR_RNDN);
    mpfr_rint(q, q, MPFR_RNDN);
    const long j = mpfr_get_si(q, MPFR_RNDN);
    mpfi_mul_si(m, two_pi, j);
    mpfi_sub(d, x, m);
    mpfi_abs(d, d);  // |n g - 2 pi j| over all g in the interval
    // For any other multiple j' != j: |n g - 2 pi j'| >= 2 pi - |n g - 2 pi j|. So
    // dist(n g, 2 pi Z) >= min(left(|d|), left(2 pi) - right(|d|)), rounded down.
    mpfi_get_left(lo, d);
    mpfi_get_right(hi, d);
    mpfr_sub(alt, two_pi_lo, hi, MPFR_RNDD);
    if (mpfr_cmp(alt, lo) < 0) mpfr_set(lo, alt, MPFR_RNDD);
    if (mpfr_sgn(lo) < 0) mpfr_set_zero(lo, 1);
    if (mpfr_cmp(lo, best.lower.backend().data()) < 0) {
      mpfr_set_prec(best.lower.backend().data(), prec);
      mpfr_set(best.lower.backend().data(), lo, MPFR_RNDD);
      best.n_at_lower = n;
    }
    // The distance to the multiple j is an upper bound on dist(n g, 2 pi Z).
    if (mpfr_cmp(hi, best.upper.backend().data()) < 0) {
      mpfr_set_prec(best.upper.backend().data(), prec);
      mpfr_set(best.upper.backend().data(), hi, MPFR_RNDU);
    }
  }
  for (mpfi_ptr v : {two_pi, x, m, d}) mpfi_clear(v);
  for (mpfr_ptr v : {two_pi_mid, two_pi_lo, mid, q, lo, hi, alt}) mpfr_clear(v);
  return best;
}

namespace {

Certificate check_one(const ResolvedSpectrum& rs, unsigned precision_bits) {
  const auto start = std::chrono::steady_clock::now();
  ScopedPrecision precision(precision_bits);
  const std::vector<Interval> g = frequencies<Interval>(rs.spectrum);
  const long long N = rs.context;

  Certificate c;
  c.claim_id = "lemma-a1";
  c.statement = "for every non-zero frequency g_k of " + rs.name + " and every 1 <= |n| <= " + std::to_string(N) +
                ", n*g_k is not a multiple of 2*pi (rigorous lower bound on dist(n*g_k, 2*pi*Z) > 0)";
  c.parameters = {{"configuration", rs.name},
                  {"spectrum", rs.spectrum.describe()},
                  {"N", N},
                  {"precision_bits", precision.bits()}};
  c.method = "interval arithmetic (MPFI), " + std::to_string(precision.bits()) + " bits, every n in 1..N per frequency";
  c.expected = Verdict::holds;

  bool all_decided = true;
  int checked = 0;
  Real global_lower = std::numeric_limits<double>::infinity();
  Real global_upper = std::numeric_limits<double>::infinity();
  long long global_n = 0;
  int global_k = 0;
  nlohmann::json rows = nlohmann::json::array();
  Real fastest_lower, fastest_upper;
  long long fastest_n = 0;
  bool have_fastest = false;
  for (int k = 0; k < rs.spectrum.pairs(); ++k) {
    if (!rs.spectrum.rotated(k)) continue;  // g = 0 is outside the lemma's hypothesis g != 0
    ++checked;
    const ClosestReturn cr = closest_return(g[k], N);
    const bool decided = cr.lower > 0;
    all_decided = all_decided && decided;
    rows.push_back({{"k", k + 1},
                    {"g", to_decimal(midpoint(g[k]), 20)},
                    {"n_at_min", cr.n_at_lower},
                    {"min_distance_lower", to_decimal(cr.lower, 12, Rounding::down)},
                    {"min_distance_upper", to_decimal(cr.upper, 12, Rounding::up)},
                    {"decided", decided}});
    if (cr.lower < global_lower) {
      global_lower = cr.lower;
      global_n = cr.n_at_lower;
      global_k = k + 1;
    }
    if (cr.upper < global_upper) global_upper = cr.upper;
    if (!have_fastest) {
      have_fastest = true;
      fastest_lower = cr.lower;
      fastest_upper = cr.upper;
      fastest_n = cr.n_at_lower;
    }
  }
  c.details = {{"frequencies", rows}, {"excluded_zero_frequencies", rs.spectrum.pairs() - checked}};
  c.quantities.push_back(exact_integer("non-zero frequencies checked", checked));
  if (checked > 0) {
    c.quantities.push_back(real_bounds("min over k, n of dist(n*g_k, 2*pi*Z)", global_lower, global_upper, 12));
    c.quantities.push_back(exact_integer("pair k of that minimum", global_k));
    c.quantities.push_back(exact_integer("n of that minimum", global_n));
    c.quantities.push_back(real_bounds("fastest rotated pair: min over n of dist(n*g, 2*pi*Z)", fastest_lower, fastest_upper, 12));
    c.quantities.push_back(exact_integer("fastest rotated pair: n of that minimum", fastest_n));
  }
  // Holds only when every bound was decided; an undecided bound is inconclusive, never a pass.
  // With no non-zero frequency (nope) the lemma is vacuous: nothing to check, reported as such.
  c.verdict = all_decided ? Verdict::holds : Verdict::inconclusive;
  if (checked == 0) c.details["note"] = "no non-zero frequency: the lemma's hypothesis g != 0 never applies (vacuous)";
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

}  // namespace

std::vector<Certificate> check_lemma_a1(const ClaimOptions& options) {
  std::vector<Certificate> out;
  const SpectrumRequest& r = options.spectrum;
  if (r.config || r.dim) {
    const ResolvedSpectrum rs = resolve(r);
    out.push_back(certify_with_retry(options.precision_bits, options.max_precision_bits, [&](unsigned b) { return check_one(rs, b); }));
  } else {
    for (const char* name : {"gemma-7b", "llama-3.1-8b"}) {
      const ResolvedSpectrum rs = resolve(r, std::string(name));
      out.push_back(certify_with_retry(options.precision_bits, options.max_precision_bits, [&](unsigned b) { return check_one(rs, b); }));
    }
  }
  return out;
}

}  // namespace ropecheck::proofs

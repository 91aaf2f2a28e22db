#include "thm-5.3.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <optional>

#include "certificate/retry.h"
#include "claims/decimal_option.h"
#include "io/input_error.h"
#include "lemma-a1.h"
#include "numeric/decimal.h"
#include "positional-heads.h"

namespace ropecheck::proofs {

namespace {

constexpr long long kShortN = 8192;          // N for every K (min with the context)
constexpr long long kMaxN = 1LL << 20;       // --max-n cap: the gap table holds N intervals per K
constexpr long long kSweepN = 131072;        // the sweep's default largest N (llama-3.1-8b's context)
constexpr int kSpreadK = 16;                 // the middle spread the issue asks for

// The claim's parameters, validated once (InputError naming the flag) before any computation.
struct Plan {
  std::vector<std::string> epsilons;  // decimal texts, parsed at each attempt's precision
  std::string tolerance_text;
  double tolerance = 1e-6;
  std::optional<long long> max_n;
  std::string frequency_text;
};

Plan make_plan(const ClaimOptions& o) {
  ScopedPrecision p(o.precision_bits);
  Plan plan;
  const std::string eps_range = "a decimal in (0, 1/2) (thm-5.3)";
  plan.epsilons = o.epsilon ? std::vector<std::string>{*o.epsilon} : std::vector<std::string>{"0.1", "0.01"};
  for (const std::string& e : plan.epsilons) {
    const Interval eps = decimal_option(e, e, "--epsilon", eps_range);
    if (!(lower_of(eps) > 0) || !(upper_of(eps) < Real(0.5))) throw InputError("--epsilon", eps_range, e);
  }
  plan.tolerance_text = o.tolerance.value_or("1e-6");
  const std::string tol_range = "a decimal in [1e-12, 0.1] (thm-5.3: relative width of the norm bracket)";
  const Interval tol = decimal_option(plan.tolerance_text, plan.tolerance_text, "--tolerance", tol_range);
  if (lower_of(tol) < Real(1e-12) || upper_of(tol) > Real(0.1)) throw InputError("--tolerance", tol_range, plan.tolerance_text);
  plan.tolerance = to_double(tol);
  if (o.max_n && (*o.max_n < 2 || *o.max_n > kMaxN))
    throw InputError("--max-n", "an integer in [2, " + std::to_string(kMaxN) + "] (thm-5.3: positions 1..N)", std::to_string(*o.max_n));
  plan.max_n = o.max_n;
  plan.frequency_text = o.frequency.value_or("1");
  const std::string g_range = "a decimal in (0, 1000] (thm-5.3: the sweep's frequency, radians per token)";
  const Interval g = decimal_option(plan.frequency_text, plan.frequency_text, "--frequency", g_range);
  if (!(lower_of(g) > 0) || upper_of(g) > 1000) throw InputError("--frequency", g_range, plan.frequency_text);
  return plan;
}

nlohmann::json bracket_json(const NormBracket& b, int K) {
  nlohmann::json j = {{"certified", b.certified},
                      {"min_gap_offset", b.min_gap_offset},
                      {"min_gap_lower", to_decimal(b.min_gap_lower, 12, Rounding::down)},
                      {"min_gap_upper", to_decimal(b.min_gap_upper, 12, Rounding::up)},
                      {"evaluations", b.evaluations}};
  if (b.certified) {
    j["s_lo"] = to_decimal(b.s_lo, 20, Rounding::down);
    j["s_hi"] = to_decimal(b.s_hi, 20, Rounding::up);
    // Each of the K pairs carries s/K: the per-chunk squared norm a model would need.
    j["chunk_norm_squared_hi"] = to_decimal(Real(b.s_hi / K), 12, Rounding::up);
    j["attention_at_s_lo"] = bounds_json(b.attention_at_lo, 12);
    j["attention_at_s_hi"] = bounds_json(b.attention_at_hi, 12);
  } else {
    j["note"] = b.note;
  }
  return j;
}

Quantity bracket_quantity(const std::string& name, const NormBracket& b) {
  if (b.certified) return real_bounds(name, b.s_lo, b.s_hi, 12);
  return {name, "not certified", "not certified", "estimate"};
}

std::vector<long long> sizes_for(int K, long long context, const Plan& plan) {
  if (plan.max_n) return {*plan.max_n};
  const long long short_n = std::min(context, kShortN);
  std::vector<long long> n = {short_n};
  if (K <= kSpreadK && context > short_n) n.push_back(context);
  return n;
}

Certificate check_configuration(const ResolvedSpectrum& rs, const Plan& plan, const ClaimOptions& o) {
  if (!plan.max_n && rs.context < 2)
    throw InputError("--context", "an integer >= 2 (thm-5.3 needs two positions)", std::to_string(rs.context));
  const auto start = std::chrono::steady_clock::now();
  Certificate c = certify_with_retry(o.precision_bits, o.max_precision_bits, [&](unsigned bits) {
    ScopedPrecision precision(bits);
    Certificate c;
    c.claim_id = "thm-5.3";
    c.expected = Verdict::holds;
    const int R = rs.spectrum.rotated_pairs();
    std::vector<int> Ks;
    for (int K : {1, kSpreadK, R})
      if (K >= 1 && K <= R && std::find(Ks.begin(), Ks.end(), K) == Ks.end()) Ks.push_back(K);
    nlohmann::json sizes = nlohmann::json::object();
    for (int K : Ks) sizes[std::to_string(K)] = sizes_for(K, rs.context, plan);
    c.statement = "for " + rs.name + ", diagonal head (q_i = k_j = psi) and previous-token head (q_i = psi, k_j = R psi), " +
                  "||psi||^2 = s spread evenly over the K fastest rotating pairs, positions 1..N: the smallest s with " +
                  "alpha_{i,target} > 1 - eps for every i <= N is finite and lies in the certified bracket, for each " +
                  "(head, K, N, eps) listed (the theorem is for every eps > 0 and N; checked on these finitely many)";
    c.parameters = {{"configuration", rs.name},
                    {"spectrum", rs.spectrum.describe()},
                    {"K", Ks},
                    {"N_per_K", sizes},
                    {"epsilon", plan.epsilons},
                    {"relative_tolerance", plan.tolerance_text},
                    {"positions", "1..N, the first (BOS) carries the construction like every other"},
                    {"precision_bits", precision.bits()}};
    c.method = "interval arithmetic (MPFI), " + std::to_string(precision.bits()) +
               " bits: 1 - c(m) from sin^2(m g_k / 2) by angle addition for every offset, bracket by certified " +
               "evaluations of the off-target softmax mass of row N";
    if (R == 0) {
      c.verdict = Verdict::inconclusive;
      c.details = {{"note", "no rotating pair: every c(m) = 1, the NoPE case of Proposition 5.2; no finite norm works"}};
      return c;
    }
    std::vector<Interval> eps;
    for (const std::string& e : plan.epsilons) eps.push_back(from_decimal<Interval>(e));
    // One gap table per K, to the largest N that K is checked at; the K sharing that N share the
    // per-pair work (even_spread_gaps), so K = all at 131072 is never computed by default.
    std::map<int, std::vector<Interval>> tables;
    std::map<long long, std::vector<int>> by_size;
    for (int K : Ks) {
      const std::vector<long long> Ns = sizes_for(K, rs.context, plan);
      by_size[*std::max_element(Ns.begin(), Ns.end())].push_back(K);
    }
    for (const auto& [n, group] : by_size) {
      std::vector<std::vector<Interval>> t = even_spread_gaps(rs.spectrum, group, n - 1);
      for (size_t i = 0; i < group.size(); ++i) tables[group[i]] = std::move(t[i]);
    }
    bool all = true;
    nlohmann::json rows = nlohmann::json::array();
    for (int K : Ks) {
      const std::vector<long long> Ns = sizes_for(K, rs.context, plan);
      const std::vector<Interval>& gaps = tables.at(K);
      const std::string k_label = "K=" + std::to_string(K) + (K == R && K > 1 ? " (all)" : "");
      for (long long N : Ns) {
        bool gap_reported = false;
        for (PositionalHead head : {PositionalHead::diagonal, PositionalHead::previous_token}) {
          for (size_t e = 0; e < eps.size(); ++e) {
            const NormBracket b = minimal_norm(gaps, head, N, eps[e], plan.tolerance);
            all = all && b.certified;
            if (!gap_reported) {
              gap_reported = true;
              c.quantities.push_back(real_bounds(k_label + " N=" + std::to_string(N) + ": min over 1 <= m < N of 1 - c(m) (at m = " +
                                          std::to_string(b.min_gap_offset) + ")", b.min_gap_lower, b.min_gap_upper, 12));
            }
            c.quantities.push_back(bracket_quantity(head_name(head) + " " + k_label + " N=" + std::to_string(N) +
                                                        " eps=" + plan.epsilons[e] + ": min ||psi||^2",
                                                    b));
            nlohmann::json row = bracket_json(b, K);
            row["head"] = head_name(head);
            row["K"] = K;
            row["N"] = N;
            row["epsilon"] = plan.epsilons[e];
            rows.push_back(row);
          }
        }
      }
    }
    c.details = {{"brackets", rows}};
    // holds: every bracket has a certified working norm. A numerical check cannot show that no norm
    // works (that needs an exact return), so an uncertified bracket is inconclusive, never fails.
    c.verdict = all ? Verdict::holds : Verdict::inconclusive;
    return c;
  });
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

// The single-frequency sweep: d = 2, all the norm on one pair of frequency g, diagonal head. s*(N)
// jumps when N - 1 reaches a new closest return n of n g to 2 pi Z (for g = 1: n = 6, 19, 25, 44,
// 333, 710, 103993, the numerators of the continued-fraction convergents of 2 pi).
Certificate check_single_frequency(const Plan& plan, const ClaimOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  const long long n_max = plan.max_n.value_or(kSweepN);
  Certificate c = certify_with_retry(o.precision_bits, o.max_precision_bits, [&](unsigned bits) {
    ScopedPrecision precision(bits);
    Certificate c;
    c.claim_id = "thm-5.3";
    c.expected = Verdict::holds;
    const Interval g = from_decimal<Interval>(plan.frequency_text);
    const std::vector<Interval> gaps = alignment_gaps({g}, {Interval(1)}, n_max - 1);
    // The N shown: n and n + 1 for every record n (an offset closer to a return than all before it;
    // chosen on lower bounds, which only decides which rows are printed), plus 2 and n_max.
    std::vector<long long> Ns = {2, n_max};
    Real best = std::numeric_limits<double>::infinity();
    for (long long m = 1; m < n_max; ++m) {
      const Real lo = lower_of(gaps[m]);
      if (lo < best) {
        best = lo;
        if (m >= 2) Ns.push_back(m);
        if (m + 1 <= n_max) Ns.push_back(m + 1);
      }
    }
    std::sort(Ns.begin(), Ns.end());
    Ns.erase(std::unique(Ns.begin(), Ns.end()), Ns.end());
    c.statement = "single frequency g = " + plan.frequency_text + " (d = 2, all of ||psi||^2 on that pair), diagonal head: " +
                  "the smallest s = ||psi||^2 with alpha_{i,i} > 1 - eps for every i <= N lies in the certified bracket, " +
                  "for N at the closest returns n of n g to 2 pi Z (N = n, n + 1) up to " + std::to_string(n_max);
    c.parameters = {{"configuration", "single frequency g=" + plan.frequency_text},
                    {"frequency", plan.frequency_text},
                    {"N", Ns},
                    {"epsilon", plan.epsilons},
                    {"relative_tolerance", plan.tolerance_text},
                    {"positions", "1..N, the first (BOS) carries the construction like every other"},
                    {"precision_bits", precision.bits()}};
    c.method = "interval arithmetic (MPFI), " + std::to_string(precision.bits()) +
               " bits: 1 - cos(m g) = 2 sin^2(m g / 2) per offset, closest returns by lemma-a1's closest_return, " +
               "bracket by certified evaluations of the off-target softmax mass of row N";
    bool all = true;
    nlohmann::json rows = nlohmann::json::array();
    std::vector<Real> previous(plan.epsilons.size());
    for (long long N : Ns) {
      const ClosestReturn cr = closest_return(g, N - 1);
      for (size_t e = 0; e < plan.epsilons.size(); ++e) {
        const Interval eps = from_decimal<Interval>(plan.epsilons[e]);
        const NormBracket b = minimal_norm(gaps, PositionalHead::diagonal, N, eps, plan.tolerance);
        all = all && b.certified;
        c.quantities.push_back(bracket_quantity("N=" + std::to_string(N) + " eps=" + plan.epsilons[e] +
                                                    ": min ||psi||^2 (closest return n=" + std::to_string(cr.n_at_lower) + ")",
                                                b));
        nlohmann::json row = bracket_json(b, 1);
        row["N"] = N;
        row["epsilon"] = plan.epsilons[e];
        row["closest_return_n"] = cr.n_at_lower;
        row["closest_return_distance_lower"] = to_decimal(cr.lower, 12, Rounding::down);
        row["closest_return_distance_upper"] = to_decimal(cr.upper, 12, Rounding::up);
        if (b.certified) {
          // Since e^(-s d_min) <= T_N(s) <= (N - 1) e^(-s d_min), s* lies in
          // [ln(1/t) / d_min, ln((N-1)/t) / d_min]: the closest return alone fixes s* within the factor
          // ln((N-1)/t) / ln(1/t), whatever the other offsets do. Rigorous (d_min enclosed by the gaps).
          const Interval t = eps / (1 - eps);
          const Interval dmin = hull_of(Interval(b.min_gap_lower), Interval(b.min_gap_upper));
          const Interval below = log(1 / t) / dmin, above = log(Interval(N - 1) / t) / dmin;
          row["closest_return_sandwich"] = {{"lower", decimal_bounds(below, 12).lower}, {"upper", decimal_bounds(above, 12).upper}};
          if (previous[e] > 0) row["jump_factor_from_previous_N"] = to_decimal(Real(b.s_hi / previous[e]), 6);
          previous[e] = b.s_hi;
        }
        rows.push_back(row);
      }
    }
    c.details = {{"sweep", rows}};
    c.verdict = all ? Verdict::holds : Verdict::inconclusive;
    return c;
  });
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

}  // namespace

std::vector<Certificate> check_thm_5_3(const ClaimOptions& options) {
  const Plan plan = make_plan(options);
  std::vector<Certificate> out;
  const SpectrumRequest& r = options.spectrum;
  if (r.config || r.dim) {
    out.push_back(check_configuration(resolve(r), plan, options));
  } else {
    for (const char* name : {"gemma-7b", "llama-3.1-8b"}) out.push_back(check_configuration(resolve(r, std::string(name)), plan, options));
  }
  out.push_back(check_single_frequency(plan, options));
  return out;
}

}  // namespace ropecheck::proofs

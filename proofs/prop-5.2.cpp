#include "prop-5.2.h"

#include <mpfi.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>

#include "attention/softmax.h"
#include "certificate/retry.h"
#include "io/input_error.h"
#include "numeric/decimal.h"
#include "random/counter_rng.h"
#include "spectrum/frequencies.h"

namespace ropecheck::proofs {
namespace {

bool exactly_zero(const Interval& v) { return mpfi_is_zero(v.backend().data()) != 0; }

// W x in MPFI. An entry that is exactly [0, 0] contributes exactly 0 for a finite x, so it is
// skipped: the constructed d = 256 heads are rank one or diagonal, and skipping makes their
// projections O(d) instead of O(d^2).
Vector<Interval> project(const Matrix<Interval>& W, const Vector<Interval>& x) {
  Vector<Interval> out(W.rows());
  for (Eigen::Index r = 0; r < W.rows(); ++r) {
    Interval sum(0);
    for (Eigen::Index c = 0; c < W.cols(); ++c)
      if (!exactly_zero(W(r, c))) sum += Interval(W(r, c) * x[c]);
    out[r] = sum;
  }
  return out;
}

bool same_endpoints(const Interval& a, const Interval& b) {
  return lower_of(a) == lower_of(b) && upper_of(a) == upper_of(b);
}

}  // namespace

RepeatedTokenAttention repeated_token_attention(const AttentionHead& head, const std::vector<Vector<Interval>>& prefix,
                                                const Vector<Interval>& x, const std::vector<Interval>& g) {
  const Eigen::Index d = static_cast<Eigen::Index>(2 * g.size()), m = x.size();
  if (prefix.empty()) throw std::invalid_argument("repeated_token_attention: the prefix needs at least the BOS token");
  if (head.W_Q.rows() != d || head.W_K.rows() != d || head.W_Q.cols() != m || head.W_K.cols() != m)
    throw std::invalid_argument("repeated_token_attention: W_Q and W_K must be d x m with d = 2 * (number of frequencies) = " +
                                std::to_string(d) + " and m = the token size = " + std::to_string(m));
  for (const Vector<Interval>& t : prefix)
    if (t.size() != m) throw std::invalid_argument("repeated_token_attention: every token must have the size of x");

  const Eigen::Index n = static_cast<Eigen::Index>(prefix.size()) + 2;
  Matrix<Interval> Q(n, d), K(n, d);
  for (Eigen::Index t = 0; t + 2 < n; ++t) {
    Q.row(t) = project(head.W_Q, prefix[static_cast<size_t>(t)]).transpose();
    K.row(t) = project(head.W_K, prefix[static_cast<size_t>(t)]).transpose();
  }
  // The repeated token is projected once and copied: rows n-2 and n-1 hold the very same values.
  const Vector<Interval> qx = project(head.W_Q, x), kx = project(head.W_K, x);
  Q.row(n - 2) = qx.transpose();
  Q.row(n - 1) = qx.transpose();
  K.row(n - 2) = kx.transpose();
  K.row(n - 1) = kx.transpose();
  std::vector<std::int64_t> positions(static_cast<size_t>(n));
  for (Eigen::Index t = 0; t < n; ++t) positions[static_cast<size_t>(t)] = t;

  const Matrix<Interval> A = causal_activations(Q, K, positions, g);
  const Matrix<Interval> alpha = causal_attention(A);

  RepeatedTokenAttention r;
  r.n = n;
  r.activations = A.row(n - 1).transpose();
  r.row = alpha.row(n - 1).transpose();
  r.a_last = A(n - 1, n - 1);
  r.a_prev = A(n - 1, n - 2);
  r.alpha_last = alpha(n - 1, n - 1);
  r.alpha_prev = alpha(n - 1, n - 2);
  r.equal_by_construction = true;
  for (const Interval& gk : g) r.equal_by_construction = r.equal_by_construction && exactly_zero(gk);
  r.enclosures_identical = same_endpoints(r.a_last, r.a_prev) && same_endpoints(r.alpha_last, r.alpha_prev);
  r.last_above_half = lower_of(r.alpha_last) > 0.5;
  r.prev_above_half = lower_of(r.alpha_prev) > 0.5;
  const bool direct_below = upper_of(r.alpha_last) < 0.5 && upper_of(r.alpha_prev) < 0.5;
  if (!r.equal_by_construction) {
    r.routes_agree = true;
    r.at_most_half = upper_of(r.alpha_last) <= 0.5 && upper_of(r.alpha_prev) <= 0.5;
    r.below_half = direct_below;
    return r;
  }
  // With a_(n,n-1) = a_(n,n) the row's normaliser is exp(a_(n,n)) (2 + S). The direct enclosure of
  // alpha_(n,n) is about 1/2 +- 2^-prec, so it cannot separate alpha from 1/2 once S < ~2^-prec
  // (a sharp head: a_(n,n) - a_(n,k) > ~prec * log 2 for every k). The margin S/(2(2 + S)) carries
  // S's relative accuracy instead, and its lower bound is > 0 whenever exp(a_(n,k) - a_(n,n)) does
  // not underflow MPFR's exponent range (arguments above ~ -7.4e8): strictness is then certified at
  // any precision.
  const Interval two(2);
  Interval S(0);
  for (Eigen::Index k = 0; k + 2 < n; ++k) S += Interval(exp(Interval(A(n - 1, k) - r.a_last)));
  r.closed_form = Interval(1) / (two + S);
  // S/(2(2 + S)) written as 1/(2 (1 + 2/S)) when S > 0, so that an overflowed S = [big, +inf] gives
  // [0, ...]-free arithmetic instead of inf/inf.
  if (certainly_positive(S)) r.closed_form_margin = Interval(1) / (two * (Interval(1) + two / S));
  else r.closed_form_margin = S / (two * (two + S));
  r.routes_agree = overlaps(r.closed_form, r.alpha_last);
  r.at_most_half = upper_of(r.closed_form) <= 0.5;
  r.below_half = direct_below || certainly_positive(r.closed_form_margin);
  return r;
}

namespace {

// Stream id of this check's random heads in the counter-based RNG: ASCII "prop-5.2".
constexpr std::uint64_t kHeadStream = 0x70726f702d352e32ULL;
constexpr long long kDefaultSignTrials = 200;
constexpr long long kDefaultMaxLength = 8;
constexpr long long kMaxLength = 512;
constexpr int kRandomDim = 16;

// A head and the sequence [prefix..., x, x] it reads, built at the current precision.
struct Case {
  std::string name;
  AttentionHead head;
  std::vector<Vector<Interval>> prefix;
  Vector<Interval> x;
};

Vector<Interval> unit(Eigen::Index m, Eigen::Index k, double scale = 1) {
  Vector<Interval> v = Vector<Interval>::Constant(m, Interval(0));
  v[k] = Interval(scale);
  return v;
}

// W = u (e_0 + e_1)^T: every token e_0 (the BOS) and e_1 (x) projects to u.
Matrix<Interval> rank_one(const Vector<Interval>& u, Eigen::Index m) {
  Matrix<Interval> W = Matrix<Interval>::Constant(u.size(), m, Interval(0));
  for (Eigen::Index r = 0; r < u.size(); ++r) {
    W(r, 0) = u[r];
    W(r, 1) = u[r];
  }
  return W;
}

Matrix<Interval> scaled_identity(Eigen::Index d, double c) {
  Matrix<Interval> W = Matrix<Interval>::Constant(d, d, Interval(0));
  for (Eigen::Index r = 0; r < d; ++r) W(r, r) = Interval(c);
  return W;
}

// Theorem 5.3's constructions on [bos, x, x] (tokens e_0, e_1 in R^d): psi = 3 e_0 lives on the
// fastest pair (g_1 = 1 under RoPE); diagonal: q = k = psi for every token; previous-token: q = psi,
// k = rho(g_1) psi. Under RoPE psi = 3 already gives alpha ~ 0.98 resp. 0.97 (the paper's "softmax
// is sharp": chunk norms of a few units suffice); under NoPE the same weights give 1/3 each.
Case theorem_5_3_case(Eigen::Index d, bool previous_token) {
  const Vector<Interval> psi = unit(d, 0, 3);
  Vector<Interval> key = psi;
  if (previous_token) {
    Interval s, c;
    sin_cos(Interval(1), s, c);  // rho(g_1) with g_1 = theta^0 = 1 exactly
    key[0] = Interval(3 * c);
    key[1] = Interval(3 * s);
  }
  Case k;
  k.name = previous_token ? "Theorem 5.3 previous-token weights (q = psi, k = rho(g_1) psi, |psi| = 3)"
                          : "Theorem 5.3 diagonal weights (q = k = psi, |psi| = 3)";
  k.head = {rank_one(psi, d), rank_one(key, d)};
  k.prefix = {unit(d, 0)};
  k.x = unit(d, 1);
  return k;
}

std::vector<Case> constructed_nope_cases(Eigen::Index d) {
  std::vector<Case> cases = {theorem_5_3_case(d, false), theorem_5_3_case(d, true)};
  // As diagonal as NoPE gets: q_x = k_x = 16 x with the BOS orthogonal, a_(3,3) = 256 = a_(3,2) and
  // a_(3,1) = 0, so alpha_(3,3) = 1/(2 + e^-256), 2^-372 below 1/2: the direct enclosure would need
  // ~400 bits, the closed-form margin decides it at any precision.
  cases.push_back({"W_Q = W_K = 16 I, BOS orthogonal to x (as diagonal as NoPE gets)", {scaled_identity(d, 16), scaled_identity(d, 16)},
                   {unit(d, 0)}, unit(d, 1)});
  // Attending to the BOS as hard as it can: x_bos = 2 x, W = 4 I, a_(3,1) = 32, a_(3,3) = 16.
  cases.push_back({"W_Q = W_K = 4 I, x_bos = 2 x (attends to the BOS)", {scaled_identity(d, 4), scaled_identity(d, 4)},
                   {unit(d, 0, 2)}, unit(d, 0)});
  return cases;
}

// Random head t: W_Q, W_K entries 2^e u (u uniform dyadic in [-1, 1), multiples of 2^-52, e uniform
// in [-2, 2] per matrix), n uniform in [3, max_n], tokens uniform dyadic in [-1, 1)^m; the last two
// tokens are one vector x. Counters: (t << 32) + slot, slots 0..2 for n and the scales, from 16 on
// the entries of W_Q, W_K and the n - 1 distinct tokens, so heads never share a counter.
Case random_case(std::uint64_t seed, long long t, long long max_n, int d) {
  const CounterRng rng(seed, kHeadStream);
  const std::uint64_t base = static_cast<std::uint64_t>(t) << 32;
  const long long n = 3 + static_cast<long long>(rng.bits(base) % static_cast<std::uint64_t>(max_n - 2));
  const int eq = static_cast<int>(rng.bits(base + 1) % 5) - 2, ek = static_cast<int>(rng.bits(base + 2) % 5) - 2;
  std::uint64_t next = base + 16;
  auto matrix = [&](int e) {
    Matrix<Interval> W(d, d);
    for (int r = 0; r < d; ++r)
      for (int c = 0; c < d; ++c) W(r, c) = Interval(std::ldexp(rng.uniform_dyadic(next++), e));
    return W;
  };
  auto token = [&] {
    Vector<Interval> v(d);
    for (int c = 0; c < d; ++c) v[c] = Interval(rng.uniform_dyadic(next++));
    return v;
  };
  Case k;
  k.name = "random head " + std::to_string(t) + " (n = " + std::to_string(n) + ")";
  k.head.W_Q = matrix(eq);
  k.head.W_K = matrix(ek);
  for (long long p = 0; p + 2 < n; ++p) k.prefix.push_back(token());
  k.x = token();
  return k;
}

nlohmann::json case_json(const Case& k, const RepeatedTokenAttention& r) {
  nlohmann::json j = {{"head", k.name},
                      {"n", r.n},
                      {"a_nn", bounds_json(r.a_last)},
                      {"a_n_n-1", bounds_json(r.a_prev)},
                      {"alpha_nn", bounds_json(r.alpha_last)},
                      {"alpha_n_n-1", bounds_json(r.alpha_prev)},
                      {"equal_by_construction", r.equal_by_construction},
                      {"enclosures_identical", r.enclosures_identical},
                      {"below_half", r.below_half},
                      {"last_above_half", r.last_above_half},
                      {"prev_above_half", r.prev_above_half}};
  if (r.equal_by_construction) {
    j["closed_form_alpha_nn"] = bounds_json(r.closed_form);
    j["half_minus_alpha_nn (closed form)"] = bounds_json(r.closed_form_margin);
    j["routes_agree"] = r.routes_agree;
    j["decided_by"] = upper_of(r.alpha_last) < 0.5 ? "direct softmax enclosure"
                      : r.below_half             ? "closed-form margin (direct enclosure touches 1/2)"
                                                 : "undecided";
  }
  return j;
}

// The NoPE certificate over the cases make_cases() builds at `bits` (built inside the precision
// scope, so decimal and sin/cos inputs are enclosed at the working precision).
Certificate certify_nope_cases(const std::function<std::vector<Case>()>& make_cases, int d, const std::string& group,
                               bool per_case_details, unsigned bits, const nlohmann::json& parameters) {
  ScopedPrecision precision(bits);
  const std::vector<Interval> g = frequencies<Interval>(Spectrum(d, "10000", Variant::nope));
  const std::vector<Case> cases = make_cases();
  Certificate c;
  c.claim_id = "prop-5.2";
  c.parameters = parameters;
  c.parameters["configuration"] = group;
  c.parameters["spectrum"] = Spectrum(d, "10000", Variant::nope).describe();
  c.parameters["precision_bits"] = precision.bits();
  c.method = "interval arithmetic (MPFI), " + std::to_string(precision.bits()) +
             " bits: causal_activations + causal_attention on [bos, ..., x, x]; equality a_nn = a_n,n-1 from k_n = k_n-1 and "
             "g = 0 exactly; strictness from the direct enclosure or the proof's closed form 1/2 - alpha = S/(2(2+S))";
  c.expected = Verdict::holds;

  long long certified = 0, inconclusive = 0, counterexamples = 0;
  bool have_best = false, have_margin = false;
  Interval best_alpha, smallest_margin;
  std::string best_name, margin_name;
  nlohmann::json rows = nlohmann::json::array(), undecided = nlohmann::json::array();
  for (const Case& k : cases) {
    const RepeatedTokenAttention r = repeated_token_attention(k.head, k.prefix, k.x, g);
    const bool ok = r.certified_nope();
    if (ok) ++certified;
    else if (r.last_above_half || r.prev_above_half) ++counterexamples;
    else ++inconclusive;
    if (ok && (!have_best || upper_of(r.alpha_last) > upper_of(best_alpha))) {
      have_best = true;
      best_alpha = r.alpha_last;
      best_name = k.name;
    }
    if (ok && (!have_margin || lower_of(r.closed_form_margin) < lower_of(smallest_margin))) {
      have_margin = true;
      smallest_margin = r.closed_form_margin;
      margin_name = k.name;
    }
    if (per_case_details) rows.push_back(case_json(k, r));
    else if (!ok && undecided.size() < 20) undecided.push_back(case_json(k, r));
  }
  c.statement = "for each of " + std::to_string(cases.size()) + " " + group +
                " NoPE heads on [x_bos, ..., x, x] (n tokens, the last repeating the previous one): alpha_(n,n) = alpha_(n,n-1) < 1/2, so "
                "neither alpha_(n,n) > 1 - eps (diagonal) nor alpha_(n,n-1) > 1 - eps (previous-token) holds for any eps <= 1/2";
  c.quantities.push_back(exact_integer("heads certified", certified));
  c.quantities.push_back(exact_integer("heads inconclusive", inconclusive));
  c.quantities.push_back(exact_integer("heads with alpha_(n,n) or alpha_(n,n-1) > 1/2 certified", counterexamples));
  if (have_best) c.quantities.push_back(enclosure("largest alpha_(n,n) = alpha_(n,n-1) (" + best_name + ")", best_alpha));
  if (have_margin) c.quantities.push_back(enclosure("smallest 1/2 - alpha_(n,n), closed form (" + margin_name + ")", smallest_margin));
  c.details = nlohmann::json::object();
  if (per_case_details) c.details["heads"] = rows;
  else c.details["undecided_heads (first 20)"] = undecided;
  // holds: every head certified. fails: some head certainly puts more than 1/2 on the last or the
  // previous token (which the proposition excludes). Otherwise inconclusive, never a pass.
  c.verdict = certified == static_cast<long long>(cases.size()) ? Verdict::holds
              : counterexamples > 0                             ? Verdict::fails
                                                                : Verdict::inconclusive;
  return c;
}

// The RoPE contrast: Theorem 5.3's two constructions under a rotating spectrum, certified > 1/2.
Certificate certify_rope_contrast(const ResolvedSpectrum& rs, unsigned bits) {
  ScopedPrecision precision(bits);
  const std::vector<Interval> g = frequencies<Interval>(rs.spectrum);
  const Eigen::Index d = rs.spectrum.dim();
  const Case diagonal = theorem_5_3_case(d, false), previous = theorem_5_3_case(d, true);
  const RepeatedTokenAttention rd = repeated_token_attention(diagonal.head, diagonal.prefix, diagonal.x, g);
  const RepeatedTokenAttention rp = repeated_token_attention(previous.head, previous.prefix, previous.x, g);
  Certificate c;
  c.claim_id = "prop-5.2";
  c.statement = "contrast: with RoPE (" + rs.name + "), on [bos, x, x] Theorem 5.3's diagonal weights give alpha_(3,3) > 1/2 and its "
                "previous-token weights give alpha_(3,2) > 1/2, so the NoPE obstruction is specific to NoPE";
  c.parameters = {{"configuration", rs.name + " (RoPE contrast)"}, {"spectrum", rs.spectrum.describe()},
                  {"psi", "3 e_1 (the fastest pair, g_1 = 1)"}, {"precision_bits", precision.bits()}};
  c.method = "interval arithmetic (MPFI), " + std::to_string(precision.bits()) + " bits: causal_activations + causal_attention";
  c.expected = Verdict::holds;
  c.quantities.push_back(enclosure("diagonal weights: alpha_(3,3)", rd.alpha_last));
  c.quantities.push_back(enclosure("diagonal weights: alpha_(3,2)", rd.alpha_prev));
  c.quantities.push_back(enclosure("previous-token weights: alpha_(3,2)", rp.alpha_prev));
  c.quantities.push_back(enclosure("previous-token weights: alpha_(3,3)", rp.alpha_last));
  c.details = {{"diagonal", case_json(diagonal, rd)}, {"previous_token", case_json(previous, rp)}};
  // holds: both certified > 1/2. fails: one is certainly below 1/2 (e.g. a NoPE spectrum was asked
  // for). Otherwise inconclusive.
  const bool both = rd.last_above_half && rp.prev_above_half;
  const bool refuted = upper_of(rd.alpha_last) < 0.5 || upper_of(rp.alpha_prev) < 0.5;
  c.verdict = both ? Verdict::holds : refuted ? Verdict::fails : Verdict::inconclusive;
  return c;
}

}  // namespace

std::vector<Certificate> check_prop_5_2(const ClaimOptions& o) {
  const long long max_n = o.max_n.value_or(kDefaultMaxLength);
  if (max_n < 3 || max_n > kMaxLength)
    throw InputError("--max-n", "an integer in [3, " + std::to_string(kMaxLength) + "] (the longest random sequence)", std::to_string(max_n));
  const long long trials = o.trials.value_or(kDefaultSignTrials);
  if (trials < 1) throw InputError("--trials", "an integer >= 1", std::to_string(trials));
  const ResolvedSpectrum rs = resolve(o.spectrum, std::string("gemma-7b"));
  const int d = rs.spectrum.dim();
  // Random heads cost O(d^2) per projection; the argument (k_n = k_(n-1)) does not depend on d, so
  // they run at d = 16 unless a dimension or configuration is asked for explicitly.
  const int random_d = (o.spectrum.config || o.spectrum.dim) ? d : kRandomDim;

  auto timed = [&](auto&& check) {
    const auto start = std::chrono::steady_clock::now();
    Certificate c = certify_with_retry(o.precision_bits, o.max_precision_bits, check);
    c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return c;
  };
  std::vector<Certificate> out;
  out.push_back(timed([&](unsigned bits) {
    return certify_nope_cases([&] { return constructed_nope_cases(d); }, d, "constructed", true, bits,
                              {{"heads", 4}, {"d", d}, {"sequence", "[bos, x, x]"}});
  }));
  const nlohmann::json random_parameters = {
      {"trials", trials},
      {"d", random_d},
      {"n", "uniform in [3, " + std::to_string(max_n) + "]"},
      {"weights", "W_Q, W_K entries 2^e u, u uniform in [-1, 1) (multiples of 2^-52), e uniform in [-2, 2] per matrix"},
      {"tokens", "uniform in [-1, 1)^d, multiples of 2^-52; the last token repeats the previous one"},
      {"seed", o.seed},
      {"stream", kHeadStream}};
  out.push_back(timed([&](unsigned bits) {
    return certify_nope_cases(
        [&] {
          std::vector<Case> cases;
          for (long long t = 0; t < trials; ++t) cases.push_back(random_case(o.seed, t, max_n, random_d));
          return cases;
        },
        random_d, "seeded random", false, bits, random_parameters);
  }));
  out.push_back(timed([&](unsigned bits) { return certify_rope_contrast(rs, bits); }));
  return out;
}

}  // namespace ropecheck::proofs

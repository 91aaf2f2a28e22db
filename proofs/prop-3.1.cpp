#include "prop-3.1.h"

#include <mpfi.h>

#include <chrono>
#include <limits>

#include "attention/activation.h"
#include "certificate/retry.h"
#include "io/input_error.h"
#include "random/dyadic_vector.h"
#include "rotation/angle_sweep.h"
#include "spectrum/frequencies.h"

namespace ropecheck::proofs {

std::vector<DistanceMargin> distance_margins(const Vector<Interval>& q, const std::vector<Interval>& g,
                                             const std::vector<long long>& distances, long long N) {
  const size_t pairs = g.size();
  std::vector<PairProducts<Interval>> products;
  for (long long r : distances) products.push_back(pair_products(q, rotate(q, r, g)));

  // a[t][j] = q^T R^(-j) (R^r_t q). The table of cos/sin(-j g_k) is shared by every r; it comes
  // from AngleSweep (two small sin/cos tables and the addition formulas) with sin negated exactly.
  std::vector<std::vector<Interval>> a(distances.size(), std::vector<Interval>(static_cast<size_t>(N + 1)));
  std::vector<Interval> c(pairs), s(pairs);
  const AngleSweep sweep(g, N);
  for (long long j = 0; j <= N; ++j) {
    sweep.row(j, c, s);
    for (Interval& x : s) mpfi_neg(x.backend().data(), x.backend().data());
    for (size_t t = 0; t < distances.size(); ++t) a[t][static_cast<size_t>(j)] = activation(products[t], c, s);
  }

  std::vector<DistanceMargin> out;
  for (size_t t = 0; t < distances.size(); ++t) {
    DistanceMargin m;
    m.r = distances[t];
    m.a_r = a[t][static_cast<size_t>(m.r)];
    m.margin_lower = std::numeric_limits<double>::infinity();
    m.margin_upper = std::numeric_limits<double>::infinity();
    for (long long j = 0; j <= N; ++j) {
      if (j == m.r) continue;
      const Interval diff = m.a_r - a[t][static_cast<size_t>(j)];
      const Real lo = lower_of(diff), hi = upper_of(diff);
      if (lo < m.margin_lower) {
        m.margin_lower = lo;
        m.runner_up = j;
      }
      if (hi < m.margin_upper) m.margin_upper = hi;
      if (hi < 0 && m.witness < 0) m.witness = j;
    }
    out.push_back(std::move(m));
  }
  return out;
}

namespace {

constexpr std::uint64_t kQueryStream = kProp31QueryStream;

Vector<Interval> make_query(const ClaimOptions& o, int dim, nlohmann::json& description) {
  Vector<Interval> q(dim);
  if (!o.query.empty()) {
    if (static_cast<int>(o.query.size()) != dim)
      throw InputError("--query", std::to_string(dim) + " comma-separated decimals (one per dimension)",
                       std::to_string(o.query.size()) + " values");
    bool nonzero = false;
    for (int i = 0; i < dim; ++i) {
      try {
        q[i] = from_decimal<Interval>(o.query[static_cast<size_t>(i)]);
      } catch (const std::invalid_argument&) {
        throw InputError("--query", "comma-separated finite decimals", o.query[static_cast<size_t>(i)]);
      }
      nonzero = nonzero || !(lower_of(q[i]) == 0 && upper_of(q[i]) == 0);
    }
    if (!nonzero) throw InputError("--query", "a non-zero vector (the proposition assumes q != 0)", "all zeros");
    description = {{"source", "given"}, {"values", o.query}};
  } else {
    q = random_dyadic_vector<Interval>(dim, o.seed, kQueryStream);
    description = {{"source", "seeded random: components uniform in [-1, 1), multiples of 2^-52, Philox4x32-10"},
                   {"seed", o.seed},
                   {"stream", kQueryStream}};
  }
  return q;
}

}  // namespace

namespace {
Certificate check_at(const ClaimOptions& o, const ResolvedSpectrum& rs, const std::vector<long long>& distances, unsigned bits,
                     std::chrono::steady_clock::time_point start);
}  // namespace

std::vector<Certificate> check_prop_3_1(const ClaimOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  const ResolvedSpectrum rs = resolve(o.spectrum, std::string("gemma-7b"));
  const long long N = rs.context;
  std::vector<long long> distances = o.distances.empty() ? std::vector<long long>{1, 7, 100, 4000} : o.distances;
  for (long long r : distances)
    if (r < 0 || r > N) throw InputError("--distance", "an integer in [0, " + std::to_string(N) + "] (the context)", std::to_string(r));

  return {certify_with_retry(o.precision_bits, o.max_precision_bits, [&](unsigned bits) {
    return check_at(o, rs, distances, bits, start);
  })};
}

namespace {

Certificate check_at(const ClaimOptions& o, const ResolvedSpectrum& rs, const std::vector<long long>& distances, unsigned bits,
                     std::chrono::steady_clock::time_point start) {
  const long long N = rs.context;
  ScopedPrecision precision(bits);
  nlohmann::json query_description;
  const Vector<Interval> q = make_query(o, rs.spectrum.dim(), query_description);
  const std::vector<Interval> g = frequencies<Interval>(rs.spectrum);
  const std::vector<DistanceMargin> margins = distance_margins(q, g, distances, N);

  Certificate c;
  c.claim_id = "prop-3.1";
  c.statement = "for the query q and each distance r, the key k = R^r q gives a_r > a_j for every j != r, 0 <= j <= " +
                std::to_string(N) + " (a_j = q^T R^(-j) k: the key j tokens before the query); certified lower bound on min_j (a_r - a_j)";
  c.parameters = {{"configuration", rs.name}, {"spectrum", rs.spectrum.describe()}, {"N", N},
                  {"distances", distances},   {"query", query_description},      {"precision_bits", precision.bits()}};
  c.method = "interval arithmetic (MPFI), " + std::to_string(precision.bits()) + " bits, every j in 0..N";
  c.expected = Verdict::holds;

  bool all_positive = true, any_witness = false;
  nlohmann::json rows = nlohmann::json::array();
  for (const DistanceMargin& m : margins) {
    all_positive = all_positive && m.margin_lower > 0;
    any_witness = any_witness || m.witness >= 0;
    const std::string r = std::to_string(m.r);
    c.quantities.push_back(real_bounds("r=" + r + ": min_{j!=r} (a_r - a_j)", m.margin_lower, m.margin_upper, 12));
    rows.push_back({{"r", m.r},
                    {"a_r", {{"lower", decimal_bounds(m.a_r, 20).lower}, {"upper", decimal_bounds(m.a_r, 20).upper}}},
                    {"margin_lower", to_decimal(m.margin_lower, 20, Rounding::down)},
                    {"margin_upper", to_decimal(m.margin_upper, 20, Rounding::up)},
                    {"runner_up_j", m.runner_up},
                    {"witness_j", m.witness}});
  }
  c.details = {{"distances", rows}};
  // holds: every margin certainly > 0. fails: some a_j certainly exceeds a_r (a witness j).
  // Otherwise the intervals could not decide: inconclusive, never a pass.
  c.verdict = all_positive ? Verdict::holds : any_witness ? Verdict::fails : Verdict::inconclusive;
  // A margin whose upper bound is <= 0 is a true tie or worse (NoPE, or q zero on every rotating
  // pair): no precision can make it certainly positive, so the retry ladder stops here.
  bool tie = false;
  for (const DistanceMargin& m : margins) tie = tie || (!(m.margin_lower > 0) && m.margin_upper <= 0);
  if (c.verdict == Verdict::inconclusive && tie) c.details["precision_cannot_help"] = true;
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

}  // namespace

}  // namespace ropecheck::proofs

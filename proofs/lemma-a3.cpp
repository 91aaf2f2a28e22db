#include "lemma-a3.h"

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

#include "attention/softmax.h"
#include "certificate/retry.h"
#include "io/input_error.h"
#include "numeric/decimal.h"
#include "random/counter_rng.h"

namespace ropecheck::proofs {

SoftmaxBound certified_softmax_bound(const Vector<Interval>& a, Eigen::Index i, Eigen::Index j) {
  const Eigen::Index n = a.size();
  if (i < 0 || j < 0 || i >= n || j >= n || i == j)
    throw std::invalid_argument("certified_softmax_bound: need 0 <= i, j < n and i != j (n = " + std::to_string(n) +
                                ", i = " + std::to_string(i) + ", j = " + std::to_string(j) + ")");
  SoftmaxBound b;
  const Interval one(1), half(0.5);
  b.gap = a[j] - a[i];
  b.alpha = softmax(a)[i];
  const Interval e = exp(b.gap);
  b.sharp = one / (one + e);
  b.rest = Interval(0);
  for (Eigen::Index k = 0; k < n; ++k)
    if (k != i && k != j) b.rest += Interval(exp(Interval(a[k] - a[i])));
  // 1/alpha_i = Z / exp(a_i) = 1 + exp(a_j - a_i) + rho = 1/s + rho. Formed as one sum (not as
  // s / (1 + s rho)) so that an overflowed exp gives [big, +inf] and 1/[big, +inf] = [0, small],
  // never the 0 * inf a product would meet when s underflows.
  b.alpha_from_sharp = one / (one + e + b.rest);

  b.hypothesis = certainly_positive(b.gap);
  b.below_half = upper_of(b.alpha) < 0.5;
  b.sharp_below_half = upper_of(b.sharp) < 0.5;
  // rho is a sum of exponentials, so its exact value is >= 0; MPFI's exp never has a negative lower
  // endpoint, so lower(rho) >= 0 is the certified form of that fact. With the identity it gives
  // 1/alpha_i >= 1/s, i.e. alpha_i <= s (equality exactly when n = 2).
  b.below_sharp = lower_of(b.rest) >= 0;
  b.strictly_below_sharp = certainly_less(b.alpha, b.sharp);
  b.consistent = overlaps(b.alpha, b.alpha_from_sharp);
  b.refuted = lower_of(b.alpha) >= 0.5;
  return b;
}

namespace {

// Stream id of this check's random rows in the counter-based RNG: ASCII "lemma-a3".
constexpr std::uint64_t kRowStream = 0x6c656d6d612d6133ULL;
// Counter layout of random row t: index (t << 20) + slot; slots 0..2 draw n, the scale and i, slots
// 16.. the activations (n <= kMaxRowLength < 2^20 - 16, so rows never share a counter).
constexpr long long kMaxRowLength = 4096;
constexpr long long kDefaultMaxRowLength = 32;
constexpr long long kDefaultGaussianTrials = 1000;

// One activation row: exact inputs (decimal text parsed at each precision of the ladder, or exact
// dyadic doubles) and the pair (i, j) of the lemma.
struct Row {
  std::string name;
  std::vector<std::string> decimals;  // used when non-empty
  std::vector<double> values;         // otherwise: exact dyadics
  Eigen::Index i = 0, j = 1;

  Eigen::Index size() const {
    return static_cast<Eigen::Index>(decimals.empty() ? values.size() : decimals.size());
  }
  Vector<Interval> activations() const {
    Vector<Interval> a(size());
    for (Eigen::Index k = 0; k < a.size(); ++k)
      a[k] = decimals.empty() ? Interval(values[static_cast<size_t>(k)]) : from_decimal<Interval>(decimals[static_cast<size_t>(k)]);
    return a;
  }
};

// The constructed edge cases. The two tiny gaps put alpha_i within 2.5e-31 and 2.5e-101 of 1/2:
// 1/2 - alpha_i = tanh((a_j - a_i)/2)/2 ~ (a_j - a_i)/4, so the second needs more than
// log2(4e100) ~ 334 bits to be separated from 1/2 and is what makes the ladder climb to 514 bits.
std::vector<Row> constructed_rows() {
  std::vector<Row> rows;
  rows.push_back({"n=2, gap 1e-30", {"0", "1e-30"}, {}, 0, 1});
  rows.push_back({"n=2, gap 1e-100 (needs > 334 bits)", {"0", "1e-100"}, {}, 0, 1});
  rows.push_back({"n=2, activations 1e6 apart", {"0", "1e6"}, {}, 0, 1});
  rows.push_back({"n=3, -1e6 < 0 < 1e6, i the middle one", {"-1e6", "0", "1e6"}, {}, 1, 2});
  rows.push_back({"n=2, negative, -1e6 vs -1e6 + 1e-30", {"-1e6", "-999999." + std::string(30, '9')}, {}, 0, 1});
  rows.push_back({"n=3, negative, -1000 < -999.5, distractor -2000", {"-1000", "-999.5", "-2000"}, {}, 0, 1});
  {
    // 100 distractors equal to a_i: alpha_i ~ 1/101, the ties do not help it.
    Row r{"n=102, 100 distractors tied with a_i, gap 1e-30", {}, {}, 0, 1};
    r.decimals = {"0", "1e-30"};
    for (int k = 0; k < 100; ++k) r.decimals.push_back("0");
    rows.push_back(r);
  }
  {
    // 200 distractors tied with the maximum: alpha_i ~ 1/(1 + 201 e).
    Row r{"n=202, 201 tied maxima", {}, {}, 0, 1};
    r.decimals = {"-1"};
    for (int k = 0; k < 201; ++k) r.decimals.push_back("0");
    rows.push_back(r);
  }
  return rows;
}

// Seeded random row t: n uniform in [2, max_n], a_k = 2^e u_k with u_k uniform dyadic in [-1, 1)
// (multiples of 2^-52, exact in every precision) and e uniform in [-8, 8], so rows range from near
// ties (alpha_i ~ 1/n) to spreads of hundreds (alpha_i ~ exp(-500)). j = the largest entry (the
// tightest sharp bound); i = a random other index, replaced by the second largest when the draw
// falls on j, so many rows have alpha_i near its largest possible value.
Row random_row(std::uint64_t seed, long long t, long long max_n) {
  const CounterRng rng(seed, kRowStream);
  const std::uint64_t base = static_cast<std::uint64_t>(t) << 20;
  const long long n = 2 + static_cast<long long>(rng.bits(base) % static_cast<std::uint64_t>(max_n - 1));
  const int e = static_cast<int>(rng.bits(base + 1) % 17) - 8;
  Row r;
  r.name = "random row " + std::to_string(t);
  r.values.resize(static_cast<size_t>(n));
  for (long long k = 0; k < n; ++k) r.values[static_cast<size_t>(k)] = std::ldexp(rng.uniform_dyadic(base + 16 + static_cast<std::uint64_t>(k)), e);
  Eigen::Index best = 0;
  for (Eigen::Index k = 1; k < n; ++k)
    if (r.values[static_cast<size_t>(k)] > r.values[static_cast<size_t>(best)]) best = k;
  Eigen::Index i = static_cast<Eigen::Index>(rng.bits(base + 2) % static_cast<std::uint64_t>(n));
  if (i == best) {
    i = best == 0 ? 1 : 0;
    for (Eigen::Index k = 0; k < n; ++k)
      if (k != best && r.values[static_cast<size_t>(k)] > r.values[static_cast<size_t>(i)]) i = k;
  }
  r.i = i;
  r.j = best;
  return r;
}

// Runs the rows at the current precision and fills a certificate (verdict, counts, extremes).
Certificate certify_rows(const std::vector<Row>& rows, const std::string& group, bool per_row_details, unsigned bits,
                         const nlohmann::json& parameters) {
  ScopedPrecision precision(bits);
  Certificate c;
  c.claim_id = "lemma-a3";
  c.parameters = parameters;
  c.parameters["configuration"] = group;
  c.parameters["precision_bits"] = precision.bits();
  c.method = "interval arithmetic (MPFI), " + std::to_string(precision.bits()) +
             " bits: softmax by log-sum-exp, sharp bound 1/(1 + exp(a_j - a_i)), cross-checked by 1/alpha_i = 1/s + rho";
  c.expected = Verdict::holds;

  long long certified = 0, inconclusive = 0, refuted = 0, separated = 0;
  bool have_best = false;
  SoftmaxBound best;
  std::string best_name;
  nlohmann::json rows_json = nlohmann::json::array(), undecided = nlohmann::json::array();
  const Interval half(0.5);
  for (const Row& row : rows) {
    const SoftmaxBound b = certified_softmax_bound(row.activations(), row.i, row.j);
    const bool ok = b.certified();
    if (ok) ++certified;
    else if (b.hypothesis && b.refuted) ++refuted;
    else ++inconclusive;
    if (b.strictly_below_sharp) ++separated;
    if (ok && (!have_best || upper_of(b.alpha) > upper_of(best.alpha))) {
      have_best = true;
      best = b;
      best_name = row.name;
    }
    nlohmann::json r = {{"row", row.name},
                        {"n", row.size()},
                        {"i", row.i},
                        {"j", row.j},
                        {"alpha_i", bounds_json(b.alpha)},
                        {"half_minus_alpha_i", bounds_json(Interval(half - b.alpha))},
                        {"sharp_bound", bounds_json(b.sharp)},
                        {"hypothesis_a_i_lt_a_j", b.hypothesis},
                        {"alpha_i_lt_half", b.below_half},
                        {"sharp_lt_half", b.sharp_below_half},
                        {"alpha_i_le_sharp", b.below_sharp},
                        {"alpha_i_strictly_separated_from_sharp", b.strictly_below_sharp},
                        {"routes_agree", b.consistent}};
    if (per_row_details) rows_json.push_back(r);
    else if (!ok && undecided.size() < 20) undecided.push_back(r);
  }
  c.statement = "for each of " + std::to_string(rows.size()) + " " + group +
                " activation rows a and indices i, j with a_i < a_j: alpha_i = softmax(a)_i < 1/2, and alpha_i <= 1/(1 + exp(a_j - a_i)) < 1/2 (row lengths and values: see parameters)";
  c.quantities.push_back(exact_integer("rows certified", certified));
  c.quantities.push_back(exact_integer("rows inconclusive", inconclusive));
  c.quantities.push_back(exact_integer("rows refuted (alpha_i >= 1/2 certified)", refuted));
  c.quantities.push_back(exact_integer("rows with alpha_i strictly below the sharp bound (separated enclosures)", separated));
  if (have_best) {
    c.quantities.push_back(enclosure("largest certified alpha_i (" + best_name + ")", best.alpha));
    c.quantities.push_back(enclosure("its 1/2 - alpha_i", Interval(half - best.alpha)));
  }
  c.details = nlohmann::json::object();
  if (per_row_details) c.details["rows"] = rows_json;
  else c.details["undecided_rows (first 20)"] = undecided;
  // holds: every row certified. fails: a row meets the hypothesis and has alpha_i >= 1/2 certified.
  // Anything undecided is inconclusive, never a pass.
  c.verdict = certified == static_cast<long long>(rows.size()) ? Verdict::holds : refuted > 0 ? Verdict::fails : Verdict::inconclusive;
  return c;
}

}  // namespace

std::vector<Certificate> check_lemma_a3(const ClaimOptions& o) {
  const long long max_n = o.max_n.value_or(kDefaultMaxRowLength);
  if (max_n < 2 || max_n > kMaxRowLength)
    throw InputError("--max-n", "an integer in [2, " + std::to_string(kMaxRowLength) + "] (the longest random row)", std::to_string(max_n));
  const long long trials = o.trials.value_or(kDefaultGaussianTrials);
  if (trials < 1) throw InputError("--trials", "an integer >= 1", std::to_string(trials));

  // Each certificate climbs the ladder on its own, so one hard constructed row does not make the
  // 1000 random rows run at 514 bits. Its seconds cover every attempt of the ladder.
  auto timed = [&](const std::vector<Row>& rows, const std::string& group, bool per_row, const nlohmann::json& parameters,
                   std::chrono::steady_clock::time_point start) {
    Certificate c = certify_with_retry(o.precision_bits, o.max_precision_bits, [&](unsigned bits) {
      return certify_rows(rows, group, per_row, bits, parameters);
    });
    c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return c;
  };
  std::vector<Certificate> out;
  const auto constructed_start = std::chrono::steady_clock::now();
  const std::vector<Row> constructed = constructed_rows();
  out.push_back(timed(constructed, "constructed", true, {{"rows", constructed.size()}}, constructed_start));

  const auto random_start = std::chrono::steady_clock::now();

  std::vector<Row> random;
  random.reserve(static_cast<size_t>(trials));
  for (long long t = 0; t < trials; ++t) random.push_back(random_row(o.seed, t, max_n));
  nlohmann::json random_parameters = {
      {"trials", trials},
      {"n", "uniform in [2, " + std::to_string(max_n) + "]"},
      {"activations", "2^e * u, u uniform in [-1, 1) (multiples of 2^-52), e uniform in [-8, 8] per row, Philox4x32-10"},
      {"pair", "j = argmax, i = a random other index (the second largest when the draw hits j)"},
      {"seed", o.seed},
      {"stream", kRowStream}};
  out.push_back(timed(random, "seeded random", false, random_parameters, random_start));
  return out;
}

}  // namespace ropecheck::proofs

#include "dynamic-ntk-cache.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>

#include "certificate/decision.h"
#include "certificate/retry.h"
#include "io/input_error.h"
#include "numeric/decimal.h"
#include "numeric/interval_series.h"
#include "spectrum/frequencies.h"
#include "spectrum/request.h"
#include "spectrum/scaling_rules.h"

namespace ropecheck::proofs {

namespace {

void require_dynamic(const Spectrum& s, const char* who) {
  if (s.scaling().kind != Scaling::Kind::dynamic) throw std::invalid_argument(std::string(who) + ": the spectrum's scaling is not dynamic");
}

}  // namespace

DynamicFrequencies transformers_dynamic_frequencies(const Spectrum& s, long long S) {
  require_dynamic(s, "transformers_dynamic_frequencies");
  if (S < 1) throw std::invalid_argument("transformers_dynamic_frequencies: sequence length < 1");
  DynamicFrequencies out;
  // The original frequencies: transformers' original_inv_freq is the rule at seq_len = M, where the
  // ratio f M/M - (f - 1) is exactly 1, i.e. the default theta^(-2p/d); taken from the unscaled
  // spectrum so that no rounding of that exact 1 enters.
  out.original = frequencies<Interval>(s.with_scaling(Scaling{}));
  out.recomputed = S > s.scaling().max_position;  // `seq_len > max_seq_len_cached`, on integers
  if (!out.recomputed) {
    out.query = out.original;
    out.change.assign(out.original.size(), Interval(0));
    out.theta = from_decimal<Interval>(s.theta());
    return out;
  }
  Scaling grown = s.scaling();
  grown.sequence_length = S;
  grown.vllm_static = false;
  const Spectrum at_S = s.with_scaling(grown);
  out.query = frequencies<Interval>(at_S);
  out.theta = ScalingRule<Interval>(grown, from_decimal<Interval>(s.theta()), s.rotary_width()).theta();
  out.change.resize(out.query.size());
  for (std::size_t p = 0; p < out.query.size(); ++p) {
    long long e = 0, den = 1;
    if (s.rotated(static_cast<int>(p))) s.exponent(static_cast<int>(p), e, den);
    // theta'^0 = theta^0 = 1 (and an unrotated pair stays 0 in both): no change, exactly.
    out.change[p] = (!s.rotated(static_cast<int>(p)) || e == 0) ? Interval(0) : Interval(out.query[p] - out.original[p]);
  }
  return out;
}

std::vector<Interval> vllm_dynamic_frequencies(const Spectrum& s) {
  require_dynamic(s, "vllm_dynamic_frequencies");
  Scaling v = s.scaling();
  v.vllm_static = true;
  return frequencies<Interval>(s.with_scaling(v));
}

Interval consistent_activation(const PairProducts<Interval>& pp, const std::vector<Interval>& g, std::int64_t r) {
  std::vector<Interval> zero(g.size(), Interval(0));
  return mixed_activation(pp, g, zero, r, 0);
}

Interval mixed_activation(const PairProducts<Interval>& pp, const std::vector<Interval>& g, const std::vector<Interval>& change,
                          std::int64_t i, std::int64_t j) {
  if (pp.u.size() != g.size() || change.size() != g.size()) throw std::invalid_argument("mixed_activation: sizes differ");
  Interval sum(0), c, s;
  const Interval query_position(static_cast<long long>(i));
  for (std::size_t p = 0; p < g.size(); ++p) {
    // (j - i) g_p - i change_p; with change_p = [0, 0] the subtraction returns the first term unchanged.
    const Interval phase(rotation_angle<Interval>(j - i, g[p]) - Interval(query_position * change[p]));
    sin_cos(phase, s, c);
    sum += Interval(c * pp.u[p] + s * pp.w[p]);
  }
  return sum;
}

namespace {

constexpr long long kMaxLength = 1LL << 40;

// The head the claim evaluates when no --model is given: transformers' LlamaConfig() defaults
// (huggingface/transformers src/transformers/models/llama/configuration_llama.py: hidden_size
// 4096, num_attention_heads 32, so head_dim 128; max_position_embeddings 2048; rope_theta 10000, the
// default of the v4 signature `rope_theta=10000.0` and of the default rope rule) with
// rope_scaling {"rope_type": "dynamic", "factor": 2.0}: an explicit example, not a released model.
const char* const kExampleName = "LlamaConfig+dynamic 2";
constexpr long long kExampleMaxPosition = 2048;

struct Setup {
  Spectrum spectrum;
  std::string label;
  std::string source;
};

Setup setup_from(const ClaimOptions& o) {
  const SpectrumRequest& r = o.spectrum;
  if (!r.model) {
    const std::string why = "absent without --model for dynamic-ntk-cache (it needs a dynamic rope_scaling, which only --model NAME|config.json "
                            "gives; default: the built-in example LlamaConfig() with dynamic factor 2)";
    if (r.config) throw InputError("--config", why, *r.config);
    if (r.dim) throw InputError("--dim", why, std::to_string(*r.dim));
    if (r.theta) throw InputError("--theta", why, *r.theta);
    if (r.scaling) throw InputError("--scaling", why, r.scaling->describe());
    if (r.variant) throw InputError("variant", why, variant_name(*r.variant));
    Scaling s;
    s.kind = Scaling::Kind::dynamic;
    s.factor = "2.0";
    s.max_position = kExampleMaxPosition;
    s.sequence_length = kExampleMaxPosition;  // what a model's config gives without --sequence-length (not read here)
    return {Spectrum(128, "10000", Variant::rope, "1", s), kExampleName,
            "explicit example, not a released model: transformers' LlamaConfig() defaults (configuration_llama.py: head_dim 4096/32 = 128, "
            "max_position_embeddings 2048, rope_theta 10000) with rope_scaling {\"rope_type\": \"dynamic\", \"factor\": 2.0}"};
  }
  const ResolvedSpectrum rs = resolve(r);
  if (rs.spectrum.scaling().kind != Scaling::Kind::dynamic)
    throw InputError("model", "a model whose layer type has a dynamic rope_scaling (dynamic-ntk-cache; its scaling here is " +
                                  rs.spectrum.scaling().describe() + ")", *r.model);
  return {rs.spectrum, rs.name, "--model " + *r.model + " (" + rs.name + "), over its rotary part"};
}

// Query lengths S: --query-length, else (with --model) --sequence-length, else M, M + 1, 2M, 4M.
std::vector<long long> query_lengths(const ClaimOptions& o, long long M) {
  std::vector<long long> out = o.query_lengths;
  if (out.empty() && o.spectrum.model && o.spectrum.sequence_length) out.push_back(*o.spectrum.sequence_length);
  if (out.empty()) out = {M, M + 1, 2 * M, 4 * M};
  for (long long S : out)
    if (S < 1 || S > kMaxLength) throw InputError("--query-length", "an integer in [1, 2^40] (the sequence length S = i + 1 when the query at i runs)", std::to_string(S));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Distances r for one S: the --distance values that put the key inside the original context at
// this S (0 <= j = S - 1 - r <= M - 1), else the keys at j = M - 1, M/2, 0 that exist at this S.
std::vector<long long> distances_for(const ClaimOptions& o, long long S, long long M) {
  const long long lo = std::max(0LL, S - M), hi = S - 1;
  std::vector<long long> out;
  if (!o.distances.empty()) {
    for (long long r : o.distances)
      if (r >= lo && r <= hi) out.push_back(r);
  } else {
    for (long long j : {M - 1, M / 2, 0LL})
      if (j <= S - 1) out.push_back(S - 1 - j);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Throws InputError for a --distance that fits none of the query lengths.
void check_distances(const ClaimOptions& o, const std::vector<long long>& lengths, long long M) {
  for (long long r : o.distances) {
    bool fits = false;
    std::string ranges;
    for (long long S : lengths) {
      const long long lo = std::max(0LL, S - M), hi = S - 1;
      fits = fits || (r >= lo && r <= hi);
      if (!ranges.empty()) ranges.append(", ");
      ranges.append("[").append(std::to_string(lo)).append(", ").append(std::to_string(hi)).append("] at S = ").append(std::to_string(S));
    }
    if (!fits)
      throw InputError("--distance",
                       "an integer in " + ranges + " for at least one query length S (the key at j = S - 1 - r must be cached within the original "
                       "context: 0 <= j <= M - 1 = " + std::to_string(M - 1) + ")",
                       std::to_string(r));
  }
}

// Yes when the enclosures are disjoint (the exact values certainly differ); undecided otherwise
// (overlapping enclosures of two different numbers cannot be told apart from equal ones).
Decision decide_differs(const Interval& a, const Interval& b) {
  return overlaps(a, b) ? Decision::undecided : Decision::yes;
}

// For two activations that are equal by an exact identity (no recompute at S <= M: the same
// frequencies; a key at j = 0: R^0 = I): yes when the enclosures agree with it (they overlap), no
// when they contradict it (disjoint: an error in the computation, reported as a failure).
Decision decide_identity_agrees(const Interval& a, const Interval& b) { return overlaps(a, b) ? Decision::yes : Decision::no; }

Decision all_of(const std::vector<Decision>& parts) {
  Decision out = Decision::yes;
  for (Decision d : parts) {
    if (d == Decision::no) return Decision::no;
    if (d == Decision::undecided) out = Decision::undecided;
  }
  return out;
}

// Rows of text cells as a left-aligned table, two spaces between columns.
std::string text_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width;
  for (const auto& row : rows)
    for (std::size_t k = 0; k < row.size(); ++k) {
      if (width.size() <= k) width.push_back(0);
      width[k] = std::max(width[k], row[k].size());
    }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t k = 0; k < row.size(); ++k) line += row[k] + (k + 1 < row.size() ? std::string(width[k] - row[k].size() + 2, ' ') : "");
    out += line + "\n";
  }
  return out;
}

// The fastest and the slowest rotating pair, by their exact integer exponents (-1 when none). Exact
// for the dynamic rule, whose frequencies are base^(-e/D) for one base (theta or theta' > 1): the
// order of e/D is the order of the frequencies, with no interval comparison to decide.
void extreme_pairs(const Spectrum& s, int& fastest, int& slowest) {
  fastest = slowest = -1;
  long long best_e = 0, best_den = 1, worst_e = 0, worst_den = 1;
  for (int k = 0; k < s.pairs(); ++k) {
    if (!s.rotated(k)) continue;
    long long e = 0, den = 1;
    s.exponent(k, e, den);
    // e/den smaller = faster; compare e1/den1 < e2/den2 as e1 den2 < e2 den1 (small integers).
    if (fastest < 0 || e * best_den < best_e * den) fastest = k, best_e = e, best_den = den;
    if (slowest < 0 || e * worst_den > worst_e * den) slowest = k, worst_e = e, worst_den = den;
  }
}

Certificate check_at(const Setup& setup, const ClaimOptions& o, unsigned bits) {
  const auto start = std::chrono::steady_clock::now();
  ScopedPrecision precision(bits);
  const Spectrum& sp = setup.spectrum;
  const Scaling& sc = sp.scaling();
  const long long M = sc.max_position;
  const std::vector<long long> lengths = query_lengths(o, M);

  int fastest = -1, slowest = -1;
  extreme_pairs(sp, fastest, slowest);
  if (slowest < 0) throw InputError("model", "a model whose layer type has a rotating pair", o.spectrum.model.value_or(setup.label));

  // q = k = all ones over the rotary part: u_p = 2, w_p = 0 (pass-through channels would add the
  // same constant to every activation below).
  const Vector<Interval> ones = Vector<Interval>::Constant(2 * sp.pairs(), Interval(1));
  const PairProducts<Interval> pp = pair_products(ones, ones);

  const std::vector<Interval> g_vllm = vllm_dynamic_frequencies(sp);
  Scaling vllm_scaling = sc;
  vllm_scaling.vllm_static = true;
  const Interval theta_vllm = ScalingRule<Interval>(vllm_scaling, from_decimal<Interval>(sp.theta()), sp.rotary_width()).theta();

  Certificate c;
  c.claim_id = "dynamic-ntk-cache";
  c.statement =
      "transformers' run-time dynamic NTK (dynamic_rope_update), M = max_position_embeddings: a key k cached at position j <= M - 1 keeps "
      "the rotation of the original frequencies g; the query at i = S - 1 is rotated with g'(S) from theta' = theta (f S/M - (f-1))^(d/(d-2)) "
      "once S > M. For q = k = all ones and every row (S, r = i - j): S <= M: a_mixed = a_old(r) (no recompute); S > M: a_mixed = "
      "(R_g'^i q)^T (R_g^j k) certainly differs from a_old(r) (base g throughout), and from a_new(r) (base g'(S) throughout, a fresh "
      "recompute) for every key at j >= 1 (at j = 0 the key is unrotated and a_mixed = a_new(r) exactly); the phase error "
      "e_p = i (g'_p - g_p) of the slowest rotating pair is certainly negative and grows in size with S. vLLM's static rule rotates "
      "query and key with one base theta (f^2 - (f-1))^(d/(d-2)): no mixing, a_vllm(r) at every S";
  nlohmann::json rows_json = nlohmann::json::array();
  nlohmann::json lengths_json = nlohmann::json::array();
  std::vector<Decision> row_parts, error_parts;
  std::vector<std::vector<std::string>> table = {{"S", "i", "j", "r", "a_old(r)", "a_new(r)", "a_mixed", "a_vllm(r)", "certified"}};
  std::vector<Quantity> per_length, per_row;
  std::optional<Quantity> headline;
  std::optional<Interval> previous_error;
  constexpr int kTableDigits = 12;

  for (long long S : lengths) {
    const DynamicFrequencies df = transformers_dynamic_frequencies(sp, S);
    const long long i = S - 1;
    std::vector<Interval> errors(df.change.size());
    for (std::size_t p = 0; p < errors.size(); ++p) errors[p] = Interval(Interval(i) * df.change[p]);
    const Interval& e_slow = errors[static_cast<std::size_t>(slowest)];
    const Interval& e_fast = errors[static_cast<std::size_t>(fastest)];
    // max_p |e_p| (numeric/interval_series.h): `at` has the largest lower bound; it is certainly the
    // largest when it is the only candidate.
    std::vector<Interval> magnitudes;
    for (const Interval& e : errors) magnitudes.push_back(Interval(abs(e)));
    const Extremum e_max = maximum_over(magnitudes, 0, static_cast<long long>(magnitudes.size()) - 1);
    const Interval e_max_value(e_max.lower, e_max.upper);
    const std::string tag = "S=" + std::to_string(S);
    per_length.push_back(enclosure(tag + ": theta'(S), the query's base", df.theta));
    per_length.push_back(enclosure(tag + ": phase error e = i (g'-g), slowest pair " + std::to_string(slowest + 1), e_slow));
    per_length.push_back(enclosure(tag + ": phase error e = i (g'-g), fastest pair " + std::to_string(fastest + 1), e_fast));
    per_length.push_back(enclosure(tag + ": max over pairs |e_p| (largest lower bound at pair " + std::to_string(e_max.at + 1) + ")", e_max_value));
    std::string nonzero_text = "n/a (no recompute)", grows_text = "n/a (no recompute)";
    if (df.recomputed) {
      const Decision nonzero =
          certainly_negative(e_slow) ? Decision::yes : certainly_positive(e_slow) || is_point(e_slow) ? Decision::no : Decision::undecided;
      error_parts.push_back(nonzero);
      nonzero_text = decision_name(nonzero);
      grows_text = "first grown S";
      if (previous_error) {
        const Decision grows = decide_less(Interval(abs(*previous_error)), Interval(abs(e_slow)));
        error_parts.push_back(grows);
        grows_text = decision_name(grows);
      }
      previous_error = e_slow;
    }
    lengths_json.push_back({{"S", S},
                            {"query_position", i},
                            {"recomputed", df.recomputed},
                            {"theta_query", bounds_json(df.theta)},
                            {"phase_error_slowest_pair", bounds_json(e_slow)},
                            {"phase_error_fastest_pair", bounds_json(e_fast)},
                            {"phase_error_max_over_pairs", bounds_json(e_max_value)},
                            {"phase_error_max_at_pair", e_max.at + 1},
                            {"phase_error_max_at_pair_certified", e_max.candidates == 1},
                            {"slowest_error_negative", nonzero_text},
                            {"slowest_error_larger_than_at_previous_grown_S", grows_text}});
    const std::vector<long long> rs = distances_for(o, S, M);
    nlohmann::json skipped = nlohmann::json::array();  // --distance values whose key is not an original-context key at this S
    for (long long r : o.distances)
      if (std::find(rs.begin(), rs.end(), r) == rs.end()) skipped.push_back(r);
    lengths_json.back()["distances_skipped"] = skipped;

    for (long long r : rs) {
      const long long j = i - r;
      const Interval a_old = consistent_activation(pp, df.original, r);
      const Interval a_new = consistent_activation(pp, df.query, r);
      const Interval a_mixed = mixed_activation(pp, df.original, df.change, i, j);
      const Interval a_vllm = consistent_activation(pp, g_vllm, r);
      nlohmann::json row_json = {{"S", S}, {"i", i}, {"j", j}, {"r", r}, {"a_old", bounds_json(a_old)}, {"a_new", bounds_json(a_new)},
                                 {"a_mixed", bounds_json(a_mixed)}, {"a_vllm", bounds_json(a_vllm)},
                                 {"mixed_minus_old", bounds_json(Interval(a_mixed - a_old))},
                                 {"phase_error_vs_new_slowest_pair", bounds_json(Interval(Interval(j) * df.change[static_cast<std::size_t>(slowest)]))}};
      Decision row;
      std::string outcome;
      if (!df.recomputed) {
        row = decide_identity_agrees(a_mixed, a_old);
        const bool identical = lower_of(a_mixed) == lower_of(a_old) && upper_of(a_mixed) == upper_of(a_old);
        outcome = row == Decision::yes ? std::string("no recompute: a_mixed = a_old") + (identical ? " (identical enclosures)" : "")
                                       : "a_mixed and a_old disjoint: contradiction";
        row_json["mixed_equals_old"] = decision_name(row);
        row_json["identical_enclosures"] = identical;
      } else {
        const Decision vs_old = decide_differs(a_mixed, a_old);
        const Decision vs_new = j == 0 ? decide_identity_agrees(a_mixed, a_new) : decide_differs(a_mixed, a_new);
        row = all_of({vs_old, vs_new});
        outcome = std::string(vs_old == Decision::yes ? "a_mixed != a_old" : "a_mixed vs a_old undecided") + ", " +
                  (j == 0 ? (vs_new == Decision::yes ? "a_mixed = a_new (j = 0: key unrotated)" : "a_mixed and a_new disjoint: contradiction")
                          : (vs_new == Decision::yes ? "a_mixed != a_new" : "a_mixed vs a_new undecided"));
        row_json["mixed_differs_from_old"] = decision_name(vs_old);
        row_json[j == 0 ? "mixed_equals_new_key_unrotated" : "mixed_differs_from_new"] = decision_name(vs_new);
        if (!headline) headline = enclosure(tag + " r=" + std::to_string(r) + " (key at j=" + std::to_string(j) + "): a_mixed - a_old(r)",
                                            Interval(a_mixed - a_old));
      }
      row_json["vllm_differs_from_old"] = decision_name(decide_differs(a_vllm, a_old));
      row_parts.push_back(row);
      rows_json.push_back(row_json);
      const std::string at = tag + " r=" + std::to_string(r) + " (i=" + std::to_string(i) + ", j=" + std::to_string(j) + "): ";
      per_row.push_back(enclosure(at + "a_old(r)", a_old));
      per_row.push_back(enclosure(at + "a_new(r)", a_new));
      per_row.push_back(enclosure(at + "a_mixed", a_mixed));
      per_row.push_back(enclosure(at + "a_vllm(r)", a_vllm));
      table.push_back({std::to_string(S), std::to_string(i), std::to_string(j), std::to_string(r), decimal_interval_text(a_old, kTableDigits),
                       decimal_interval_text(a_new, kTableDigits), decimal_interval_text(a_mixed, kTableDigits),
                       decimal_interval_text(a_vllm, kTableDigits), outcome});
    }
  }

  const Decision rows = all_of(row_parts);
  const Decision errors = all_of(error_parts);
  if (headline) c.quantities.push_back(*headline);
  c.quantities.push_back(enclosure("vLLM's static base theta (f^2 - (f-1))^(d/(d-2))", theta_vllm));
  c.quantities.insert(c.quantities.end(), per_length.begin(), per_length.end());
  c.quantities.insert(c.quantities.end(), per_row.begin(), per_row.end());
  c.parameters = {{"configuration", setup.label},
                  {"source", setup.source},
                  {"spectrum", sp.describe()},
                  {"max_position_M", M},
                  {"factor", sc.factor},
                  {"query_lengths", lengths},
                  {"head", "q = k = all ones over the rotary part (u_p = 2, w_p = 0)"},
                  {"slowest_rotating_pair", slowest + 1},
                  {"fastest_rotating_pair", fastest + 1},
                  {"precision_bits", precision.bits()}};
  c.method = "interval arithmetic (MPFI), " + std::to_string(precision.bits()) +
             " bits: theta'(S), g and g'(S) as enclosures (spectrum/scaling_rules.h), the mixed phase (j - i) g_p - i (g'_p - g_p) per pair, "
             "every comparison on interval endpoints";
  c.expected = Verdict::holds;
  c.details = {{"conjuncts",
                {{"every row: S <= M gives a_mixed = a_old; S > M gives a_mixed disjoint from a_old, and from a_new when j >= 1 (= a_new at j = 0)",
                  decision_name(rows)},
                 {"every grown S: the slowest pair's phase error is < 0 and larger in size than at the previous grown S", decision_name(errors)}}},
               {"rows", rows_json},
               {"query_lengths", lengths_json},
               {"vllm", "vLLM computes one base theta (f^2 - (f-1))^(d/(d-2)) at start-up (dynamic_ntk_scaling_rope.py; vllm#5093): query and "
                        "key share it at every position, so a cached key never mixes bases; the price is that short sequences (S <= M) "
                        "run the grown base too: a_vllm(r) against a_old(r) in each row (vllm_differs_from_old)"},
               {"table", text_table(table)}};
  c.verdict = combine({rows, errors});
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

}  // namespace

std::vector<Certificate> check_dynamic_ntk_cache(const ClaimOptions& o) {
  const Setup setup = setup_from(o);
  const long long M = setup.spectrum.scaling().max_position;
  // Validate every flag once before any interval work (the ladder below re-reads them).
  check_distances(o, query_lengths(o, M), M);
  return {certify_with_retry(o.precision_bits, o.max_precision_bits, [&](unsigned bits) { return check_at(setup, o, bits); })};
}

}  // namespace ropecheck::proofs

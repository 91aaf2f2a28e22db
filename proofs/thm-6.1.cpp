#include "thm-6.1.h"

#include <mpfr.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>

#include "certificate/retry.h"
#include "claims/angle_option.h"
#include "claims/decimal_option.h"
#include "io/input_error.h"
#include "numeric/decimal.h"
#include "random/counter_rng.h"
#include "semantic-channel.h"
#include "spectrum/frequencies.h"
#include "spectrum/lowest_pairs.h"
#include "spectrum/request.h"

namespace ropecheck::proofs {

namespace {

constexpr long long kDefaultMaxL = 1LL << 20;        // RoPE scans stop at the first break, far below
constexpr long long kDefaultPRopeN = 1LL << 40;      // p-RoPE: the closed form covers every L <= N
constexpr long long kGemmaContext = 8192;
constexpr std::uint64_t kSampleStream = 0x74686d2d362e31ULL;  // ASCII "thm-6.1"

// The generic family's strengths: q_notBOS . k_BOS and -(q_notBOS . k_notBOS) of the Appendix E.1
// vectors (semantic-channel.h).
const char* const kTargetStrength = "24.94";
const char* const kOtherStrength = "85.47";

struct Settings {
  Interval epsilon;
  std::string epsilon_text;
  long long max_L;
  long long prope_N;
};

Settings read_settings(const ClaimOptions& o) {
  Settings s;
  s.epsilon_text = o.epsilon.value_or("0.1");
  const std::string acc = "a decimal in (0, 1/2] (alpha > 1 - epsilon is sharper than Lemma A.3's 1/2 only then)";
  s.epsilon = decimal_option(o.epsilon, "0.1", "--epsilon", acc);
  if (!certainly_positive(s.epsilon) || upper_of(s.epsilon) > Real(0.5)) throw InputError("--epsilon", acc, s.epsilon_text);
  s.max_L = o.max_n.value_or(kDefaultMaxL);
  s.prope_N = o.max_n.value_or(kDefaultPRopeN);
  return s;
}

const std::string kFreqAccepted = "a decimal or K*pi/M in (0, 1000] (radians per token)";

// The frequency of a certificate: --frequency, or g_119 of gemma-7b, or 1.
Interval channel_frequency(const ClaimOptions& o, bool fastest) {
  if (o.frequency) {
    const Interval g = angle_option(o.frequency, *o.frequency, "--frequency", kFreqAccepted);
    if (!certainly_positive(g) || upper_of(g) > 1000) throw InputError("--frequency", kFreqAccepted, *o.frequency);
    return g;
  }
  if (fastest) return Interval(1);
  if (o.spectrum.model) {
    // A model's slowest rotating pair (spectrum/lowest_pairs.h): the channel frequency its
    // longest-lived semantic channel has.
    const Spectrum s = resolve(o.spectrum).spectrum;
    if (s.rotated_pairs() < 1) throw InputError("model", "a model whose layer type has a rotating pair", *o.spectrum.model);
    const int slowest = lowest_pairs(s, 1).front();
    return frequencies<Interval>(s)[static_cast<std::size_t>(slowest)];
  }
  return frequencies<Interval>(resolve(SpectrumRequest{}, std::string("gemma-7b")).spectrum)[118];
}

std::string frequency_label(const ClaimOptions& o, bool fastest) {
  if (o.frequency) return *o.frequency;
  if (!fastest && o.spectrum.model) return "the slowest rotating pair of " + resolve(o.spectrum).name;
  return fastest ? "1 (g_1)" : "g_119 of gemma-7b = 10000^(-236/256)";
}

// (1) The generic phase table for one frequency.
Certificate check_phase_table(const ClaimOptions& o, bool fastest, unsigned bits) {
  const auto start = std::chrono::steady_clock::now();
  ScopedPrecision precision(bits);
  const Settings st = read_settings(o);
  const Interval g = channel_frequency(o, fastest);
  std::vector<std::pair<std::string, std::string>> phases;  // label, text
  if (o.phase) phases.push_back({*o.phase, *o.phase});
  else
    for (const char* p : {"-3*pi/8", "-pi/4", "-pi/8", "0", "pi/8", "pi/4", "3*pi/8"}) phases.push_back({p, p});

  Certificate c;
  c.claim_id = "thm-6.1";
  c.statement = "channel a_t(s) = 24.94 cos(s g - phi) (target s tokens back), a_o(s) = -85.47 cos(s g - phi) (every other "
                "token), g = " + frequency_label(o, fastest) +
                ": the shortest context L <= " + std::to_string(st.max_L) +
                " at which one swap takes a target attended with alpha > 1 - epsilon to alpha <= 1/2; a break at L persists "
                "at every longer context (proved: the distractor mass only grows)";
  nlohmann::json phase_json = nlohmann::json::array();
  for (const auto& p : phases) phase_json.push_back(p.first);
  const std::string slow_name = o.spectrum.model ? "g=slowest of " + resolve(o.spectrum).name : "g=g_119";
  c.parameters = {{"configuration", std::string(o.frequency ? "g=" + *o.frequency : fastest ? "g=1" : slow_name) + " phases"},
                  {"frequency", frequency_label(o, fastest)}, {"frequency_value", decimal_bounds(g, 20).lower},
                  {"epsilon", st.epsilon_text},              {"phases", phase_json},
                  {"max_L", st.max_L},                       {"target_strength", kTargetStrength},
                  {"other_strength", kOtherStrength},        {"precision_bits", precision.bits()}};
  c.method = "interval arithmetic (MPFI), " + std::to_string(precision.bits()) +
             " bits: every context L scanned in order (break and no-break certified at each), the swap re-evaluated "
             "by the library softmax over all L + 1 activations";
  c.expected = Verdict::holds;

  const Vector<Interval> q = [] {
    Vector<Interval> v(2);
    v[0] = Interval(1), v[1] = Interval(0);
    return v;
  }();
  const Interval at_strength = from_decimal<Interval>(kTargetStrength), ao_strength = from_decimal<Interval>(kOtherStrength);
  bool all = true, all_decided = true;
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& p : phases) {
    const std::string acc = "a decimal or K*pi/M with |phi| <= 100";
    const Interval phi = angle_option(p.second, p.second, "--phase", acc);
    if (upper_of(abs(phi)) > 100) throw InputError("--phase", acc, p.second);
    Interval sp, cp;
    sin_cos(phi, sp, cp);
    // q = (1, 0), k = A (cos phi, sin phi): q^T rho(-s g) k = A cos(s g - phi).
    Vector<Interval> kt(2), ko(2);
    kt[0] = at_strength * cp, kt[1] = at_strength * sp;
    ko[0] = -ao_strength * cp, ko[1] = -ao_strength * sp;
    const TwoTypeChannel ch{g, pair_products(q, kt), pair_products(q, ko)};
    const BreakingSwap b = shortest_breaking_context(ch, st.epsilon, st.max_L);
    all = all && b.found;
    all_decided = all_decided && b.decided;
    const Interval estimate = (phi + pi_value<Interval>() / 2) / g;
    nlohmann::json row = {{"phase", p.first},
                          {"sign_flip_estimate_(phi+pi/2)/g", to_decimal(midpoint(estimate), 8, Rounding::nearest)},
                          {"decided", b.decided},
                          {"break_certified", b.found},
                          {"shortest_breaking_context", b.L}};
    if (b.found) {
      row["attended_before_swap"] = b.attended;
      row["target_distance_before"] = b.s_before;
      row["target_distance_after"] = b.s_after;
      row["alpha_before"] = bounds_json(b.alpha_before, 12);
      row["alpha_after"] = bounds_json(b.alpha_after, 12);
      row["a_target_before"] = decimal_bounds(b.a_target_before, 8).lower;
      row["proof_case"] = certainly_positive(b.a_target_before) ? "a_{i,n} > 0 (target first moved to a negative position)"
                                                                 : "a_{i,n} <= 0 or undecided sign";
      row["a_target_after"] = decimal_bounds(b.a_target_after, 8).upper;
      row["a_other_max_after"] = decimal_bounds(b.a_other_max_after, 8).lower;
      row["by_lemma_a3"] = b.lemma_a3;
      const std::string l = "phi=" + p.first + ": ";
      c.quantities.push_back(exact_integer(l + "shortest breaking context L", b.L));
      c.quantities.push_back(enclosure(l + "(phi + pi/2)/g", estimate, 8));
      if (b.attended) {
        c.quantities.push_back(enclosure(l + "alpha before the swap", b.alpha_before, 8));
        c.quantities.push_back(enclosure(l + "alpha after the swap", b.alpha_after, 8));
      } else {
        c.quantities.push_back({l + "configuration attended with alpha > 1 - epsilon at that L", "none", "none", "exact"});
      }
    }
    if (!b.note.empty()) row["note"] = b.note;
    rows.push_back(row);
  }
  c.details = {{"phases", rows},
               {"model", "positions 0..L, query at L, one target, the same distractor at every other position (distance 0 is the "
                         "query itself); a swap = the transposition of the target with one distractor"}};
  // holds: at every phase a break is certified at some L_break <= max_L (with no break at any
  // shorter context). From L_break on, every configuration is either not attended with
  // alpha > 1 - epsilon or broken by one swap: the theorem's conclusion, for every L >= L_break.
  // Where some configuration is attended at L_break the swap itself is certified and reported. No
  // break up to max_L does not refute "for large enough N": inconclusive.
  c.verdict = all ? Verdict::holds : Verdict::inconclusive;
  if (!all && all_decided) c.details["precision_cannot_help"] = true;  // every context was decided: no break up to max_L
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

void add_sink_rows(Certificate& c, const SinkBreak& r, const std::string& prefix) {
  c.quantities.push_back(exact_integer(prefix + "first context with alpha_{L,0} <= 1 - epsilon", r.first_sharp_hi));
  c.quantities.push_back(exact_integer(prefix + "first context with alpha_{L,0} <= 1/2", r.first_half_hi));
}

// (2) and (3): the apostrophe channel under RoPE; `stability` selects the 8192-context certificate.
Certificate check_apostrophe(const ClaimOptions& o, bool stability, unsigned bits) {
  const auto start = std::chrono::steady_clock::now();
  ScopedPrecision precision(bits);
  const Settings st = read_settings(o);
  const Interval g = channel_frequency(o, false);
  // The 8192 statement needs every context up to 8192 whatever --max-n says.
  const long long max_L = std::max(st.max_L, kGemmaContext);
  const SinkBreak r = sink_channel_break(apostrophe_channel(g), st.epsilon, kGemmaContext, max_L);

  Certificate c;
  c.claim_id = "thm-6.1";
  c.parameters = {{"configuration", stability ? "apostrophe, 8192" : "apostrophe, RoPE"},
                  {"frequency", frequency_label(o, false)},
                  {"frequency_value", decimal_bounds(g, 20).lower},
                  {"q_notBOS", {kApostropheQuery[0], kApostropheQuery[1]}},
                  {"k_notBOS", {kApostropheOtherKey[0], kApostropheOtherKey[1]}},
                  {"k_BOS", {kApostropheSinkKey[0], kApostropheSinkKey[1]}},
                  {"epsilon", st.epsilon_text},
                  {"context", kGemmaContext},
                  {"max_L", max_L},
                  {"precision_bits", precision.bits()}};
  c.method = "interval arithmetic (MPFI), " + std::to_string(precision.bits()) +
             " bits, every context L = 1.. in order (running sum of distractor weights)";
  c.expected = Verdict::holds;
  c.details = {{"first_sharp", {r.first_sharp_lo, r.first_sharp_hi}}, {"first_half", {r.first_half_lo, r.first_half_hi}}};
  c.quantities.push_back(enclosure("1 - alpha_{8192,0} (attention not on BOS at gemma-7b's context)", r.one_minus_alpha_at_context, 6));

  if (stability) {
    c.statement = "apostrophe head, pair 119 of gemma-7b in isolation (Appendix E.1 vectors): the query at position L attends to "
                  "BOS with alpha_{L,0} > 1 - epsilon for every L <= 8192 (the paper: 'stable given the limited context length')";
    add_sink_rows(c, r, "");
    // holds: every L <= 8192 certified above 1 - epsilon; fails: some L <= 8192 certified at or
    // below; otherwise undecided.
    c.verdict = r.first_sharp_lo > kGemmaContext || (r.first_sharp_lo == 0 && r.first_sharp_hi == 0)
                    ? Verdict::holds
                    : (r.first_sharp_hi && r.first_sharp_hi <= kGemmaContext ? Verdict::fails : Verdict::inconclusive);
  } else {
    c.statement = "apostrophe head, pair 119 of gemma-7b in isolation (Appendix E.1 vectors), BOS at 0, the not-BOS token at 1..L, "
                  "query at L: the first context L <= " + std::to_string(max_L) +
                  " at which BOS gets alpha_{L,0} <= 1/2 (and <= 1 - epsilon), every shorter context certified above; no swap is needed";
    add_sink_rows(c, r, "");
    // Sensitivity to the printed one-decimal rounding: every component in [x - 0.05, x + 0.05].
    // A coarse bound (interval inputs lose the correlation between the pair products u and w), so
    // the range is an outer bound of the true spread over the rounding box.
    const SinkBreak box = sink_channel_break(apostrophe_channel_box(g, "0.05"), st.epsilon, kGemmaContext, max_L);
    c.quantities.push_back({"over the rounding box: first context with alpha <= 1 - epsilon", std::to_string(box.first_sharp_lo),
                            box.first_sharp_hi ? std::to_string(box.first_sharp_hi) : "not reached", "enclosure"});
    c.quantities.push_back({"over the rounding box: first context with alpha <= 1/2", std::to_string(box.first_half_lo),
                            box.first_half_hi ? std::to_string(box.first_half_hi) : "not reached", "enclosure"});
    c.details["rounding_box"] = {{"halfwidth", "0.05"},
                                 {"first_sharp", {box.first_sharp_lo, box.first_sharp_hi}},
                                 {"first_half", {box.first_half_lo, box.first_half_hi}}};
    // holds: the break (alpha <= 1/2) is certified at an exact first context; a context that
    // cannot be decided is inconclusive; no break up to max_L does not refute "large enough N".
    c.verdict = r.decided() ? Verdict::holds : Verdict::inconclusive;
    // Every context up to max_L decided and none at or below 1/2: no precision changes that.
    if (!r.first_half_lo) c.details["precision_cannot_help"] = true;
  }
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

// (4) The same channel under p-RoPE: gemma-7b's pair 119 has frequency 0 in p-RoPE 0.75.
Certificate check_p_rope(const ClaimOptions& o, unsigned bits) {
  const auto start = std::chrono::steady_clock::now();
  ScopedPrecision precision(bits);
  const Settings st = read_settings(o);
  SpectrumRequest req;
  req.config = "gemma-7b";
  req.variant = Variant::p_rope;
  req.fraction = "0.75";
  const ResolvedSpectrum rs = resolve(req);
  const Interval g = frequencies<Interval>(rs.spectrum)[118];  // exactly 0: the pair is not rotated
  const SinkChannel ch = apostrophe_channel(g);
  const long long N = st.prope_N;

  Certificate c;
  c.claim_id = "thm-6.1";
  c.statement = "control: the apostrophe channel under p-RoPE 0.75 (pair 119 of gemma-7b has frequency 0): alpha_{L,0} > 1 - epsilon "
                "for every L <= " + std::to_string(N) + " and no permutation of positions changes any activation";
  c.expected = Verdict::holds;
  const long long trials = o.trials.value_or(64);
  c.parameters = {{"configuration", "apostrophe, p-RoPE"}, {"spectrum", rs.spectrum.describe()}, {"pair", 119},         {"epsilon", st.epsilon_text},
                  {"N", N},                             {"samples", trials},   {"seed", o.seed},
                  {"stream", kSampleStream},            {"precision_bits", precision.bits()}};
  c.method = "closed form alpha_L = 1/(1 + L e^{a_o - a_b}) (decreasing in L, certified at L = N) in MPFI, " +
             std::to_string(precision.bits()) + " bits; activations at seeded random positions compared endpoint by endpoint";

  // Position independence: rho(0) = I, so a_{i,j} = q^T k at every (i, j). Checked on sampled
  // pairs through the same code path RoPE uses, endpoint by endpoint (exact equality is expected:
  // the angle is exactly 0 and sin/cos of 0 are exact).
  const Interval ab0 = channel_activation(ch.sink, g, 0), ao0 = channel_activation(ch.other, g, 0);
  const CounterRng rng(o.seed, kSampleStream);
  long long identical = 0;
  auto same = [](const Interval& x, const Interval& y) {
    return mpfr_equal_p(lower_of(x).backend().data(), lower_of(y).backend().data()) &&
           mpfr_equal_p(upper_of(x).backend().data(), upper_of(y).backend().data());
  };
  for (long long t = 0; t < trials; ++t) {
    const long long i = static_cast<long long>(rng.bits(2 * static_cast<std::uint64_t>(t)) % static_cast<std::uint64_t>(N)) + 1;
    const long long j = static_cast<long long>(rng.bits(2 * static_cast<std::uint64_t>(t) + 1) % static_cast<std::uint64_t>(i + 1));
    if (same(channel_activation(ch.sink, g, i - j), ab0) && same(channel_activation(ch.other, g, i - j), ao0)) ++identical;
  }
  // alpha_N > 1 - eps  <=>  N e^{a_o - a_b} < eps / (1 - eps).
  const Interval ratio = exp(Interval(ao0 - ab0));
  const Interval lhs = Interval(N) * ratio, rhs = st.epsilon / (1 - st.epsilon);
  const bool survives = certainly_less(lhs, rhs);
  const Interval one_minus_alpha_N = lhs / (1 + lhs);
  // Cross-check of the closed form against the scan sink_channel_break uses (library path).
  const long long small = std::min<long long>(N, 2048);
  const SinkBreak scan = sink_channel_break(ch, st.epsilon, small, small);
  const Interval closed_small = Interval(small) * ratio / (1 + Interval(small) * ratio);
  const bool consistent = overlaps(scan.one_minus_alpha_at_context, closed_small) && scan.first_sharp_lo == 0;

  c.quantities.push_back(exact_integer("sampled (i, j) with a_{i,j} identical to a_{0,0}", identical));
  c.quantities.push_back(enclosure("a_BOS (every position)", ab0, 8));
  c.quantities.push_back(enclosure("a_notBOS (every position)", ao0, 8));
  c.quantities.push_back(enclosure("1 - alpha_{N,0}", one_minus_alpha_N, 6));
  c.quantities.push_back(enclosure("shortest context with alpha <= 1 - epsilon: eps/(1-eps) e^{a_b - a_o}", Interval(rhs / ratio), 6));
  c.details = {{"closed_form_matches_scan_at", small}, {"consistent", consistent}, {"survives_to_N", survives}};
  c.verdict = survives && consistent && identical == trials ? Verdict::holds : Verdict::inconclusive;
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

}  // namespace

std::vector<Certificate> check_thm_6_1(const ClaimOptions& o) {
  {
    ScopedPrecision p(o.precision_bits);
    read_settings(o);  // bad --epsilon fails before any work
  }
  const unsigned b0 = o.precision_bits, cap = o.max_precision_bits;
  std::vector<Certificate> out;
  out.push_back(certify_with_retry(b0, cap, [&](unsigned bits) { return check_phase_table(o, false, bits); }));
  if (!o.frequency) out.push_back(certify_with_retry(b0, cap, [&](unsigned bits) { return check_phase_table(o, true, bits); }));
  out.push_back(certify_with_retry(b0, cap, [&](unsigned bits) { return check_apostrophe(o, false, bits); }));
  out.push_back(certify_with_retry(b0, cap, [&](unsigned bits) { return check_apostrophe(o, true, bits); }));
  out.push_back(certify_with_retry(b0, cap, [&](unsigned bits) { return check_p_rope(o, bits); }));
  return out;
}

}  // namespace ropecheck::proofs

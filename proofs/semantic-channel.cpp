#include "semantic-channel.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "attention/softmax.h"
#include "io/input_error.h"

namespace ropecheck::proofs {

namespace {

// cos and sin of the relative angle -s*g, as the one-pair tables activation() takes.
struct PairAngle {
  std::vector<Interval> c{Interval(1)}, s{Interval(0)};
  PairAngle(const Interval& g, long long dist) { sin_cos(rotation_angle<Interval>(-dist, g), s[0], c[0]); }
};

Interval at(const PairProducts<Interval>& qk, const PairAngle& angle) { return activation(qk, angle.c, angle.s); }

}  // namespace

Interval channel_activation(const PairProducts<Interval>& qk, const Interval& g, long long s) {
  return at(qk, PairAngle(g, s));
}

Vector<Interval> two_type_activations(const TwoTypeChannel& ch, long long L, long long s) {
  if (s < 1 || s > L) throw std::invalid_argument("two_type_activations: the target distance must be in 1..L");
  Vector<Interval> a(L + 1);
  for (long long j = 0; j <= L; ++j) {
    const long long dist = L - j;
    a[j] = channel_activation(dist == s ? ch.target : ch.other, ch.g, dist);
  }
  return a;
}

Interval attention_to(const TwoTypeChannel& ch, long long L, long long s) {
  const Vector<Interval> alpha = softmax(two_type_activations(ch, L, s));
  return alpha[L - s];
}

long long lemma_a3_context_bound(const Interval& g) {
  const Interval pi = pi_value<Interval>();
  if (!(lower_of(g) > 0) || !certainly_less(g, pi))
    throw InputError("g", "an interval certainly inside (0, pi)",
                     "[" + lower_of(g).str(20) + ", " + upper_of(g).str(20) + "]");
  const Real turns = upper_of(Interval(2 * pi / g));
  const Real t = ceil(turns) + 1;
  if (!(t <= Real(static_cast<double>(std::int64_t{1} << 61))))
    throw InputError("g", "a frequency whose Lemma A.3 bound 2 ceil(2 pi/g) + 2 is at most 2^62", "g = " + lower_of(g).str(20));
  return 2 * t.convert_to<long long>();
}

BreakingSwap shortest_breaking_context(const TwoTypeChannel& ch, const Interval& epsilon, long long max_L) {
  BreakingSwap b;
  const Interval one_minus_eps = 1 - epsilon;
  Interval S = exp(channel_activation(ch.other, ch.g, 0));  // the query's own key, distance 0
  Real min_c_upper = std::numeric_limits<double>::infinity(), min_c_lower = min_c_upper;
  Real best_d = -std::numeric_limits<double>::infinity();
  long long s_break = 0, s_attended = 0;
  for (long long L = 1; L <= max_L; ++L) {
    // Distance L is new at context L; every shorter distance keeps its activation.
    const PairAngle angle(ch.g, L);
    const Interval et = exp(at(ch.target, angle)), eo = exp(at(ch.other, angle));
    S += eo;
    const Interval c = et + eo;
    if (upper_of(c) < min_c_upper) min_c_upper = upper_of(c), s_break = L;
    if (lower_of(c) < min_c_lower) min_c_lower = lower_of(c);
    // alpha_L(s) > 1 - eps  <=>  eps e^{a_t(s)} + (1 - eps) e^{a_o(s)} > (1 - eps) S_L: the s with
    // the largest left side is attended whenever any s is. Midpoints pick it; attention_to certifies.
    const Real d = midpoint(Interval(epsilon * et + one_minus_eps * eo));
    if (d > best_d) best_d = d, s_attended = L;
    if (min_c_upper <= lower_of(S)) {
      b.decided = b.found = true;
      b.L = L;
      break;
    }
    if (!(min_c_lower > upper_of(S))) {
      b.note = "context " + std::to_string(L) + " could not be decided at this precision";
      return b;
    }
  }
  if (!b.found) {
    b.decided = true;
    b.note = "no breaking swap at any context <= " + std::to_string(max_L);
    return b;
  }
  // The swap, re-evaluated from scratch with the library softmax over all L + 1 activations.
  b.s_after = s_break;
  b.alpha_after = attention_to(ch, b.L, s_break);
  const Vector<Interval> after = two_type_activations(ch, b.L, s_break);
  b.a_target_after = after[b.L - s_break];
  Real best_lower = -std::numeric_limits<double>::infinity();
  for (long long j = 0; j <= b.L; ++j) {
    if (j == b.L - s_break) continue;
    if (lower_of(after[j]) > best_lower) best_lower = lower_of(after[j]), b.a_other_max_after = after[j];
  }
  b.lemma_a3 = certainly_less(b.a_target_after, b.a_other_max_after);
  if (!(upper_of(b.alpha_after) <= Real(0.5))) {
    b.found = b.decided = false;
    b.note = "the scan's break at context " + std::to_string(b.L) + " is not confirmed by the direct softmax";
    return b;
  }
  b.s_before = s_attended;
  b.alpha_before = attention_to(ch, b.L, s_attended);
  b.a_target_before = channel_activation(ch.target, ch.g, s_attended);
  b.attended = lower_of(b.alpha_before) > upper_of(one_minus_eps);
  if (!b.attended)
    b.note = "no target distance at context " + std::to_string(b.L) +
             " is certified to get alpha > 1 - epsilon: the channel is already unusable there";
  return b;
}

SinkBreak sink_channel_break(const SinkChannel& ch, const Interval& epsilon, long long context, long long max_L) {
  SinkBreak r;
  r.context = context;
  const Interval one_minus_eps = 1 - epsilon;
  Interval S(0);
  PairAngle previous(ch.g, 0);
  for (long long L = 1; L <= max_L; ++L) {
    // The distractors sit at distances 0..L-1; the one new at context L is at distance L-1, whose
    // angle the previous step computed for the sink.
    S += exp(at(ch.other, previous));
    const PairAngle angle(ch.g, L);
    const Interval eb = exp(at(ch.sink, angle));
    previous = angle;
    // alpha_L <= 1 - eps  <=>  eps e^{a_b} <= (1 - eps) S;  alpha_L <= 1/2  <=>  e^{a_b} <= S.
    const Interval sharp_l = epsilon * eb, sharp_r = one_minus_eps * S;
    if (!r.first_sharp_lo && lower_of(sharp_l) <= upper_of(sharp_r)) r.first_sharp_lo = L;
    if (!r.first_sharp_hi && upper_of(sharp_l) <= lower_of(sharp_r)) r.first_sharp_hi = L;
    if (!r.first_half_lo && lower_of(eb) <= upper_of(S)) r.first_half_lo = L;
    if (!r.first_half_hi && upper_of(eb) <= lower_of(S)) r.first_half_hi = L;
    if (L == context) r.one_minus_alpha_at_context = S / (eb + S);
    if (r.first_half_hi && r.first_sharp_hi && L >= context) break;
  }
  return r;
}

namespace {

Vector<Interval> vec2(const char* const v[2], const char* halfwidth = nullptr) {
  Vector<Interval> out(2);
  for (int i = 0; i < 2; ++i) {
    out[i] = from_decimal<Interval>(v[i]);
    if (halfwidth) {
      const Interval h = from_decimal<Interval>(halfwidth);
      out[i] = hull_of(Interval(out[i] - h), Interval(out[i] + h));
    }
  }
  return out;
}

SinkChannel apostrophe_channel_impl(const Interval& g, const char* halfwidth) {
  const Vector<Interval> q = vec2(kApostropheQuery, halfwidth);
  return {g, pair_products(q, vec2(kApostropheSinkKey, halfwidth)), pair_products(q, vec2(kApostropheOtherKey, halfwidth))};
}

}  // namespace

SinkChannel apostrophe_channel(const Interval& g) { return apostrophe_channel_impl(g, nullptr); }

SinkChannel apostrophe_channel_box(const Interval& g, const std::string& halfwidth) {
  return apostrophe_channel_impl(g, halfwidth.c_str());
}

}  // namespace ropecheck::proofs

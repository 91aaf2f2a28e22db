// Tests for adversarial/bounded_scan.h and the binary64 routes beside it (detail/float_activations.h's
// error bound, detail/bounded_attention.h): each is compared with the MPFI route it replaces, which
// encloses the same reals ~10^25 times more tightly, so any overlap failure or disagreement of a
// decided verdict is a wrong error bound, not noise.
#include "adversarial/bounded_scan.h"

#include <gtest/gtest.h>

#include <cmath>

#include "adversarial/certify.h"
#include "adversarial/detail/bounded_attention.h"
#include "adversarial/detail/distance_sweep.h"
#include "adversarial/detail/float_activations.h"
#include "adversarial/presets.h"
#include "io/input_error.h"
#include "numeric/precision.h"
#include "random/counter_rng.h"
#include "tests/support/show.h"

namespace ropecheck::adversarial {
namespace {

Interval mpfi_activation(const Head& h, TypeId t, long long s) {
  detail::DistanceSweep sweep(h, {t}, 128);
  sweep.advance_to(s);
  ScopedPrecision precision(128);
  Interval r;
  mpfi_set(r.backend().data(), sweep.activation(0));
  return r;
}

// A head with random dyadic components (exact in binary64 and MPFI) on the slowest `chunks` pairs
// of a spectrum: the query's components scaled by `scale`, the keys' in [-1, 1).
Head random_head(const SpectrumRequest& request, int chunks, double scale, std::uint64_t seed, bool bos) {
  Head h;
  h.spectrum_request = request;
  h.spectrum = resolve(h.spectrum_request).spectrum;
  const int d = h.dim();
  const CounterRng rng(seed, 7);
  std::uint64_t i = 0;
  const int first = h.spectrum.pairs() - chunks;
  auto vec = [&](double f) {
    std::vector<double> v(d, 0.0);
    for (int p = first; p < first + chunks; ++p)
      for (int c = 0; c < 2; ++c) v[2 * p + c] = f * rng.uniform_dyadic(i++);
    return v;
  };
  h.query = vec(scale);
  h.target = vec(1.0);
  h.distractors = {vec(1.0)};
  if (bos) h.bos = vec(1.0);
  validate(h);
  return h;
}

SpectrumRequest model(const std::string& name) {
  SpectrumRequest r;
  r.model = name;
  return r;
}

SpectrumRequest config(const std::string& name) {
  SpectrumRequest r;
  r.config = name;
  return r;
}

// d = 8, theta = 10^4: g = 1, 0.1, 0.01, 0.001, so the slowest chunks turn within a few thousand tokens.
SpectrumRequest fast_turning() {
  SpectrumRequest r;
  r.dim = 8;
  r.theta = "10000";
  return r;
}

Head apostrophe_channel() {
  Head h = preset_head("gemma-7b-apostrophe");
  return h;
}

TEST(FloatActivationsBound, ContainsTheMpfiActivationAtEveryTestedDistance) {
  std::vector<Head> heads = {apostrophe_channel(), preset_head("llama-3.1-8b-band8")};
  for (const char* m : {"qwen2.5-7b-yarn", "phi-3.5-mini", "gpt-oss-20b", "deepseek-v3"})
    heads.push_back(random_head(model(m), 4, 16.0, 3, true));
  heads.push_back(random_head(config("gemma-7b"), 16, 4.0, 5, false));
  std::vector<long long> distances;
  for (long long s = 0; s < 40; ++s) distances.push_back(s);
  for (int e = 6; e <= 62; e += 4) distances.push_back((1LL << e) - 1), distances.push_back(1LL << e);
  double worst_ratio = 0;
  for (const Head& h : heads) {
    detail::FloatActivations act(h, detail::FloatActivations::default_types(h));
    for (long long s : distances) {
      act.at(s);
      for (size_t i = 0; i < act.types(); ++i) {
        const TypeId t = detail::FloatActivations::default_types(h)[i];
        const Interval ref = mpfi_activation(h, t, s);
        const double got = act.activation(i), E = act.error_bound(i);
        ScopedPrecision precision(128);
        const Interval claimed = Interval(got) + Interval(-E, E);
        ASSERT_TRUE(overlaps(ref, claimed)) << h.spectrum.describe() << " type " << type_name(t) << " s=" << s << " ref=" << show(ref)
                                            << " got=" << show(got) << " bound=" << show(E);
        const double err = std::fabs(got - to_double(ref));
        if (E > 0) worst_ratio = std::max(worst_ratio, err / E);
      }
    }
  }
  // For the record: how much of the bound the sampled errors use (a lower bound on its tightness).
  std::printf("float activations: worst sampled error / proved bound = %.3g\n", worst_ratio);
}

// The binary64 pass and the MPFI pass must give the same answer wherever both decide: the same
// first breaking context (re-checked by certified_attention at that context, at the two distances
// the pass names), or both "nothing breaks".
void expect_same_answer(const Head& h, long long max_L, int& found, int& undecided) {
  const BoundedScan b = bounded_scan(h, max_L);
  const MinimalityCheck m = certify_no_shorter_break_mpfi(h, max_L + 1);
  const std::string where = h.spectrum.describe() + (h.bos ? " (bos)" : "") + ", contexts up to " + std::to_string(max_L) + ": binary64 " +
                            outcome_name(b.outcome) + " at " + std::to_string(b.context) + ", MPFI " + decision_name(m.none_shorter) + " " +
                            std::to_string(m.first_break);
  ASSERT_NE(b.outcome, BoundedScan::Outcome::not_applicable) << where << ": " << b.reason;
  if (b.outcome == BoundedScan::Outcome::undecided) {
    std::printf("undecided: %s\n", where.c_str());
    ++undecided;
    return;
  }
  if (b.outcome == BoundedScan::Outcome::none) {
    EXPECT_EQ(m.none_shorter, Decision::yes) << where;
    return;
  }
  ++found;
  EXPECT_EQ(m.none_shorter, Decision::no) << where;
  EXPECT_EQ(m.first_break, b.context) << where;
  const AttentionEnclosure works = certified_attention(h, fill_sequence(h, b.context, b.distance_before), 128);
  const AttentionEnclosure breaks = certified_attention(h, fill_sequence(h, b.context, b.distance_after), 128);
  EXPECT_EQ(works.works, Decision::yes) << where << " alpha " << show(works.alpha);
  EXPECT_EQ(breaks.breaks, Decision::yes) << where << " alpha " << show(breaks.alpha);
  EXPECT_LT(b.relative_radius, 1e-9) << where;  // E grows with the activations: ~1e-14 per unit of magnitude
}

TEST(BoundedScan, AgreesWithTheMpfiPassOnEveryTestedHead) {
  int found = 0, undecided = 0;
  expect_same_answer(apostrophe_channel(), 12000, found, undecided);  // breaks at 11865 (thm-6.1's head)
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    expect_same_answer(random_head(fast_turning(), 3, 6.0 + seed, seed, false), 3000, found, undecided);
    expect_same_answer(random_head(fast_turning(), 4, 4.0 + seed, 100 + seed, true), 3000, found, undecided);
  }
  std::printf("bounded scan vs MPFI: %d heads broke (same context both ways), %d left undecided by binary64\n", found, undecided);
  EXPECT_GE(found, 5) << "the comparison must see real breaks, or it checks nothing";
  EXPECT_EQ(undecided, 0) << "these heads have margins far above the budget's 1e-12";
  // Activations in the hundreds to thousands: the common shift e^-A and dropped terms
  // (float_activations.h). Where every term of a short context is dropped (all more than 600
  // below the peak bound) the pass is undecided and the callers fall back to MPFI: allowed here,
  // but whatever it decides must be the MPFI pass's answer, and it must decide some.
  int big_found = 0, big_undecided = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    expect_same_answer(random_head(fast_turning(), 3, 100.0 * seed, 200 + seed, false), 2000, big_found, big_undecided);
    expect_same_answer(random_head(fast_turning(), 3, 100.0 * seed, 300 + seed, true), 2000, big_found, big_undecided);
  }
  std::printf("large activations: %d broke (same context both ways), %d undecided by binary64\n", big_found, big_undecided);
  EXPECT_GE(big_found, 3);
}

// Large activations on slowly turning chunks, over 8000 contexts: the binary64 pass (with its
// common shift), the same with the MPFI prefix hand-off, and the pass resumed after 4096 contexts
// alone must never contradict the MPFI pass. (These seeds are all decided by the binary64 pass
// alone, so the MPFI hand-off itself is not reached here; the fuzz's random heads with activations in the
// tens of thousands still leave the binary64 pass undecided later on, where an activation rises
// more than 600 above the shift: they fall back to MPFI; see docs/adversarial.md.)
TEST(BoundedScan, MpfiPrefixThenBinary64AgreesWithMpfi) {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    for (bool bos : {false, true}) {
      SpectrumRequest slow = fast_turning();
      slow.theta = "100000000";  // g = 1, 0.01, 1e-4, 1e-6: the two slowest chunks barely turn
      const Head h = random_head(slow, 2, 150.0 * seed, (bos ? 500 : 400) + seed, bos);
      const BoundedScan alone = bounded_scan(h, 8000);
      const BoundedScan b = bounded_scan_with_mpfi_prefix(h, 8000);
      const MinimalityCheck m = certify_no_shorter_break_mpfi(h, 8001);
      const std::string where = "seed " + std::to_string(seed) + (bos ? " bos" : "") + ": alone " + outcome_name(alone.outcome) + " at " +
                                std::to_string(alone.context) + ", with prefix " + outcome_name(b.outcome) + " at " + std::to_string(b.context) +
                                ", MPFI " + decision_name(m.none_shorter) + " " + std::to_string(m.first_break);
      if (b.outcome == BoundedScan::Outcome::none) {
        EXPECT_EQ(m.none_shorter, Decision::yes) << where;
      }
      if (b.outcome == BoundedScan::Outcome::found) {
        EXPECT_TRUE(m.none_shorter == Decision::no && m.first_break == b.context) << where;
      }
      // The resumed pass alone (contexts from 4097, as after an MPFI prefix) never contradicts MPFI.
      const BoundedScan resumed = bounded_scan(h, 8000, kMpfiPrefixContexts + 1);
      if (m.none_shorter == Decision::yes) {
        EXPECT_NE(resumed.outcome, BoundedScan::Outcome::found) << where;
      }
      if (m.none_shorter == Decision::no && m.first_break > kMpfiPrefixContexts && resumed.outcome == BoundedScan::Outcome::found) {
        EXPECT_EQ(resumed.context, m.first_break) << where;
      }
    }
  }
}

TEST(BoundedScan, LlamaBandBreakIsTheOneTheMpfiRouteFound) {
  // The llama-3.1-8b band head breaks at 3,644,840 tokens: found by the MPFI route before the
  // binary64 scan existed (fuzz --config llama-3.1-8b-band8, 100 s), certified minimal by it.
  const BoundedScan b = bounded_scan(preset_head("llama-3.1-8b-band8"), 1LL << 22);
  ASSERT_EQ(b.outcome, BoundedScan::Outcome::found) << outcome_name(b.outcome);
  EXPECT_EQ(b.context, 3644840);
  EXPECT_EQ(b.distance_before, 875969);
  EXPECT_EQ(b.distance_after, 3644840);
}

TEST(BoundedScan, NotApplicableOutsideItsBudgetAndTheFamily) {
  Head huge = random_head(fast_turning(), 2, 1e9, 9, false);  // activation error bound above 2^-20
  EXPECT_EQ(bounded_scan(huge, 100).outcome, BoundedScan::Outcome::not_applicable);
  Head two = random_head(fast_turning(), 2, 4.0, 9, false);
  two.distractors.push_back(two.distractors[0]);
  EXPECT_EQ(bounded_scan(two, 100).outcome, BoundedScan::Outcome::not_applicable);
  EXPECT_THROW(bounded_scan(two, 0), InputError);
  EXPECT_THROW(bounded_scan(two, (1LL << 31) + 1), InputError);
}

TEST(BoundedAttention, OverlapsTheMpfiEnclosuresOnMixedSequences) {
  for (double scale : {5.0, 900.0}) {  // 900: activations in the thousands, shifted, terms dropped
  Head h = random_head(fast_turning(), 3, scale, 42, true);
  h.distractors.push_back(random_head(fast_turning(), 3, scale, 43, false).distractors[0]);
  validate(h);
  Sequence s;
  s.length = 2000;
  s.fill = distractor(0);
  s.set(0, kBos);
  s.set(777, kTarget);
  for (long long p = 3; p < 1999; p += 7) s.set(p, distractor(1));
  validate(s, h);
  const auto fast = detail::bounded_attention(h, {s}, 128);
  ASSERT_TRUE(fast.has_value());
  const AttentionEnclosure ref = certified_attention(h, s, 128);
  const AttentionEnclosure& got = fast->front();
  EXPECT_TRUE(overlaps(ref.alpha, got.alpha)) << "ref=" << show(ref.alpha) << " got=" << show(got.alpha);
  EXPECT_TRUE(overlaps(ref.a_target, got.a_target)) << "ref=" << show(ref.a_target) << " got=" << show(got.a_target);
  EXPECT_TRUE(overlaps(ref.a_other_max, got.a_other_max)) << "ref=" << show(ref.a_other_max) << " got=" << show(got.a_other_max);
  ScopedPrecision precision(128);
  EXPECT_LT(to_double(upper_of(got.alpha) - lower_of(got.alpha)), 1e-11 * to_double(upper_of(got.alpha)) + 1e-250) << show(got.alpha);
  }
}

}  // namespace
}  // namespace ropecheck::adversarial

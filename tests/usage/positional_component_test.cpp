// The positional-component test (usage/positional_component.h) and Theorem 6.1 separated by
// mechanism (usage/content_breaks.h), on captures built by hand so the answer is known:
//   head 0  a constant query and key on the fast pairs: its attention peaks at offset 0 only
//           because of the rotation (position-free, every score is equal: uniform attention)
//   head 1  the same, the query turned back by one token: offset 1, by position
//   head 2  content: the query is its own token's key, a random vector on every pair, so the row
//           rule calls it diagonal, but held still it attends to itself just as much
//   head 3  random content on the slow pairs only
#include "usage/usage.h"

#include <gtest/gtest.h>

#include <cmath>

#include "spectrum/hf_config.h"
#include "usage/usage_json.h"

namespace ropecheck::usage {
namespace component_test {

constexpr int kD = 16, kPairs = 8, kT = 64;

ModelDescription component_test_model() {
  return read_hf_config_text(R"({"model_type": "llama", "hidden_size": 64, "head_dim": 16, "num_attention_heads": 4,
    "num_key_value_heads": 2, "num_hidden_layers": 1, "max_position_embeddings": 256, "rope_theta": 10000.0})",
                             "component-test-config");
}

double omega(int p) { return std::pow(10000.0, -static_cast<double>(p) / kPairs); }

float noise(unsigned& state) {  // deterministic, in [-1, 1)
  state = state * 1664525u + 1013904223u;
  return static_cast<float>(static_cast<double>(state >> 8) / 8388608.0 - 1.0);
}

struct Built {
  CaptureGeometry g;
  std::vector<float> q, k;
  std::vector<long long> positions;
  float& qa(long long s, int h, int t, int c) { return q[static_cast<size_t>(((s * 4 + h) * kT + t) * kD + c)]; }
  float& ka(long long s, int kv, int t, int c) { return k[static_cast<size_t>(((s * 2 + kv) * kT + t) * kD + c)]; }
};

Built build(long long sequences) {
  Built b;
  b.g = CaptureGeometry{sequences, 1, 4, 2, kT, kD};
  b.q.assign(static_cast<size_t>(sequences * 4 * kT * kD), 0.f);
  b.k.assign(static_cast<size_t>(sequences * 2 * kT * kD), 0.f);
  for (long long s = 0; s < sequences; ++s)
    for (int t = 0; t < kT; ++t) b.positions.push_back(t);
  unsigned state = 11;
  for (long long s = 0; s < sequences; ++s)
    for (int t = 0; t < kT; ++t) {
      for (int p = 0; p < 4; ++p) {
        b.ka(s, 0, t, p) = 3.f;
        b.qa(s, 0, t, p) = 3.f;
        b.qa(s, 1, t, p) = static_cast<float>(3 * std::cos(omega(p)));
        b.qa(s, 1, t, p + kPairs) = static_cast<float>(-3 * std::sin(omega(p)));
      }
      for (int c = 0; c < kD; ++c) {
        b.ka(s, 1, t, c) = 3 * noise(state);
        b.qa(s, 2, t, c) = b.ka(s, 1, t, c);
      }
      for (int p = 6; p < 8; ++p)
        for (int side : {0, kPairs}) b.qa(s, 3, t, p + side) = 2 * noise(state);
    }
  return b;
}

UsageResult analyse(const Built& b, bool breaks = false) {
  auto source = memory_capture(b.g, Dtype::f32, b.q.data(), Dtype::f32, b.k.data(), b.positions);
  UsageOptions o;
  o.certify_breaks = breaks;
  o.null_sequences = 0;
  o.content_distance = 8;
  o.strong_match = 0.05;
  o.break_rows = 3;
  o.break_limit = 1 << 14;
  return analyse_usage(component_test_model(), *source, o);
}

TEST(PositionalComponent, SeparatesPositionFromContent) {
  const UsageResult r = analyse(build(6));
  const auto& h = r.layers[0].heads;
  // The row rule cannot tell them apart: heads 0 and 2 are both diagonal.
  EXPECT_EQ(h[0].kind(), HeadKind::diagonal);
  EXPECT_EQ(h[1].kind(), HeadKind::previous_token);
  EXPECT_EQ(h[2].kind(), HeadKind::diagonal);
  // The component test can: the rotation makes heads 0 and 1, not head 2.
  ASSERT_TRUE(h[0].component.offset);
  EXPECT_EQ(*h[0].component.offset, 0);
  ASSERT_TRUE(h[1].component.offset);
  EXPECT_EQ(*h[1].component.offset, 1);
  EXPECT_FALSE(h[2].component.offset);
  EXPECT_FALSE(h[3].component.offset);
  // Held still, head 0's scores are all equal: its position-free attention is uniform, 1/(i+1) on
  // row i, whose mean over rows 1..63 is (H_64 - 1) / 63.
  double harmonic = 0;
  for (int n = 2; n <= kT; ++n) harmonic += 1.0 / n;
  EXPECT_NEAR(h[0].component.offsets[0].position_free, harmonic / (kT - 1), 1e-12);
  EXPECT_GT(h[0].component.offsets[0].effect, 0.5);
  // Head 2 attends to itself with or without position: its effect at offset 0 is small, its
  // position-free mass there large.
  EXPECT_GT(h[2].component.offsets[0].position_free, 0.5);
  EXPECT_LT(std::abs(h[2].component.offsets[0].effect), 0.1);
  for (const OffsetEffect& e : h[0].component.offsets) {
    EXPECT_EQ(e.sequences, 6);
    EXPECT_LE(e.lo, e.effect);
    EXPECT_GE(e.hi, e.effect);
  }
  // The curve: counts fall with the cut and lie in their intervals.
  const ComponentTest& t = r.components;
  EXPECT_EQ(t.heads, 4);
  EXPECT_EQ(t.with_component, 2);
  EXPECT_EQ(t.family, 4 * 17);
  EXPECT_TRUE(std::isfinite(t.t_critical));
  ASSERT_EQ(t.curve.size(), 7u);
  for (size_t i = 0; i < t.curve.size(); ++i) {
    EXPECT_LE(t.curve[i].lo, t.curve[i].count);
    EXPECT_LE(t.curve[i].count, t.curve[i].hi);
    if (i > 0) {
      EXPECT_LE(t.curve[i].count, t.curve[i - 1].count);
    }
  }
  // Section 5 with these labels: removing the fast quarter moves the two positional heads most.
  EXPECT_EQ(r.section5.fast_removed.positional, 2);
  ASSERT_TRUE(r.section5.fast_removed.auc);
  EXPECT_EQ(*r.section5.fast_removed.auc, 1.0);
  EXPECT_EQ(r.section5.fast_removed_best.misclassified, 0);
  // Heads 0 and 1 read kv head 0 and are both positional: no kv group has both labels.
  EXPECT_TRUE(r.section5.query_share_kv_groups.layers.empty());
}

TEST(PositionalComponent, OneSequenceDecidesNothing) {
  const UsageResult r = analyse(build(1));
  EXPECT_FALSE(std::isfinite(r.components.t_critical));
  EXPECT_EQ(r.components.with_component, 0);
  for (const HeadUsage& h : r.layers[0].heads) EXPECT_FALSE(h.component.offset);
  for (const ComponentCurvePoint& p : r.components.curve) {
    EXPECT_EQ(p.lo, 0);
    EXPECT_EQ(p.hi, 4);
  }
  EXPECT_NE(r.components.statement.find("at least 2 sequences"), std::string::npos);
  // JSON spells the unbounded intervals.
  const auto j = usage_json(r);
  EXPECT_EQ(j["layers"][0]["heads"][0]["positional_component"]["offsets"][0]["interval"][0], "-inf");
}

TEST(PositionalComponent, BreaksSeparatedByMechanism) {
  // Head 3's content lives on the slow pairs alone: with only the slow quarter rotating its
  // certificate is the all-pairs one; with the slow quarter held still no score moves with the
  // key's distance, so a key that wins where it is wins at every distance.
  const UsageResult r = analyse(build(2), true);
  const HeadUsage& h = r.layers[0].heads[3];
  ASSERT_FALSE(h.breaks.empty());
  for (const ContentBreak& b : h.breaks) {
    ASSERT_TRUE(b.slow_only && b.slow_still);
    EXPECT_EQ(b.slow_only->outcome, b.outcome);
    EXPECT_EQ(b.slow_only->distance, b.distance);
    EXPECT_EQ(b.slow_still->outcome, "none");
    EXPECT_EQ(b.slow_still->limit, b.limit);
  }
  EXPECT_EQ(r.breaks_slow_still.none, r.breaks_slow_still.rows);
  EXPECT_EQ(r.breaks_slow_only.rows, r.breaks.rows);
}

}  // namespace component_test
}  // namespace ropecheck::usage

namespace ropecheck::usage {
namespace component_test_more {

TEST(PairAttribution, DiagonalAndPreviousTokenHeadsReachTheCauchySchwarzBound) {
  const UsageResult r = component_test::analyse(component_test::build(3));
  const auto& h = r.layers[0].heads;
  // Heads 0 and 1: q = R k at their offset on pairs 0..3 (q = k at offset 0; q turned back one token
  // at offset 1), so every used pair's contribution equals its Cauchy-Schwarz bound.
  for (int head : {0, 1}) {
    const HeadAttribution& a = h[static_cast<size_t>(head)].attribution;
    ASSERT_TRUE(a.offset);
    EXPECT_EQ(*a.offset, head);
    for (int p = 0; p < 4; ++p) {
      // Head 1's query is stored in float32: its chunk's norm is 3 (1 + O(2^-24)), and its angle to
      // R k is off by O(2^-24) rad, so the contribution is the bound times cos(that) = 1 - O(2^-48):
      // equal to 1e-12 relative (binary64 sums of 63 rows add ~1e-14 more). The bound is 3 |q_p|.
      const double qa = static_cast<float>(head == 0 ? 3.0 : 3 * std::cos(component_test::omega(p)));
      const double qb = static_cast<float>(head == 0 ? 0.0 : -3 * std::sin(component_test::omega(p)));
      const double bound = 3 * std::hypot(qa, qb);
      EXPECT_NEAR(a.offset_bound[static_cast<size_t>(p)], bound, 1e-12 * bound) << head << " " << p;
      EXPECT_NEAR(a.offset_logit[static_cast<size_t>(p)], bound, 1e-12 * bound) << head << " " << p;
    }
    for (size_t p = 4; p < a.offset_logit.size(); ++p) EXPECT_EQ(a.offset_logit[p], 0.0);
  }
  // A constant query chunk has constancy 1; a random one far less.
  EXPECT_NEAR(h[0].attribution.q_constancy[0], 1.0, 1e-12);
  EXPECT_LT(h[2].attribution.q_constancy[0], 0.5);
  EXPECT_FALSE(h[2].attribution.offset);  // no positional offset: nothing attributed there
  EXPECT_EQ(r.appendix_e.positional_heads, 2);
  EXPECT_NEAR(r.appendix_e.positional_alignment_median, 1.0, 1e-9);
}

TEST(DistanceLogits, RotationAloneMakesTheConstantHeadDecay) {
  const UsageResult r = component_test::analyse(component_test::build(3));
  // Head 0: q = k = 3 on channels 0..3 (pairs 0..3 at frequencies 10000^(-p/8)), scale 1/4: its
  // logit at distance d is (9/4) sum_p cos(omega_p d); held still it is 9 at every distance.
  const std::vector<DistanceBucket>& d = r.layers[0].heads[0].distance;
  ASSERT_EQ(d.size(), 7u);  // distances 0, [1, 2), ..., [32, 64)
  EXPECT_NEAR(d[0].logit.mean, 9.0, 1e-9);
  EXPECT_NEAR(d[1].logit.mean, 2.25 * (std::cos(1.0) + std::cos(component_test::omega(1)) + std::cos(component_test::omega(2)) + std::cos(component_test::omega(3))), 1e-9);
  for (const DistanceBucket& b : d) {
    EXPECT_NEAR(b.position_free.mean, 9.0, 1e-9);
    EXPECT_EQ(b.logit.n, 3);
    EXPECT_NEAR(b.difference.mean, b.logit.mean - b.position_free.mean, 1e-9);
  }
  EXPECT_LT(d[6].logit.mean, d[0].logit.mean);
  ASSERT_EQ(r.distance_by_layer_type.size(), 1u);
  EXPECT_EQ(r.distance_by_layer_type[0].second.size(), 7u);
}

}  // namespace component_test_more
}  // namespace ropecheck::usage

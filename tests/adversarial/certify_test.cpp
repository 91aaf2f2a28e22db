#include "adversarial/certify.h"

#include <gtest/gtest.h>

#include "adversarial/scan.h"
#include "attention/softmax.h"
#include "numeric/precision.h"
#include "spectrum/frequencies.h"

namespace ropecheck::adversarial {
namespace {

Head two_type(const std::string& config, int pair, std::vector<double> q, std::vector<double> t, std::vector<double> o) {
  Head h;
  h.spectrum_request.config = config;
  h.spectrum = resolve(h.spectrum_request).spectrum;
  const int d = h.dim();
  h.query.assign(d, 0.0);
  h.target.assign(d, 0.0);
  h.distractors.assign(1, std::vector<double>(d, 0.0));
  for (int i = 0; i < 2; ++i) h.query[2 * pair + i] = q[i], h.target[2 * pair + i] = t[i], h.distractors[0][2 * pair + i] = o[i];
  validate(h);
  return h;
}

Head apostrophe() { return two_type("gemma-7b", 118, {-4.1, 11.3}, {-2.5, 1.3}, {11.2, -3.5}); }

// A small head on d = 4, theta 10000: chunk 0 turns one radian per token (g = 1), chunk 1 0.01.
Head small_head(double scale) {
  Head h;
  h.spectrum_request.dim = 4;
  h.spectrum = resolve(h.spectrum_request).spectrum;
  h.query = {1.5 * scale, -0.5 * scale, 2.0 * scale, 1.0 * scale};
  h.target = {1.0, 0.25, 0.5, -1.0};
  h.distractors = {{-0.5, 1.0, -0.25, 0.75}};
  validate(h);
  return h;
}

// The reference: every activation through attention/activation.h at Boost precision, then the
// library softmax. certified_attention must overlap it (both enclose the same real number).
TEST(CertifiedAttention, AgreesWithTheLibrarySoftmax) {
  const Head h = small_head(1.0);
  Sequence s;
  s.length = 9;
  s.set(3, kTarget);
  const AttentionEnclosure e = certified_attention(h, s, 128);
  ScopedPrecision precision(128);
  const std::vector<Interval> g = frequencies<Interval>(h.spectrum);
  Vector<Interval> q(4), a(s.length);
  for (int i = 0; i < 4; ++i) q[i] = Interval(h.query[i]);
  for (long long pos = 0; pos < s.length; ++pos) {
    Vector<Interval> k(4);
    for (int i = 0; i < 4; ++i) k[i] = Interval(h.key(s.at(pos))[i]);
    a[pos] = activation(q, k, pos - s.query_position(), g);
  }
  const Vector<Interval> alpha = softmax(a);
  EXPECT_TRUE(overlaps(alpha[3], e.alpha)) << "library " << alpha[3] << " certified " << e.alpha;
  EXPECT_TRUE(overlaps(a[3], e.a_target)) << a[3] << " vs " << e.a_target;
  EXPECT_LT(to_double(upper_of(e.alpha) - lower_of(e.alpha)), 1e-30);
}

TEST(CheckAttack, ApostropheBreaksAtItsShortestContextAndNotBefore) {
  const Head h = apostrophe();
  const long long L = 11865;
  const AttackCheck yes = check_attack(h, fill_sequence(h, L, 3619), {{L - 3619, 0}});
  EXPECT_EQ(yes.verdict, ReplayVerdict::still_breaks) << yes.detail;
  // One token shorter, the same move (target to the farthest position) leaves alpha above 1/2.
  const long long M = L - 1;
  const AttackCheck no = check_attack(h, fill_sequence(h, M, 3619), {{M - 3619, 0}});
  EXPECT_EQ(no.verdict, ReplayVerdict::no_longer_breaks) << no.detail;
  EXPECT_EQ(no.after.breaks, Decision::no) << no.detail;
}

TEST(Minimality, FindsTheEarlierBreakWhenAskedAboutALongerContext) {
  const Head h = apostrophe();
  const MinimalityCheck m = certify_no_shorter_break(h, 11900);
  EXPECT_EQ(m.none_shorter, Decision::no);
  EXPECT_EQ(m.first_break, 11865);
  EXPECT_EQ(certify_no_shorter_break(h, 11865).none_shorter, Decision::yes);
}

// Brute force over every arrangement of the fill family at short contexts (with and without a
// bos sink): the first context with a certified (works, breaks) pair must be the scan's, and the
// minimality pass must agree.
long long brute_force_agrees(const Head& h, long long max_L) {
  long long first = 0;
  for (long long L = 2; L <= max_L && first == 0; ++L) {
    const long long top = h.bos ? L - 1 : L;
    bool works = false, breaks = false, undecided = false;
    for (long long s = 1; s <= top; ++s) {
      const AttentionEnclosure e = certified_attention(h, fill_sequence(h, L, s), 128);
      works = works || e.works == Decision::yes;
      breaks = breaks || e.breaks == Decision::yes;
      undecided = undecided || e.works == Decision::undecided || e.breaks == Decision::undecided;
    }
    EXPECT_FALSE(undecided) << "L = " << L;
    if (works && breaks) first = L;
  }
  const ScanCandidate c = guided_scan(h, max_L);
  EXPECT_EQ(c.found ? c.context : 0, first);
  std::printf("brute force: first breaking context %lld (bos: %d)\n", first, h.bos ? 1 : 0);
  if (first > 0) {
    const MinimalityCheck m = certify_no_shorter_break(h, max_L + 1);
    EXPECT_EQ(m.none_shorter, Decision::no);
    EXPECT_EQ(m.first_break, first);
  }
  return first;
}

// Heads that attend sharply at some distances: d = 2 (g = 1) and d = 4 (g = 1 and 0.01); the
// distractor is weak, so the target wins near cos(s) = 1 and loses near cos(s) = -1.
Head sharp_head(int dim, double scale) {
  Head h;
  h.spectrum_request.dim = dim;
  h.spectrum = resolve(h.spectrum_request).spectrum;
  h.query.assign(dim, 0.0);
  h.target.assign(dim, 0.0);
  h.distractors.assign(1, std::vector<double>(dim, 0.0));
  h.query[0] = scale, h.target[0] = 1.0, h.distractors[0][0] = -0.25, h.distractors[0][1] = 0.125;
  if (dim == 4) h.query[2] = scale / 2, h.target[2] = 1.0, h.distractors[0][2] = 0.25;
  validate(h);
  return h;
}

TEST(Minimality, BruteForceWithoutBos) {
  int breaking = 0;
  for (double scale : {0.5, 4.0}) breaking += brute_force_agrees(small_head(scale), 24) > 0;
  for (int dim : {2, 4})
    for (double scale : {4.0, 6.0, 8.0, 12.0}) breaking += brute_force_agrees(sharp_head(dim, scale), 24) > 0;
  EXPECT_GE(breaking, 3) << "the brute force must see real breaks, or it checks nothing";
}

TEST(Minimality, BruteForceWithBos) {
  int breaking = 0;
  for (double scale : {4.0, 8.0, 12.0}) {
    Head h = sharp_head(4, scale);
    h.bos = std::vector<double>{0.5, -0.25, 0.5, 0.0};
    validate(h);
    breaking += brute_force_agrees(h, 24) > 0;
  }
  EXPECT_GE(breaking, 1) << "the brute force must see real breaks, or it checks nothing";
}

TEST(PositionFree, PRopeRemovesTheApostropheChannelsPair) {
  Head h = apostrophe();
  h.spectrum_request.variant = Variant::p_rope;
  h.spectrum_request.fraction = "0.75";
  h.spectrum = resolve(h.spectrum_request).spectrum;
  ASSERT_TRUE(position_free(h));
  const PositionFreeCertificate c = certify_position_free(h, 1LL << 40);
  EXPECT_EQ(c.holds, Decision::yes) << c.reason;
  ASSERT_EQ(c.activation.size(), 2u);
  // q.k of the printed vectors: 24.94 (target) and -85.47 (distractor), as binary64 products.
  {
    ScopedPrecision precision(128);
    const Interval u_t = Interval(-4.1) * Interval(-2.5) + Interval(11.3) * Interval(1.3);  // exact for binary64 inputs
    EXPECT_TRUE(overlaps(c.activation[0], u_t)) << c.activation[0] << " vs " << u_t;
    EXPECT_NEAR(to_double(c.activation[0]), 24.94, 1e-12);
  }
  // No attack can break it: the swap that breaks the RoPE head leaves alpha unchanged.
  const AttackCheck a = check_attack(h, fill_sequence(h, 20000, 3619), {{20000 - 3619, 0}});
  EXPECT_NE(a.verdict, ReplayVerdict::still_breaks) << a.detail;
  EXPECT_TRUE(overlaps(a.before.alpha, a.after.alpha));
}

TEST(CheckAttack, ArgmaxNotion) {
  // d = 2, g = 1: a_t(s) = cos(s) u - sin(s) w. With q = (1, 0), target key (1, 0): a_t(s) = cos s;
  // distractor key (0, 0): a_o = 0. Target at distance 6 (cos 6 = 0.96): the argmax; at distance
  // 3 (cos 3 = -0.99): below every distractor.
  Head h;
  h.spectrum_request.dim = 2;
  h.spectrum = resolve(h.spectrum_request).spectrum;
  h.query = {1.0, 0.0};
  h.target = {1.0, 0.0};
  h.distractors = {{0.0, 0.0}};
  h.notion = Notion::argmax;
  validate(h);
  const long long L = 8;
  const AttackCheck a = check_attack(h, fill_sequence(h, L, 6), {{L - 6, L - 3}});
  EXPECT_EQ(a.verdict, ReplayVerdict::still_breaks) << a.detail;
  const AttackCheck b = check_attack(h, fill_sequence(h, L, 6), {{L - 6, L - 1}});  // cos 1 = 0.54 > 0
  EXPECT_EQ(b.verdict, ReplayVerdict::no_longer_breaks) << b.detail;
}

}  // namespace
}  // namespace ropecheck::adversarial

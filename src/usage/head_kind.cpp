#include "usage/head_kind.h"

#include <boost/math/distributions/normal.hpp>

#include <cmath>
#include <limits>

#include "io/input_error.h"

namespace ropecheck::usage {

const char* head_kind_name(HeadKind kind) {
  switch (kind) {
    case HeadKind::diagonal: return "diagonal";
    case HeadKind::previous_token: return "previous-token";
    case HeadKind::offset: return "offset";
    case HeadKind::first_token: return "first-token";
    case HeadKind::induction: return "induction";
    case HeadKind::other: return "other";
  }
  return "other";  // unreachable: -Werror=switch keeps the switch complete
}

HeadKind head_kind_from_name(const std::string& name, const std::string& input) {
  std::string all;
  for (HeadKind k : kHeadKinds) {
    if (name == head_kind_name(k)) return k;
    all += (all.empty() ? "" : ", ") + std::string(head_kind_name(k));
  }
  throw InputError(input, "one of " + all, name);
}

bool is_positional(HeadKind kind) {
  switch (kind) {
    case HeadKind::diagonal:
    case HeadKind::previous_token:
    case HeadKind::offset: return true;
    case HeadKind::first_token:
    case HeadKind::induction:
    case HeadKind::other: return false;
  }
  return false;
}

bool is_content(HeadKind kind) {
  switch (kind) {
    case HeadKind::induction:
    case HeadKind::other: return true;
    case HeadKind::diagonal:
    case HeadKind::previous_token:
    case HeadKind::offset:
    case HeadKind::first_token: return false;
  }
  return false;
}

double kind_critical_z(const KindRule& rule, long long tests) {
  const double level = rule.alpha / static_cast<double>(std::max(1LL, tests));
  return boost::math::quantile(boost::math::complement(boost::math::normal_distribution<double>(), level));
}

ScoreTest test_score(const ScoreSums& s, const KindRule& rule, double z_critical) {
  ScoreTest t;
  t.rows = s.rows;
  if (s.rows == 0) return t;
  const double n = static_cast<double>(s.rows);
  t.mass = s.w / n;
  t.baseline = s.b / n;
  t.ratio = t.baseline > 0 ? t.mass / t.baseline : 0;
  // Row variances from the sums (unbiased; clamped at 0 against rounding).
  const double var_w = s.rows > 1 ? std::max(0.0, (s.w2 - s.w * s.w / n) / (n - 1)) : 0;
  const double se_w = std::sqrt(var_w / n);
  t.lo = t.mass - 1.959963984540054 * se_w;  // Phi^-1(0.975)
  t.hi = t.mass + 1.959963984540054 * se_w;
  // d = w - lift b: sum d = w - c b, sum d^2 = w2 - 2 c wb + c^2 b2.
  const double c = rule.lift;
  const double sd1 = s.w - c * s.b, sd2 = s.w2 - 2 * c * s.wb + c * c * s.b2;
  const double var_d = s.rows > 1 ? std::max(0.0, (sd2 - sd1 * sd1 / n) / (n - 1)) : 0;
  const double mean_d = sd1 / n, se_d = std::sqrt(var_d / n);
  if (se_d > 0)
    t.z = mean_d / se_d;
  else
    t.z = mean_d > 0 ? std::numeric_limits<double>::infinity() : mean_d < 0 ? -std::numeric_limits<double>::infinity() : 0;
  t.significant = s.rows >= 2 && t.mass >= rule.min_mass && t.z > z_critical;
  return t;
}

long long scores_per_head(const KindRule& rule, bool with_induction) { return rule.max_offset + 1 + 1 + (with_induction ? 1 : 0); }

HeadClass classify_head(const HeadScores& scores, bool with_induction, const KindRule& rule, double z_critical) {
  HeadClass h;
  for (const ScoreSums& s : scores.offsets) h.offsets.push_back(test_score(s, rule, z_critical));
  h.first = test_score(scores.first, rule, z_critical);
  if (with_induction) h.induction = test_score(scores.induction, rule, z_critical);
  double best = -1;
  auto consider = [&](const ScoreTest& t, HeadKind kind, int offset) {
    if (t.significant && t.mass > best) {
      best = t.mass;
      h.kind = kind;
      h.offset = offset;
    }
  };
  for (size_t d = 0; d < h.offsets.size(); ++d)
    consider(h.offsets[d], d == 0 ? HeadKind::diagonal : d == 1 ? HeadKind::previous_token : HeadKind::offset, static_cast<int>(d));
  if (h.induction) consider(*h.induction, HeadKind::induction, -1);
  // The first token (an attention sink) only when nothing else is significant: a head parks its
  // attention there when it has nothing to do, so it names the head's function only alone.
  if (h.kind == HeadKind::other) consider(h.first, HeadKind::first_token, -1);
  return h;
}

}  // namespace ropecheck::usage

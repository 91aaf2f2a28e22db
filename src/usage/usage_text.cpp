#include "usage/usage_text.h"

#include <map>
#include <sstream>

#include "io/printf_string.h"

namespace ropecheck::usage {

std::string kind_text(const HeadUsage& h) {
  if (h.kind() == HeadKind::offset) return "offset " + std::to_string(h.scores.offset);
  return head_kind_name(h.kind());
}

NamedScore strongest_score(const HeadUsage& h) {
  const HeadClass& c = h.scores;
  NamedScore best{"offset 0", &c.offsets.at(0)};
  for (size_t d = 1; d < c.offsets.size(); ++d)
    if (c.offsets[d].mass > best.test->mass) best = {"offset " + std::to_string(d), &c.offsets[d]};
  if (c.first.mass > best.test->mass) best = {"first token", &c.first};
  if (c.induction && c.induction->mass > best.test->mass) best = {"induction", &*c.induction};
  return best;
}

namespace {

std::string breaks_text(const HeadUsage& h) {
  if (h.breaks.empty()) return h.strong_matches == 0 && (h.kind() == HeadKind::other || h.kind() == HeadKind::induction) ? "no strong match" : "-";
  long long found = 0, none = 0, undecided = 0, shortest = -1;
  for (const ContentBreak& b : h.breaks) {
    if (b.outcome == "found") {
      ++found;
      if (shortest < 0 || b.distance < shortest) shortest = b.distance;
    } else if (b.outcome == "none") {
      ++none;
    } else {
      ++undecided;
    }
  }
  std::string s = printf_string("%zu rows: %lld found", h.breaks.size(), found);
  if (found) s += printf_string(" (shortest %lld)", shortest);
  if (none) s += printf_string(", %lld none <= %lld", none, h.breaks.front().limit);
  if (undecided) s += printf_string(", %lld undecided", undecided);
  return s;
}

// "d:+effect" for a head with a positional component at offset d, else "-".
std::string component_text(const HeadUsage& h) {
  if (!h.component.offset) return "-";
  const int d = *h.component.offset;
  return printf_string("%d:%+.3f", d, h.component.offsets[static_cast<size_t>(d)].effect);
}

std::string ranking_line(const char* what, const PositionalRanking& p) { return std::string(what) + p.statement + "\n"; }
std::string within_line(const char* what, const WithinLayerRanking& w) { return std::string(what) + w.statement + "\n"; }

}  // namespace

std::string usage_text(const UsageResult& r) {
  std::ostringstream out;
  const KindRule& rule = r.options.kind_rule;
  out << "usage: " << r.capture << "; model " << r.model << ", scale " << r.scale_text << "\n";
  out << printf_string(
      "measured on the capture (not a certificate). Kinds: a score is significant when its mean attention >= %.3g and, over rows, "
      "exceeds %.3g x uniform (one-sided z > %.2f: alpha %.3g Bonferroni over %lld scores); kind = the largest significant offset or "
      "induction score, else first-token if significant\n",
      rule.min_mass, rule.lift, r.z_critical, rule.alpha, r.scores_tested);
  out << "layer head kv  kind            strongest: mass/uniform  diag   prev   first  share  rank  slowTV top1   fastTV top1   component   breaks (certified)\n";
  for (const LayerUsage& lu : r.layers)
    for (const HeadUsage& h : lu.heads) {
      const NamedScore top = strongest_score(h);
      out << printf_string("%5d %4d %3d  %-14s  %-11s %.3f/%.4f  %.3f  %.3f  %.3f  ", lu.layer, h.head, h.kv_head, kind_text(h).c_str(), top.name.c_str(),
                           top.test->mass, top.test->baseline,
                           h.diagonal, h.previous_token, h.first_token)
          << (h.high_frequency_share ? printf_string("%.3f  %4d  ", *h.high_frequency_share, *h.share_rank) : std::string("  -       -  "))
          << (h.slow_still ? printf_string("%.3f  %.3f  %.3f  %.3f  ", h.slow_still->tv, h.slow_still->top1, h.fast_removed->tv, h.fast_removed->top1)
                           : std::string("  -      -      -      -    "))
          << printf_string("%-10s  ", component_text(h).c_str()) << breaks_text(h) << "\n";
    }
  std::map<std::string, int> counts;
  for (const LayerUsage& lu : r.layers)
    for (const HeadUsage& h : lu.heads) counts[head_kind_name(h.kind())] += 1;
  out << "kinds:";
  for (HeadKind k : kHeadKinds)
    if (counts.count(head_kind_name(k))) out << " " << head_kind_name(k) << " " << counts[head_kind_name(k)];
  out << "\n";
  if (r.null.run) {
    out << printf_string("null: the same rule on %d x %s (seeds %llu..): %lld of %lld heads given a kind (rate %.3g, 95%% upper bound %.3g, Clopper-Pearson)",
                         r.null.repeats, r.null.capture.c_str(), static_cast<unsigned long long>(r.null.seed), r.null.flagged, r.null.heads, r.null.rate, r.null.upper95);
    for (const auto& [kind, n] : r.null.kinds) out << printf_string("; %s %lld", kind.c_str(), n);
    out << "\n";
  } else {
    out << "null: not run (--null-sequences 0)\n";
  }
  const ComponentTest& ct = r.components;
  out << "positional component: " << ct.statement << "\n";
  out << "positional component, heads by cut (point [simultaneous interval]):";
  for (const ComponentCurvePoint& c : ct.curve) out << printf_string(" %.3g: %lld [%lld, %lld]", c.cut, c.count, c.lo, c.hi);
  out << "\n";
  const Section5& s5 = r.section5;
  out << ranking_line("Section 5, intervention, across heads: ", s5.fast_removed)
      << within_line("Section 5, intervention, within layers: ", s5.fast_removed_layers)
      << within_line("Section 5, intervention, within kv groups: ", s5.fast_removed_kv_groups)
      << within_line("Section 5, slow quarter removed (contrast), within layers: ", s5.slow_removed_layers)
      << ranking_line("Section 5, proxy, across heads: ", s5.share) << within_line("Section 5, proxy, within layers: ", s5.share_layers)
      << within_line("Section 5, proxy (query only), within kv groups: ", s5.query_share_kv_groups);
  out << printf_string("Section 5, misclassified heads: the proxy %lld of %lld at share 0.25 (even spread), %lld at its best cut %.3g; "
                       "the intervention %lld at its best cut tv %.3g (best cuts in-sample: optimistic)\n",
                       s5.share_even_spread.misclassified, s5.share_even_spread.heads, s5.share_best.misclassified, s5.share_best.cut,
                       s5.fast_removed_best.misclassified, s5.fast_removed_best.cut);
  out << "Appendix E: " << r.appendix_e.statement << "\n";
  for (const auto& [name, buckets] : r.distance_by_layer_type) {
    out << "Section 3, " << name << ": mean logit by distance, as trained (position-free) [95% over sequences]:";
    for (const DistanceBucket& b : buckets)
      if (b.logit.n > 0)
        out << printf_string(" %lld-%lld: %.3g (%.3g) [%.3g, %.3g]", b.from, b.to - 1, b.logit.mean, b.position_free.mean, b.logit.lo, b.logit.hi);
    out << "\n";
  }
  if (r.same_token_family > 0) {
    if (r.semantic_head) {
      const SameTokenTest& t = r.semantic_head->test;
      out << printf_string("Semantic head (attention on earlier copies of its own token beyond its distance profile, %lld heads tested): "
                           "layer %d head %d, %.3g where its profile puts %.3g, excess %+.3g [%+.3g, %+.3g] over %lld sequences\n",
                           r.same_token_family, r.semantic_head->layer, r.semantic_head->head, t.mass, t.expected, t.excess, t.lo, t.hi,
                           t.sequences);
    } else {
      out << printf_string("Semantic head (attention on earlier copies of its own token beyond its distance profile, %lld heads tested): "
                           "none lies above 0\n", r.same_token_family);
    }
  }
  out << "Section 5 by kind (the row rule), across heads: " << r.ranking.statement << "\n";
  out << "Section 5 by kind (the row rule), within layers: " << r.within_layers.statement << "\n";
  if (r.options.certify_breaks) {
    const BreakDistribution& b = r.breaks;
    out << printf_string("Theorem 6.1: %lld strong content matches (weight >= %.3g, key >= %lld back) certified on %lld content heads: %lld break "
                         "(%lld within the span), %lld none up to %lld, %lld undecided",
                         b.rows, r.options.strong_match, r.options.content_distance, b.heads, b.found, b.found_within_span, b.none, b.limit,
                         b.undecided);
    if (b.rows > 0) {
      out << "; distance quantiles over rows:";
      for (const auto& q : b.quantiles)
        out << printf_string(" %g%% ", 100 * q.level) << (q.distance ? std::to_string(*q.distance) : "none<=" + std::to_string(b.limit));
    }
    out << "\n";
  }
  if (r.breaks_channel) {
    const BreakDistribution& b = *r.breaks_channel;
    out << printf_string("Theorem 6.1, the channel (the key's share above 1 - %g, the row's other keys fixed): %lld rows hold it on %lld heads "
                         "(%lld do not where they are): %lld break (%lld within the span), %lld none up to %lld, %lld undecided",
                         r.options.channel_epsilon, b.rows, b.heads, b.not_held, b.found, b.found_within_span, b.none, b.limit, b.undecided);
    if (b.rows > 0) {
      out << "; distance quantiles over rows:";
      for (const auto& q : b.quantiles)
        out << printf_string(" %g%% ", 100 * q.level) << (q.distance ? std::to_string(*q.distance) : "none<=" + std::to_string(b.limit));
    }
    out << "\n";
  }
  return out.str();
}

}  // namespace ropecheck::usage

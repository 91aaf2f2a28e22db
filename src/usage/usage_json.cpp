#include "usage/usage_json.h"

#include "io/version.h"

#include <cmath>

namespace ropecheck::usage {

namespace {

using nlohmann::json;

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json ablation_json(const std::optional<Ablation>& a) {
  if (!a) return nullptr;
  return {{"tv", a->tv}, {"top1", a->top1}};
}

json mechanism_json(const std::optional<MechanismBreak>& m) {
  if (!m) return nullptr;
  return {{"outcome", m->outcome}, {"distance", m->distance}, {"limit", m->limit}};
}

json break_json(const ContentBreak& b) {
  return {{"slow_only", mechanism_json(b.slow_only)}, {"slow_still", mechanism_json(b.slow_still)}, {"channel", mechanism_json(b.channel)},
          {"sequence", b.sequence},         {"query", b.query},       {"key", b.key},
          {"runner", b.runner},             {"key_distance", b.key_distance},
          {"runner_distance", b.runner_distance},
          {"weight", b.weight},             {"outcome", b.outcome},   {"distance", b.distance},
          {"limit", b.limit},               {"span", b.span},         {"method", b.method}};
}

json score_json(const ScoreTest& t) {
  return {{"rows", t.rows}, {"mass", t.mass}, {"interval95", {t.lo, t.hi}}, {"baseline", t.baseline},
          {"ratio", t.ratio}, {"z", std::isfinite(t.z) ? json(t.z) : json(t.z > 0 ? "inf" : "-inf")}, {"significant", t.significant}};
}

json scores_json(const HeadClass& c) {
  json offsets = json::array();
  for (size_t d = 0; d < c.offsets.size(); ++d) {
    json o = score_json(c.offsets[d]);
    o["offset"] = d;
    offsets.push_back(o);
  }
  return {{"offsets", offsets}, {"first_token", score_json(c.first)}, {"induction", c.induction ? score_json(*c.induction) : json(nullptr)}};
}

json bound(double v) { return std::isfinite(v) ? json(v) : json(v > 0 ? "inf" : "-inf"); }

json same_token_json(const SameTokenTest& t) {
  return {{"sequences", t.sequences}, {"rows", t.rows}, {"mass", t.mass}, {"expected", t.expected}, {"excess", t.excess},
          {"interval", {bound(t.lo), bound(t.hi)}}};
}

json component_json(const HeadComponent& c) {
  json offsets = json::array();
  for (const OffsetEffect& e : c.offsets)
    offsets.push_back({{"offset", e.offset}, {"sequences", e.sequences}, {"mass", e.mass}, {"position_free", e.position_free},
                       {"effect", e.effect}, {"interval", {bound(e.lo), bound(e.hi)}}});
  return {{"offset", c.offset ? json(*c.offset) : json(nullptr)}, {"offsets", offsets}};
}

json ranking_json(const PositionalRanking& p) {
  return {{"ranked", p.ranked},         {"positional", p.positional}, {"auc", optional_number(p.auc)},
          {"p_value", optional_number(p.p_value)}, {"p_method", p.p_method}, {"statement", p.statement}};
}

json within_json(const WithinLayerRanking& w) {
  json wl = json::array();
  for (const LayerRanking& lr : w.layers) {
    json l = {{"layer", lr.layer}, {"positional", lr.positional}, {"others", lr.others}, {"auc", lr.auc}, {"p_value", lr.p_value},
              {"p_method", lr.p_method}};
    l["kv_head"] = lr.kv_head >= 0 ? json(lr.kv_head) : json(nullptr);
    wl.push_back(l);
  }
  return {{"layers", wl},         {"pairs", w.pairs},         {"auc", optional_number(w.auc)}, {"p_value", optional_number(w.p_value)},
          {"p_method", w.p_method}, {"statement", w.statement}};
}

json attribution_json(const HeadAttribution& a) {
  return {{"offset", a.offset ? json(*a.offset) : json(nullptr)}, {"offset_logit", a.offset_logit}, {"offset_bound", a.offset_bound},
          {"first_logit", a.first_logit}, {"first_advantage", a.first_advantage}, {"q_constancy", a.q_constancy}};
}

json mean_json(const MeanWithInterval& m) {
  return {{"n", m.n}, {"mean", m.n ? json(m.mean) : json(nullptr)}, {"interval", {bound(m.lo), bound(m.hi)}}};
}

json distance_json(const std::vector<DistanceBucket>& buckets) {
  json a = json::array();
  for (const DistanceBucket& b : buckets)
    a.push_back({{"distances", {b.from, b.to}}, {"logit", mean_json(b.logit)}, {"position_free", mean_json(b.position_free)},
                 {"difference", mean_json(b.difference)}});
  return a;
}

json band_counts_json(const std::vector<std::pair<std::string, long long>>& c) {
  json a = json::array();
  for (const auto& [band, n] : c) a.push_back({{"band", band}, {"heads", n}});
  return a;
}

json cut_json(const CutQuality& q) { return {{"cut", q.cut}, {"misclassified", q.misclassified}, {"heads", q.heads}}; }

}  // namespace

json usage_json(const UsageResult& r) {
  json j;
  j["schema"] = kUsageSchema;
  j["tool"] = kToolName;
  j["measurement"] = "measured on the capture below (not a certificate); breaking distances are certified for the captured vectors";
  j["model"] = r.model;
  j["capture"] = {{"description", r.capture},
                  {"sequences", r.geometry.sequences},
                  {"layers", r.geometry.layers},
                  {"heads", r.geometry.heads},
                  {"kv_heads", r.geometry.kv_heads},
                  {"tokens", r.geometry.tokens},
                  {"head_dim", r.geometry.head_dim},
                  {"q_dtype", r.q_dtype},
                  {"k_dtype", r.k_dtype}};
  j["attention"] = {{"scale", r.scale_text}, {"softcap", optional_number(r.softcap)}, {"content_distance", r.options.content_distance},
                    {"strong_match", r.options.strong_match}, {"break_rows", r.options.break_rows}};
  const KindRule& rule = r.options.kind_rule;
  j["kind_rule"] = {{"max_offset", rule.max_offset}, {"lift", rule.lift}, {"min_mass", rule.min_mass}, {"alpha", rule.alpha},
                    {"scores_tested", r.scores_tested}, {"z_critical", r.z_critical},
                    {"rule", "a score is significant when its mean mass >= min_mass and the one-sided z-test over rows of mass - lift * uniform > 0 "
                             "rejects at alpha / scores_tested (Bonferroni); the kind is the significant offset or induction score with the largest mass, else "
                             "first-token when that one is significant, else other"}};
  json kinds = json::array();
  for (const auto& [name, count] : r.null.kinds) kinds.push_back({{"kind", name}, {"heads", count}});
  j["null"] = r.null.run ? json{{"seed", r.null.seed},         {"sequences", r.null.sequences}, {"repeats", r.null.repeats}, {"capture", r.null.capture},
                                {"heads", r.null.heads},       {"flagged", r.null.flagged},     {"kinds", kinds},
                                {"rate", r.null.rate},         {"upper95", r.null.upper95},
                                {"upper95_method", "one-sided Clopper-Pearson (exact binomial)"}}
                         : json(nullptr);
  json types = json::array();
  for (const LayerTypePairs& t : r.layer_types) {
    json pairs = json::array();
    for (const PairInfo& p : t.pairs)
      pairs.push_back({{"index", p.index}, {"channels", {p.first, p.second}}, {"band", p.band}, {"frequency", p.frequency}});
    types.push_back({{"name", t.name}, {"attention_factor", t.attention_factor}, {"span", t.span}, {"pairs", pairs}});
  }
  j["layer_types"] = types;
  // `pairs`: the first layer type's (every layer type's are under layer_types).
  j["pairs"] = r.layer_types.empty() ? json::array() : types[0]["pairs"];
  json layers = json::array();
  for (const LayerUsage& lu : r.layers) {
    json heads = json::array();
    for (const HeadUsage& h : lu.heads)
      heads.push_back({{"head", h.head},
                       {"kv_head", h.kv_head},
                       {"q_norm", h.q_norm},
                       {"k_norm", h.k_norm},
                       {"rows", h.rows},
                       {"diagonal", h.diagonal},
                       {"previous_token", h.previous_token},
                       {"first_token", h.first_token},
                       {"kind", head_kind_name(h.kind())},
                       {"kind_offset", h.scores.offset >= 0 ? json(h.scores.offset) : json(nullptr)},
                       {"scores", scores_json(h.scores)},
                       {"high_frequency_share", optional_number(h.high_frequency_share)},
                       {"share_rank", h.share_rank ? json(*h.share_rank) : json(nullptr)},
                       {"slow_still", ablation_json(h.slow_still)},
                       {"fast_removed", ablation_json(h.fast_removed)},
                       {"slow_removed", ablation_json(h.slow_removed)},
                       {"query_fast_share", optional_number(h.query_fast_share)},
                       {"positional_component", component_json(h.component)},
                       {"attribution", attribution_json(h.attribution)},
                       {"distance_logits", distance_json(h.distance)},
                       {"same_token", h.same_token ? same_token_json(*h.same_token) : json(nullptr)},
                       {"strong_matches", h.strong_matches},
                       {"breaking", h.breaks.empty() ? json(nullptr) : break_json(h.breaks.front())},
                       {"breaks", [&] {
                          json a = json::array();
                          for (const ContentBreak& b : h.breaks) a.push_back(break_json(b));
                          return a;
                        }()}});
    layers.push_back({{"layer", lu.layer}, {"layer_type", lu.layer_type}, {"q_norm", lu.q_norm}, {"k_norm", lu.k_norm}, {"heads", heads}});
  }
  j["layers"] = layers;
  j["positional_ranking"] = ranking_json(r.ranking);
  j["within_layers"] = within_json(r.within_layers);
  const ComponentTest& ct = r.components;
  auto curve_json = [](const ComponentTest& t) {
    json curve = json::array();
    for (const ComponentCurvePoint& c : t.curve) curve.push_back({{"cut", c.cut}, {"heads", c.count}, {"interval", {c.lo, c.hi}}});
    return curve;
  };
  const json curve = curve_json(ct);
  json by_type = json::array();
  for (const auto& [name, t] : r.components_by_layer_type)
    by_type.push_back({{"name", name}, {"heads", t.heads}, {"with_component", t.with_component}, {"curve", curve_json(t)}});
  j["positional_component"] = {
      {"cut", ct.cut}, {"alpha", ct.alpha}, {"family", ct.family}, {"sequences", ct.sequences}, {"t_critical", bound(ct.t_critical)},
      {"heads", ct.heads}, {"with_component", ct.with_component}, {"curve", curve}, {"by_layer_type", by_type}, {"statement", ct.statement},
      {"rule", "per sequence, the mean attention at offset delta minus the same head's position-free attention there (every pair held still); "
               "a head has a positional component at delta when the simultaneous lower bound (Student t over sequences, Bonferroni over "
               "heads x offsets) of the mean difference is at least the cut; curve: heads whose largest mean difference is >= cut, with "
               "[heads whose largest lower bound is >= cut, heads whose largest upper bound is >= cut]"}};
  const Section5& s5 = r.section5;
  j["section5"] = {{"label", "positional component (positional_component above)"},
                   {"fast_removed", ranking_json(s5.fast_removed)},
                   {"fast_removed_within_layers", within_json(s5.fast_removed_layers)},
                   {"fast_removed_within_kv_groups", within_json(s5.fast_removed_kv_groups)},
                   {"slow_removed", ranking_json(s5.slow_removed)},
                   {"slow_removed_within_layers", within_json(s5.slow_removed_layers)},
                   {"share", ranking_json(s5.share)},
                   {"share_within_layers", within_json(s5.share_layers)},
                   {"query_share_within_kv_groups", within_json(s5.query_share_kv_groups)},
                   {"share_at_even_spread", cut_json(s5.share_even_spread)},
                   {"share_at_best_cut", cut_json(s5.share_best)},
                   {"fast_removed_at_best_cut", cut_json(s5.fast_removed_best)},
                   {"best_cut_rule", "the cut misclassifying the fewest heads, chosen on the same heads (optimistic)"}};
  const AppendixE& e = r.appendix_e;
  j["appendix_e"] = {{"positional_heads", e.positional_heads},
                     {"positional_top_band", band_counts_json(e.positional_top_band)},
                     {"positional_alignment_median", e.positional_alignment_median},
                     {"sink_heads", e.sink_heads},
                     {"sink_top_band", band_counts_json(e.sink_top_band)},
                     {"sink_top_share_median", e.sink_top_share_median},
                     {"sink_constancy_median", e.sink_constancy_median},
                     {"statement", e.statement}};
  json s3 = json::array();
  for (const auto& [name, buckets] : r.distance_by_layer_type) s3.push_back({{"layer_type", name}, {"buckets", distance_json(buckets)}});
  j["section3"] = {{"layer_types", s3},
                   {"rule", "per sequence the mean of scale * <R_i q_i, R_j k_j> (no softcap) over the (row, key) terms at each distance "
                            "bucket (distances [from, to)), as trained and position-free (every pair held still), per layer type first averaged over "
                            "its heads; mean over sequences with a pointwise two-sided 95% Student t interval"}};
  auto distribution = [](const BreakDistribution& bd) {
    json qs = json::array();
    for (const auto& q : bd.quantiles) qs.push_back({{"level", q.level}, {"distance", q.distance ? json(*q.distance) : json(nullptr)}});
    return json{{"rows", bd.rows},   {"heads", bd.heads},       {"found", bd.found}, {"none", bd.none}, {"not_held", bd.not_held},
                {"undecided", bd.undecided}, {"found_within_span", bd.found_within_span}, {"limit", bd.limit},
                {"quantiles", qs},
                {"quantile_rule", "lower empirical quantile over rows; none rows count as beyond the limit (distance null)"}};
  };
  j["break_distribution"] = r.options.certify_breaks ? distribution(r.breaks) : json(nullptr);
  j["break_mechanisms"] = r.options.certify_breaks && r.options.break_mechanisms
                              ? json{{"slow_only", distribution(r.breaks_slow_only)},
                                     {"slow_still", distribution(r.breaks_slow_still)},
                                     {"rule", "the same certificate with only the slow quarter rotating (every other pair held still, its "
                                              "unrotated product added at every distance) and with the slow quarter held still"}}
                              : json(nullptr);
  if (r.same_token_family > 0) {
    j["semantic_head"] = {
        {"head", r.semantic_head ? json{{"layer", r.semantic_head->layer}, {"head", r.semantic_head->head},
                                        {"test", same_token_json(r.semantic_head->test)}}
                                 : json(nullptr)},
        {"family", r.same_token_family},
        {"level", 1 - r.options.kind_rule.alpha / static_cast<double>(r.same_token_family)},
        {"rule", "per head, the attention of rows on earlier copies of their own token minus what the head's distance profile on "
                 "that sequence puts at the same distances, mean over sequences with a two-sided Student t interval, simultaneous over "
                 "the heads (Bonferroni at alpha); the semantic head has the largest lower bound, when it is above 0"}};
  } else {
    j["semantic_head"] = nullptr;
  }
  if (r.breaks_channel) {
    j["break_channel"] = distribution(*r.breaks_channel);
    j["break_channel"]["epsilon"] = r.options.channel_epsilon;
    j["break_channel"]["rule"] =
        "the theorem's notion: the shortest distance at which the moved key's share of its row certainly falls to 1 - epsilon or "
        "below, the row's other keys fixed (their log-sum-exp measured in binary64 with a proved bound); not_held: rows whose key "
        "does not hold more than 1 - epsilon where it is";
  } else {
    j["break_channel"] = nullptr;
  }
  return j;
}

}  // namespace ropecheck::usage

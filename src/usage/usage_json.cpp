#include "usage/usage_json.h"

#include "io/version.h"

namespace ropecheck::usage {

namespace {

using nlohmann::json;

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json ablation_json(const std::optional<Ablation>& a) {
  if (!a) return nullptr;
  return {{"tv", a->tv}, {"top1", a->top1}};
}

json break_json(const std::optional<ContentBreak>& b) {
  if (!b) return nullptr;
  return {{"sequence", b->sequence},         {"query", b->query},       {"key", b->key},
          {"runner", b->runner},             {"key_distance", b->key_distance},
          {"runner_distance", b->runner_distance},
          {"weight", b->weight},             {"outcome", b->outcome},   {"distance", b->distance},
          {"limit", b->limit},               {"span", b->span},         {"method", b->method}};
}

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
  j["attention"] = {{"scale", r.scale_text}, {"softcap", optional_number(r.softcap)}, {"kind_threshold", kKindThreshold},
                    {"content_distance", r.options.content_distance}};
  json types = json::array();
  for (const LayerTypePairs& t : r.layer_types) {
    json pairs = json::array();
    for (const PairInfo& p : t.pairs)
      pairs.push_back({{"index", p.index}, {"channels", {p.first, p.second}}, {"band", p.band}, {"frequency", p.frequency}});
    types.push_back({{"name", t.name}, {"attention_factor", t.attention_factor}, {"pairs", pairs}});
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
                       {"kind", h.kind},
                       {"high_frequency_share", optional_number(h.high_frequency_share)},
                       {"share_rank", h.share_rank ? json(*h.share_rank) : json(nullptr)},
                       {"slow_still", ablation_json(h.slow_still)},
                       {"fast_removed", ablation_json(h.fast_removed)},
                       {"breaking", break_json(h.breaking)}});
    layers.push_back({{"layer", lu.layer}, {"layer_type", lu.layer_type}, {"q_norm", lu.q_norm}, {"k_norm", lu.k_norm}, {"heads", heads}});
  }
  j["layers"] = layers;
  const PositionalRanking& p = r.ranking;
  j["positional_ranking"] = {{"ranked", p.ranked},         {"positional", p.positional}, {"auc", optional_number(p.auc)},
                             {"p_value", optional_number(p.p_value)}, {"p_method", p.p_method}, {"statement", p.statement}};
  return j;
}

}  // namespace ropecheck::usage

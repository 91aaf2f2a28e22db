#include "spectrum/hf_config.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "io/input_error.h"
#include "io/printf_string.h"
#include "io/json_exact.h"
#include "io/json_reader.h"
#include "numeric/scalar.h"
#include "spectrum/detail/hf_rope_dict.h"
#include "spectrum/limits.h"
#include "spectrum/scaling_registry.h"

namespace ropecheck {

namespace {

using nlohmann::json;

// "one of default, linear, ...": every rope_type of the registry (scaling_registry.h).
std::string rope_types_accepted() {
  std::string names;
  for (const RopeTypeInfo* t : rope_types()) names += (names.empty() ? "" : ", ") + std::string(t->name);
  return "one of " + names;
}

// The config being read: the text config (a multimodal config's text_config) and where it sits.
struct Config {
  const json& j;
  JsonPlace place;
  std::vector<std::string>& read;

  bool has(const std::string& key) const { return j.contains(key) && !j[key].is_null(); }
  std::string number(const std::string& key, const std::string& accepted = "a number") const {
    return number_text(required(j, place, key, accepted), place.member(key), accepted);
  }
  // Every count and size is bounded (spectrum/limits.h): lengths by kMaxLengthArgument unless a
  // tighter limit is given, so no absurd number reaches an allocation or a cast to int.
  long long integer(const std::string& key, long long min = 1, long long max = kMaxLengthArgument) const {
    const std::string accepted = "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
    const long long v = integer_value(required(j, place, key, accepted), place.member(key), accepted);
    if (v < min || v > max) throw InputError(place.member(key).name(), accepted, std::to_string(v));
    return v;
  }
  std::optional<long long> optional_integer(const std::string& key, long long min = 1) const {
    if (!has(key)) return std::nullopt;
    return integer(key, min);
  }
  std::string string(const std::string& key, const std::string& accepted) const {
    return exact_string(required(j, place, key, accepted), place.member(key), accepted);
  }
  bool flag(const std::string& key, bool fallback) const {
    if (!has(key)) return fallback;
    if (!j[key].is_boolean()) throw InputError(place.member(key).name(), "true or false", shown_exact(j[key]));
    return j[key].get<bool>();
  }
};

double as_double(const std::string& decimal) { return from_decimal<double>(decimal); }

std::string decimal_field(const json& dict, const JsonPlace& place, const std::string& key, const std::string& accepted) {
  return hf_decimal_field(dict, place, key, accepted);
}

// One layer type's RoPE parameters, from a legacy rope_scaling dict or a v5 rope_parameters dict.
struct RopeParams {
  std::string theta;
  std::string rope_type = "default";
  Scaling scaling;
  std::optional<std::string> partial;  // proportional's (and v5's) partial_rotary_factor
};

// Reads rope_type/type, and the fields of its rule. `theta` is the base the dict applies to
// (a v5 dict carries its own rope_theta).
RopeParams read_rope_dict(const json& dict, const JsonPlace& place, const Config& c, std::string theta,
                          const ModelOptions& options, const std::string& model_type) {
  if (!dict.is_object()) throw InputError(place.name(), "an object (the RoPE parameters)", shown_exact(dict));
  RopeParams p;
  if (dict.contains("rope_theta")) theta = decimal_field(dict, place, "rope_theta", "a number > 1");
  p.theta = theta;
  std::optional<std::string> type, legacy;
  const std::string kRopeTypes = rope_types_accepted();
  if (dict.contains("rope_type")) type = exact_string(dict["rope_type"], place.member("rope_type"), kRopeTypes);
  if (dict.contains("type")) legacy = exact_string(dict["type"], place.member("type"), kRopeTypes);
  if (type && legacy && *type != *legacy)
    throw InputError(place.member("type").name(), "the same as rope_type (\"" + *type + "\") when both are given", *legacy);
  p.rope_type = type ? *type : legacy ? *legacy : "default";
  if (p.rope_type == "su") p.rope_type = "longrope";  // Phi-3's early name, renamed by transformers
  if (dict.contains("partial_rotary_factor")) p.partial = decimal_field(dict, place, "partial_rotary_factor", "a number in (0, 1]");
  const RopeTypeInfo* rule = find_rope_type(p.rope_type);
  if (!rule) throw InputError(place.member(type ? "rope_type" : "type").name(), kRopeTypes, p.rope_type);
  const long long max_pos = c.integer("max_position_embeddings");
  const HfRopeDict rope_dict{dict, place, max_pos, options.sequence_length.value_or(max_pos), options.vllm_dynamic, model_type,
                             c.has("original_max_position_embeddings"), [&c] { return c.integer("original_max_position_embeddings"); }};
  rule->read(rope_dict, p.scaling);  // the rule's own file, spectrum/scaling/<kind>.cpp
  return p;
}

// The rope parameters of the config: {layer type -> params} ("" for one set for every layer).
std::map<std::string, RopeParams> read_rope(const Config& c, const ModelOptions& options, const std::string& model_type) {
  std::map<std::string, RopeParams> out;
  const bool legacy = c.has("rope_scaling") || c.has("rope_theta");
  if (c.has("rope_parameters")) {
    if (c.has("rope_scaling"))
      throw InputError(c.place.member("rope_scaling").name(), "absent when rope_parameters is given (the two forms contradict)", "a rope_scaling object");
    const json& rp = c.j["rope_parameters"];
    const JsonPlace place = c.place.member("rope_parameters");
    if (!rp.is_object()) throw InputError(place.name(), "an object", shown_exact(rp));
    const bool per_layer = !rp.empty() && !rp.contains("rope_type") && !rp.contains("rope_theta") && !rp.contains("type") &&
                           std::all_of(rp.begin(), rp.end(), [](const json& v) { return v.is_object(); });
    const std::string theta = c.has("rope_theta") ? c.number("rope_theta") : "10000";
    if (!per_layer) {
      out[""] = read_rope_dict(rp, place, c, theta, options, model_type);
    } else {
      for (const auto& item : rp.items())
        out[item.key()] = read_rope_dict(item.value(), place.member(item.key()), c, theta, options, model_type);
    }
    c.read.push_back("rope_parameters (transformers v5 form" + std::string(per_layer ? ", one dict per layer type)" : ")"));
    return out;
  }
  std::string theta = "10000";
  if (c.has("rope_theta")) theta = c.number("rope_theta", "a number > 1");
  else if (c.has("rotary_emb_base")) theta = c.number("rotary_emb_base", "a number > 1");  // GPT-NeoX
  c.read.push_back(c.has("rope_theta") ? "rope_theta" : c.has("rotary_emb_base") ? "rotary_emb_base" : "rope_theta absent: 10000");
  if (c.has("rope_scaling")) {
    out[""] = read_rope_dict(c.j["rope_scaling"], c.place.member("rope_scaling"), c, theta, options, model_type);
    c.read.push_back("rope_scaling (" + out[""].rope_type + ")");
  } else {
    RopeParams p;
    p.theta = theta;
    out[""] = p;
  }
  (void)legacy;
  return out;
}

int divide_head(const Config& c) {
  if (c.has("head_dim")) {
    c.read.push_back("head_dim");
    return static_cast<int>(c.integer("head_dim", 2, kMaxHeadDim));
  }
  const long long hidden = c.integer("hidden_size"), heads = c.integer("num_attention_heads", 1, kMaxHeads);
  if (hidden % heads != 0)
    throw InputError(c.place.member("hidden_size").name(), "a multiple of num_attention_heads (" + std::to_string(heads) + ")", std::to_string(hidden));
  if (hidden / heads > kMaxHeadDim)
    throw InputError(c.place.member("hidden_size").name(),
                     "at most " + std::to_string(kMaxHeadDim) + " x num_attention_heads (" + std::to_string(heads) + "): the head width hidden_size / num_attention_heads is at most " + std::to_string(kMaxHeadDim),
                     std::to_string(hidden));
  c.read.push_back("hidden_size / num_attention_heads (no head_dim)");
  return static_cast<int>(hidden / heads);
}

// int(head_dim * factor) as Python computes it (binary64 product, truncated), required even.
int rotary_width(const Config& c, int head_dim, const std::string& factor, const std::string& field) {
  const double f = as_double(factor);
  if (!(f > 0 && f <= 1)) throw InputError(c.place.member(field).name(), "a number in (0, 1]", factor);
  const int r = static_cast<int>(static_cast<double>(head_dim) * f);
  if (r < 2 || r % 2 != 0)
    throw InputError(c.place.member(field).name(), "a factor giving an even rotary width >= 2 (head_dim " + std::to_string(head_dim) + ")", factor);
  return r;
}

// Layer i's type name, from layer_types or a pattern rule; every layer the same when neither.
std::vector<std::string> layer_kinds(const Config& c, int layers, const std::string& model_type) {
  std::vector<std::string> kinds(static_cast<size_t>(layers), "all");
  if (c.has("layer_types")) {
    const json& lt = c.j["layer_types"];
    const JsonPlace place = c.place.member("layer_types");
    if (!lt.is_array() || static_cast<int>(lt.size()) != layers)
      throw InputError(place.name(), "a list of num_hidden_layers (" + std::to_string(layers) + ") layer type names", shown_exact(lt));
    for (int i = 0; i < layers; ++i) kinds[static_cast<size_t>(i)] = exact_string(lt[static_cast<size_t>(i)], place.item(static_cast<size_t>(i)), "a layer type name");
    c.read.push_back("layer_types");
    return kinds;
  }
  const bool patterned = model_type == "gemma3_text" || model_type == "gemma3" || model_type == "cohere2";
  if (patterned) {
    const long long pattern = c.has("sliding_window_pattern") ? c.integer("sliding_window_pattern") : 6;
    for (int i = 0; i < layers; ++i) kinds[static_cast<size_t>(i)] = (i + 1) % pattern ? "sliding_attention" : "full_attention";
    c.read.push_back("sliding_window_pattern (" + std::to_string(pattern) + ": every " + std::to_string(pattern) + "th layer full attention)");
  } else if (model_type == "gemma2") {
    for (int i = 0; i < layers; ++i) kinds[static_cast<size_t>(i)] = i % 2 == 0 ? "sliding_attention" : "full_attention";
    c.read.push_back("Gemma 2's alternation: even layers sliding, odd layers full attention");
  } else if (model_type == "llama4_text" || model_type == "llama4") {
    std::vector<long long> rope(static_cast<size_t>(layers), 1);
    if (c.has("no_rope_layers") && c.j["no_rope_layers"].is_array() && !c.j["no_rope_layers"].empty()) {
      const json& nl = c.j["no_rope_layers"];
      if (static_cast<int>(nl.size()) != layers)
        throw InputError(c.place.member("no_rope_layers").name(), "a list of num_hidden_layers 0/1 flags", shown_exact(nl));
      for (int i = 0; i < layers; ++i)
        rope[static_cast<size_t>(i)] = integer_value(nl[static_cast<size_t>(i)], c.place.member("no_rope_layers").item(static_cast<size_t>(i)), "0 or 1");
      c.read.push_back("no_rope_layers (1 = RoPE layer)");
    } else {
      const long long interval = c.has("no_rope_layer_interval") ? c.integer("no_rope_layer_interval") : 4;
      for (int i = 0; i < layers; ++i) rope[static_cast<size_t>(i)] = (i + 1) % interval != 0;
      c.read.push_back("no_rope_layer_interval (" + std::to_string(interval) + "): every " + std::to_string(interval) + "th layer NoPE");
    }
    for (int i = 0; i < layers; ++i) kinds[static_cast<size_t>(i)] = rope[static_cast<size_t>(i)] ? "rope" : "nope";
  }
  return kinds;
}

// Fields a model type's config class fills in when the file omits them (the shipped Gemma 3
// text_config omits these four: transformers' Gemma3TextConfig defaults).
json with_type_defaults(json text, const std::string& model_type, std::vector<std::string>& read) {
  if (model_type != "gemma3_text" && model_type != "gemma3") return text;
  const std::vector<std::pair<std::string, json>> defaults = {
      {"rope_theta", std::string(1, kFloatMark) + "1000000.0"},
      {"rope_local_base_freq", std::string(1, kFloatMark) + "10000.0"},
      {"max_position_embeddings", 131072},
      {"sliding_window_pattern", 6}};
  for (const auto& [key, value] : defaults)
    if (!text.contains(key)) {
      text[key] = value;
      read.push_back(key + " absent: Gemma3TextConfig's default " + shown_exact(value));
    }
  return text;
}

// The attention around the rotation (model.h AttentionShape). Scales, per transformers' attention
// classes (/work/shared/notes/measuring-trained-models.md section 2): head_dim^-1/2 by default;
// Gemma 2/3 query_pre_attn_scalar^-1/2 (Gemma2Config and Gemma3TextConfig default 256); MLA
// (DeepSeek-V3) qk_head_dim^-1/2 times mscale^2 when rope_scaling has mscale_all_dim, with
// mscale = 0.1 mscale_all_dim ln(factor) + 1 (yarn_get_mscale; 1 when factor <= 1).
AttentionShape read_attention_shape(const Config& c, const std::string& type, int head_dim, bool mla, const Scaling& scaling) {
  AttentionShape a;
  a.heads = static_cast<int>(c.integer("num_attention_heads", 1, kMaxHeads));
  a.kv_heads = c.has("num_key_value_heads") ? static_cast<int>(c.integer("num_key_value_heads", 1, kMaxHeads)) : a.heads;
  if (a.heads % a.kv_heads != 0)
    throw InputError(c.place.member("num_key_value_heads").name(), "a divisor of num_attention_heads (" + std::to_string(a.heads) + ")",
                     std::to_string(a.kv_heads));
  c.read.push_back(c.has("num_key_value_heads") ? "num_attention_heads, num_key_value_heads"
                                                 : "num_attention_heads (num_key_value_heads absent: no grouping)");
  const bool gemma = type == "gemma2" || type == "gemma3_text" || type == "gemma3";
  long long root = head_dim;
  std::string what = "head_dim";
  if (gemma) {
    root = c.has("query_pre_attn_scalar") ? c.integer("query_pre_attn_scalar") : 256;
    what = "query_pre_attn_scalar";
    c.read.push_back(c.has("query_pre_attn_scalar") ? "query_pre_attn_scalar (the attention scale)"
                                                     : "query_pre_attn_scalar absent: the config class's default 256");
  }
  a.scale = 1 / std::sqrt(static_cast<double>(root));
  a.scale_text = what + "^-1/2 = 1/sqrt(" + std::to_string(root) + ")";
  if (mla && scaling.mscale_all_dim) {  // the scaling read_rope parsed (yarn's DeepSeek ratio form)
    const double f = as_double(scaling.factor);
    const double ms = f <= 1 ? 1 : 0.1 * as_double(*scaling.mscale_all_dim) * std::log(f) + 1;
    a.scale *= ms * ms;
    a.scale_text = "qk_head_dim^-1/2 * mscale^2 = mscale^2/sqrt(" + std::to_string(root) + "), mscale " + printf_string("%.17g", ms);
    c.read.push_back("mscale_all_dim (the attention scale's mscale^2)");
  }
  if (type == "gemma2") {
    a.softcap = c.has("attn_logit_softcapping") ? as_double(c.number("attn_logit_softcapping")) : 50.0;
    if (!(*a.softcap > 0) || !std::isfinite(*a.softcap))
      throw InputError(c.place.member("attn_logit_softcapping").name(), "a finite number > 0", c.number("attn_logit_softcapping"));
    c.read.push_back(c.has("attn_logit_softcapping") ? "attn_logit_softcapping" : "attn_logit_softcapping absent: Gemma2Config's default 50");
  }
  return a;
}

}  // namespace

ModelDescription read_hf_config(const json& root, const std::string& origin, const ModelOptions& options) {
  ModelDescription m;
  m.name = origin;
  const JsonPlace doc = JsonPlace::document(origin);
  if (!root.is_object()) throw InputError(doc.name(), "a config.json object", shown_exact(root));
  const bool nested = root.contains("text_config") && root["text_config"].is_object();
  const json& given = nested ? root["text_config"] : root;
  std::string declared_type;
  if (given.contains("model_type") && given["model_type"].is_string()) declared_type = given["model_type"].get<std::string>();
  else if (root.contains("model_type") && root["model_type"].is_string()) declared_type = root["model_type"].get<std::string>();
  const json text = with_type_defaults(given, declared_type, m.read);
  const JsonPlace place = nested ? doc.member("text_config") : doc;
  Config c{text, place, m.read};
  if (nested) m.read.push_back("text_config (the text model's settings)");
  const std::string types_accepted = "a model_type string";
  m.model_type = c.has("model_type") ? c.string("model_type", types_accepted)
               : root.contains("model_type") ? exact_string(root["model_type"], doc.member("model_type"), types_accepted)
                                              : "llama";
  const std::string& type = m.model_type;
  m.layers = static_cast<int>(c.integer("num_hidden_layers", 1, kMaxLayers));
  const long long context = c.integer("max_position_embeddings");
  m.read.push_back("max_position_embeddings (the context)");

  // Head geometry and the rotary part.
  const bool mla = c.has("qk_rope_head_dim");
  int head_dim = 0, rotary = 0, offset = 0;
  Layout layout = Layout::half;
  if (mla) {
    const int rope = static_cast<int>(c.integer("qk_rope_head_dim", 2, kMaxHeadDim));
    const int nope = static_cast<int>(c.integer("qk_nope_head_dim", 0, kMaxHeadDim - rope));
    head_dim = nope + rope;
    rotary = rope;
    offset = nope;
    layout = c.flag("rope_interleave", type != "minicpm3") ? Layout::interleaved : Layout::half;
    m.read.push_back("qk_nope_head_dim + qk_rope_head_dim (MLA: the rope part follows the nope part), rope_interleave");
  } else if (type == "gpt_neox") {
    head_dim = divide_head(c);
    rotary = c.has("rotary_pct") ? rotary_width(c, head_dim, c.number("rotary_pct"), "rotary_pct") : head_dim;
    m.read.push_back("rotary_pct");
  } else {
    head_dim = divide_head(c);
    rotary = head_dim;
  }
  if (head_dim % 2 != 0) throw InputError(place.member("head_dim").name(), "an even head width", std::to_string(head_dim));
  const bool reads_partial = type == "phi3" || type == "glm" || type == "glm4" || type == "glm4_moe" || type == "stablelm" ||
                             type == "persimmon" || type == "qwen3_next" || type == "phi";
  if (reads_partial) {
    const std::string fallback = type.rfind("glm", 0) == 0 ? "0.5" : "1";
    const std::string factor = c.has("partial_rotary_factor") ? c.number("partial_rotary_factor") : fallback;
    rotary = rotary_width(c, head_dim, factor, "partial_rotary_factor");
    m.read.push_back("partial_rotary_factor (" + factor + (c.has("partial_rotary_factor") ? ")" : ", the model type's default)"));
  } else if (c.has("partial_rotary_factor") && !mla && type != "gpt_neox") {
    m.read.push_back("partial_rotary_factor ignored: " + type + "'s attention rotates the whole head");
  }
  if (type == "llama4" || type == "llama4_text" || type == "cohere" || type == "cohere2" || type.rfind("glm", 0) == 0)
    if (type != "glm4_moe") layout = Layout::interleaved;
  m.read.push_back("layout " + layout_name(layout) + " (" + type + "'s reference code)");

  const auto rope = read_rope(c, options, type);
  m.attention = read_attention_shape(c, type, head_dim, mla, rope.count("") ? rope.at("").scaling : Scaling{});
  const std::vector<std::string> kinds = layer_kinds(c, m.layers, type);
  std::optional<long long> sliding;
  if (c.has("sliding_window") && c.flag("use_sliding_window", true)) sliding = c.integer("sliding_window");
  std::optional<long long> chunk = c.optional_integer("attention_chunk_size");

  // One layer type per distinct name, in the order layers first use it.
  std::vector<std::string> order;
  for (const auto& k : kinds)
    if (std::find(order.begin(), order.end(), k) == order.end()) order.push_back(k);
  for (const std::string& kind : order) {
    LayerType lt;
    lt.name = kind;
    lt.head_dim = head_dim;
    lt.context = context;
    lt.layout = layout;
    for (int i = 0; i < m.layers; ++i)
      if (kinds[static_cast<size_t>(i)] == kind) lt.layers.push_back(i);
    const bool nope = kind == "nope" || ((type == "cohere2") && kind == "full_attention");
    const bool sliding_kind = kind == "sliding_attention" || (kind == "all" && type.rfind("mistral", 0) == 0);
    if (sliding && sliding_kind) lt.window = sliding;
    if (chunk && kind == "rope") lt.window = chunk;
    if (nope) {
      lt.rotary_dims = 0;
      m.layer_types.push_back(std::move(lt));
      continue;
    }
    // Parameters: the layer type's own v5 dict, else the shared one; Gemma 3's sliding layers use
    // rope_local_base_freq without scaling.
    RopeParams p = rope.count(kind) ? rope.at(kind) : rope.count("") ? rope.at("") : RopeParams{};
    if (!rope.count(kind) && !rope.count(""))
      throw InputError(place.member("rope_parameters").name(), "a dict for the layer type \"" + kind + "\"", "none");
    if ((type == "gemma3_text" || type == "gemma3") && kind == "sliding_attention" && !rope.count(kind)) {
      p = RopeParams{};
      p.theta = c.has("rope_local_base_freq") ? c.number("rope_local_base_freq") : "10000";
      m.read.push_back("rope_local_base_freq (sliding layers; no scaling)");
    }
    lt.rotary_offset = offset;
    lt.rotary_dims = rotary;
    if (p.rope_type == "proportional") {
      // Gemma's p-RoPE: exponents over the whole head, pairs beyond int(prf*head_dim//2) unrotated.
      lt.rotary_dims = head_dim;
      lt.spectrum.emplace(head_dim, p.theta, Variant::p_rope, p.partial.value_or("1"), p.scaling);
    } else {
      if (p.partial && !mla) rotary = lt.rotary_dims = rotary_width(c, head_dim, *p.partial, "rope_parameters.partial_rotary_factor");
      try {
        lt.spectrum.emplace(lt.rotary_dims, p.theta, Variant::rope, "1", p.scaling);
      } catch (const InputError& e) {
        const std::string where = c.has("rope_parameters") ? "rope_parameters" : "rope_scaling";
        if (e.input() == "theta") throw InputError(place.member(c.has("rope_theta") ? "rope_theta" : where).name(), e.accepted(), e.got());
        if (e.input().rfind("scaling.", 0) == 0) throw InputError(place.member(where).name() + e.input().substr(7), e.accepted(), e.got());
        throw;
      }
    }
    m.layer_types.push_back(std::move(lt));
  }
  return m;
}

ModelDescription read_hf_config_text(const std::string& text, const std::string& origin, const ModelOptions& options) {
  return read_hf_config(parse_json(text, origin, kConfigJsonLimits, JsonNumbers::exact), origin, options);
}

}  // namespace ropecheck

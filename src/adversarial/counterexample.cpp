#include "adversarial/counterexample.h"

#include <filesystem>
#include <set>

#include "io/input_error.h"
#include "io/json_fields.h"
#include "io/number_text.h"
#include "spectrum/spectrum_json.h"

namespace ropecheck::adversarial {

namespace {

using nlohmann::json;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::vector<double> vector_from_json(const json& j, const JsonPlace& place, int dim) {
  const std::string accepted = "a list of " + std::to_string(dim) + " finite numbers (the spectrum's dim)";
  if (!j.is_array()) throw InputError(place.name(), accepted, shown(j));
  if (j.size() != static_cast<std::size_t>(dim)) throw InputError(place.name(), accepted, "a list of " + std::to_string(j.size()));
  std::vector<double> v(j.size());
  for (std::size_t i = 0; i < j.size(); ++i) v[i] = finite_double_value(j[i], place.item(i));
  return v;
}

json vector_to_json(const std::vector<double>& v) {
  json out = json::array();
  for (double x : v) out.push_back(shortest_text(x));
  return out;
}

const std::string kTypeAccepted = "a token type: target, bos or dN (distractor N)";

TypeId type_from_json(const json& j, const JsonPlace& place) {
  const std::string s = string_value(j, place, kTypeAccepted);
  if (s == "target") return kTarget;
  if (s == "bos") return kBos;
  // dN with N written without leading zeros, so that each type has one spelling.
  if (s.size() >= 2 && s.size() <= 8 && s[0] == 'd' && (s.size() == 2 || s[1] != '0')) {
    bool digits = true;
    for (std::size_t i = 1; i < s.size(); ++i) digits = digits && is_digit(s[i]);
    if (digits) return distractor(std::stoi(s.substr(1)));
  }
  throw InputError(place.name(), kTypeAccepted, shown(j));
}

TypeId head_type_from_json(const json& j, const Head& head, const JsonPlace& place) {
  const TypeId t = type_from_json(j, place);
  if (!head.has_type(t)) throw InputError(place.name(), "a type the head has (target, d0..d" + std::to_string(head.distractors.size() - 1) +
                                                            (head.bos ? ", bos" : "") + ")",
                                          shown(j));
  return t;
}

}  // namespace

json head_to_json(const Head& head) {
  json j = json::object();
  j["spectrum"] = spectrum_to_json(head.spectrum, head.spectrum_request.config);
  j["query"] = vector_to_json(head.query);
  j["target"] = vector_to_json(head.target);
  j["distractors"] = json::array();
  for (const auto& d : head.distractors) j["distractors"].push_back(vector_to_json(d));
  if (head.bos) j["bos"] = vector_to_json(*head.bos);
  j["notion"] = notion_name(head.notion);
  j["epsilon"] = head.epsilon;
  j["break_at"] = head.break_at;
  return j;
}

Head head_from_json(const json& j, const std::string& where) {
  const JsonPlace place = JsonPlace::document(where).member("head");
  require_object(j, place, {"spectrum", "query", "target", "distractors", "bos", "notion", "epsilon", "break_at"});
  Head head;
  const json& spectrum = required(j, place, "spectrum", "a spectrum object");
  head.spectrum_request = spectrum_request_from_json(spectrum, place.member("spectrum").name());
  head.spectrum = spectrum_from_json(spectrum, place.member("spectrum").name());
  const int dim = head.spectrum.dim();
  const std::string vec = "a list of " + std::to_string(dim) + " finite numbers";
  head.query = vector_from_json(required(j, place, "query", vec), place.member("query"), dim);
  head.target = vector_from_json(required(j, place, "target", vec), place.member("target"), dim);
  const json& ds = required(j, place, "distractors", "a non-empty list of keys");
  if (!ds.is_array() || ds.empty()) throw InputError(place.member("distractors").name(), "a non-empty list of keys (" + vec + " each)", shown(ds));
  for (std::size_t i = 0; i < ds.size(); ++i) head.distractors.push_back(vector_from_json(ds[i], place.member("distractors").item(i), dim));
  if (j.contains("bos")) head.bos = vector_from_json(j["bos"], place.member("bos"), dim);
  if (j.contains("notion")) {
    const std::string n = string_value(j["notion"], place.member("notion"), "attention or argmax");
    if (n == "attention") head.notion = Notion::attention;
    else if (n == "argmax") head.notion = Notion::argmax;
    else throw InputError(place.member("notion").name(), "attention or argmax", shown(j["notion"]));
  }
  if (j.contains("epsilon")) head.epsilon = string_value(j["epsilon"], place.member("epsilon"), "a decimal string in (0, 1)");
  if (j.contains("break_at")) head.break_at = string_value(j["break_at"], place.member("break_at"), "a decimal string in [0, 1)");
  validate(head, place.name());
  return head;
}

json sequence_to_json(const Sequence& s) {
  json tokens = json::array();
  for (const auto& [position, type] : s.tokens) tokens.push_back(json::array({position, type_name(type)}));
  return json{{"length", s.length}, {"fill", type_name(s.fill)}, {"tokens", tokens}};
}

Sequence sequence_from_json(const json& j, const Head& head, const std::string& where) {
  const JsonPlace place = JsonPlace::document(where).member("sequence");
  require_object(j, place, {"length", "fill", "tokens"});
  Sequence s;
  const std::string length_accepted = "an integer in [2, 2^40]";
  s.length = integer_value(required(j, place, "length", length_accepted), place.member("length"), length_accepted);
  if (s.length < 2 || s.length > (1LL << 40)) throw InputError(place.member("length").name(), length_accepted, std::to_string(s.length));
  s.fill = head_type_from_json(required(j, place, "fill", kTypeAccepted), head, place.member("fill"));
  const json& tokens = required(j, place, "tokens", "a list of [position, type] pairs");
  if (!tokens.is_array()) throw InputError(place.member("tokens").name(), "a list of [position, type] pairs", shown(tokens));
  const std::string position_accepted = "an integer position in [0, " + std::to_string(s.length - 1) + "], listed once";
  std::set<long long> seen;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const JsonPlace item = place.member("tokens").item(i);
    if (!tokens[i].is_array() || tokens[i].size() != 2) throw InputError(item.name(), "a [position, type] pair", shown(tokens[i]));
    const long long position = integer_value(tokens[i][0], item.item(0), position_accepted);
    if (position < 0 || position >= s.length || !seen.insert(position).second)
      throw InputError(item.item(0).name(), position_accepted, std::to_string(position));
    s.set(position, head_type_from_json(tokens[i][1], head, item.item(1)));
  }
  validate(s, head, place.name());
  return s;
}

json to_json(const Counterexample& c) {
  json swaps = json::array();
  for (const auto& [a, b] : c.swaps) swaps.push_back(json::array({a, b}));
  return json{{"format", kCounterexampleFormat}, {"target", c.target},         {"head", head_to_json(c.head)},
              {"sequence", sequence_to_json(c.before)}, {"swaps", swaps}, {"found", c.found}};
}

Counterexample counterexample_from_json(const json& j, const std::string& where) {
  const JsonPlace root = JsonPlace::document(where);
  if (!j.is_object()) throw InputError(where.empty() ? "counterexample" : where, "a counterexample object", shown(j));
  // The format first: a kernel counterexample or another file gets that answer, not "unknown key".
  const std::string format_accepted = std::string("\"") + kCounterexampleFormat + "\"";
  const json& format = required(j, root, "format", format_accepted);
  if (!format.is_string() || format.get<std::string>() != kCounterexampleFormat)
    throw InputError(root.member("format").name(), format_accepted, shown(format));
  refuse_unknown_keys(j, root, {"format", "target", "head", "sequence", "swaps", "found"}, "a counterexample");
  Counterexample c;
  c.target = string_value(required(j, root, "target", "channel or band"), root.member("target"), "channel or band");
  if (c.target != "channel" && c.target != "band") throw InputError(root.member("target").name(), "channel or band", shown(j["target"]));
  c.head = head_from_json(required(j, root, "head", "a head object"), where);
  c.before = sequence_from_json(required(j, root, "sequence", "a sequence object"), c.head, where);
  const JsonPlace swaps_place = root.member("swaps");
  const json& swaps = required(j, root, "swaps", "a list of [a, b] position pairs");
  if (!swaps.is_array()) throw InputError(swaps_place.name(), "a list of [a, b] position pairs", shown(swaps));
  for (std::size_t i = 0; i < swaps.size(); ++i) {
    const JsonPlace item = swaps_place.item(i);
    if (!swaps[i].is_array() || swaps[i].size() != 2) throw InputError(item.name(), "an [a, b] position pair", shown(swaps[i]));
    const std::string accepted = "an integer position in [0, " + std::to_string(c.before.length - 1) + "]";
    Swap s;
    s.first = integer_value(swaps[i][0], item.item(0), accepted);
    s.second = integer_value(swaps[i][1], item.item(1), accepted);
    for (int k = 0; k < 2; ++k) {
      const long long p = k == 0 ? s.first : s.second;
      if (p < 0 || p >= c.before.length) throw InputError(item.item(static_cast<std::size_t>(k)).name(), accepted, std::to_string(p));
    }
    c.swaps.push_back(s);
  }
  validate_swaps(c.swaps, c.before, swaps_place.name());
  if (j.contains("found")) c.found = j["found"];
  return c;
}

StoredFile store_counterexample(const std::string& out_dir, const std::string& target, const json& doc) {
  if (out_dir.empty()) throw InputError("--out", "a writable directory", "");
  // The target becomes a directory name: only the names the formats use.
  if (target != "channel" && target != "band" && target != "kernel") throw InputError("target", "channel, band or kernel", target);
  return store_by_content((std::filesystem::path(out_dir) / target).string(), doc, "--out");
}

}  // namespace ropecheck::adversarial

#include "adversarial/counterexample.h"

#include <charconv>
#include <cmath>
#include <climits>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <stdexcept>
#include <system_error>

#include "io/atomic_write.h"
#include "io/input_error.h"
#include "io/sha256.h"

namespace ropecheck::adversarial {

namespace {

using nlohmann::json;

const std::string kComponentAccepted = "a finite number (JSON number, decimal or hex-float string)";

// "cx.json: head.query[3]": the file (or other origin) the document came from, then the field path.
std::string at(const std::string& where, const std::string& field) { return where.empty() ? field : where + ": " + field; }

std::string index(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

// What was given, short enough for a one-line message.
std::string shown(const json& j) {
  std::string s = j.dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

std::string key_list(const std::set<std::string>& keys) {
  std::string out;
  for (const auto& k : keys) out += (out.empty() ? "" : ", ") + k;
  return out;
}

// An object whose keys are all in `allowed` (a typo must not silently leave a field at its default).
void require_object(const json& j, const std::string& input, const std::set<std::string>& allowed) {
  if (!j.is_object()) throw InputError(input, "an object with keys among " + key_list(allowed), shown(j));
  for (const auto& item : j.items())
    if (!allowed.count(item.key()))
      throw InputError(input + "." + item.key(), "absent: not a field of " + input + ", whose fields are " + key_list(allowed),
                       "an unknown key");
}

const json& required(const json& j, const std::string& key, const std::string& input, const std::string& accepted) {
  const auto it = j.find(key);
  if (it == j.end()) throw InputError(input + "." + key, accepted + " (a required field)", "");
  return *it;
}

std::string string_field(const json& j, const std::string& input, const std::string& accepted) {
  if (!j.is_string()) throw InputError(input, accepted, shown(j));
  return j.get<std::string>();
}

long long integer_field(const json& j, const std::string& input, const std::string& accepted) {
  // Only JSON integers: 3.0 or "3" are rejected rather than guessed at.
  if (j.is_number_unsigned()) {
    const auto u = j.get<unsigned long long>();
    if (u > static_cast<unsigned long long>(LLONG_MAX)) throw InputError(input, accepted, shown(j));
    return static_cast<long long>(u);
  }
  if (j.is_number_integer()) return j.get<long long>();
  throw InputError(input, accepted, shown(j));
}

// theta and fraction are exact decimals: a string, or a JSON integer (exact as written). A JSON
// float is refused: it has already been rounded to binary64, which is not the decimal it shows.
std::string decimal_field(const json& j, const std::string& input, const std::string& accepted) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_number_integer()) return j.dump();
  throw InputError(input, accepted + " (as a string, so that it stays exact)", shown(j));
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex_digit(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// Scans digits[.digits] (at least one digit in all) then an optional exponent introduced by one of
// `exp_chars` with decimal digits; returns false unless the whole text is consumed.
bool scan_number(const std::string& s, std::size_t i, bool hex) {
  const auto digit = [hex](char c) { return hex ? is_hex_digit(c) : is_digit(c); };
  std::size_t digits = 0;
  while (i < s.size() && digit(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && digit(s[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (hex ? (s[i] == 'p' || s[i] == 'P') : (s[i] == 'e' || s[i] == 'E'))) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    std::size_t exp_digits = 0;
    while (i < s.size() && is_digit(s[i])) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == s.size();
}

// The grammar is checked first because from_chars (like strtod) also reads "inf", "nan" and
// "infinity", which a component must not be. from_chars is correctly rounded and, unlike strtod,
// independent of the C locale's decimal point. A value outside the binary64 range (overflow to
// infinity, or a non-zero decimal that rounds to 0) is refused as out of range.
bool parse_component_text(const std::string& s, double& out) {
  std::size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  const bool hex = s.size() >= i + 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X');
  if (hex) i += 2;
  if (!scan_number(s, i, hex)) return false;
  double x = 0;
  const char* end = s.data() + s.size();
  const auto r = std::from_chars(s.data() + i, end, x, hex ? std::chars_format::hex : std::chars_format::general);
  if (r.ec != std::errc() || r.ptr != end) return false;
  out = negative ? -x : x;
  return true;
}

// Scaling as parse_scaling reads it back.
std::string scaling_text(const Scaling& s) {
  switch (s.kind) {
    case Scaling::Kind::none: return "none";
    case Scaling::Kind::linear: return "linear:" + s.factor;
    case Scaling::Kind::llama3: {
      const Scaling shipped = Scaling::llama3_1();
      if (s.factor != shipped.factor || s.low_freq_factor != shipped.low_freq_factor ||
          s.high_freq_factor != shipped.high_freq_factor || s.original_context != shipped.original_context)
        throw std::logic_error("head_to_json: a llama3 scaling other than Llama 3.1's has no --scaling spelling");
      return "llama3";
    }
  }
  return "none";
}

bool takes_fraction(Variant v) { return v == Variant::p_rope || v == Variant::reversed || v == Variant::partial; }

// resolve() and Spectrum name their inputs by CLI flag; in a file the same check is about a field.
std::string field_of_flag(const std::string& flag) {
  if (flag == "--config") return "config";
  if (flag == "--dim") return "dim";
  if (flag == "--theta") return "theta";
  if (flag == "--scaling") return "scaling";
  if (flag == "--p-rope" || flag == "--reversed" || flag == "--partial" || flag == "--fraction") return "fraction";
  return "";
}

// Re-throws an InputError of resolve() with the field path in place of the flag. InputError keeps
// only its whole message, "<input> must be <accepted> (got <got>)", so the parts are split back
// out of it; a message of another shape is kept whole as the reason.
[[noreturn]] void rethrow_at(const InputError& e, const std::string& path) {
  const std::string what = e.what();
  const std::string field = field_of_flag(e.input());
  const std::string input = field.empty() ? path : path + "." + field;
  const std::string prefix = e.input() + " must be ";
  const std::size_t got = what.rfind(" (got ");
  if (what.compare(0, prefix.size(), prefix) == 0 && got != std::string::npos && got >= prefix.size() && what.back() == ')') {
    std::string given = what.substr(got + 6, what.size() - got - 7);
    if (given == "nothing") given.clear();
    throw InputError(input, what.substr(prefix.size(), got - prefix.size()), given);
  }
  throw InputError(input, "a valid spectrum", what);
}

std::vector<double> vector_from_json(const json& j, const std::string& input, int dim) {
  const std::string accepted = "a list of " + std::to_string(dim) + " finite numbers (the spectrum's dim)";
  if (!j.is_array()) throw InputError(input, accepted, shown(j));
  if (j.size() != static_cast<std::size_t>(dim)) throw InputError(input, accepted, "a list of " + std::to_string(j.size()));
  std::vector<double> v(j.size());
  for (std::size_t i = 0; i < j.size(); ++i) v[i] = component_from_json(j[i], index(input, i));
  return v;
}

json vector_to_json(const std::vector<double>& v) {
  json out = json::array();
  for (double x : v) out.push_back(component_text(x));
  return out;
}

const std::string kTypeAccepted = "a token type: target, bos or dN (distractor N)";

TypeId type_from_json(const json& j, const std::string& input) {
  const std::string s = string_field(j, input, kTypeAccepted);
  if (s == "target") return kTarget;
  if (s == "bos") return kBos;
  // dN with N written without leading zeros, so that each type has one spelling.
  if (s.size() >= 2 && s.size() <= 8 && s[0] == 'd' && (s.size() == 2 || s[1] != '0')) {
    bool digits = true;
    for (std::size_t i = 1; i < s.size(); ++i) digits = digits && is_digit(s[i]);
    if (digits) return distractor(std::stoi(s.substr(1)));
  }
  throw InputError(input, kTypeAccepted, shown(j));
}

TypeId head_type_from_json(const json& j, const Head& head, const std::string& input) {
  const TypeId t = type_from_json(j, input);
  if (!head.has_type(t)) throw InputError(input, "a type the head has (target, d0..d" + std::to_string(head.distractors.size() - 1) +
                                                     (head.bos ? ", bos" : "") + ")",
                                          shown(j));
  return t;
}

}  // namespace

SpectrumRequest spectrum_request_from_json(const json& j, const std::string& input) {
  static const std::set<std::string> keys = {"config", "dim", "theta", "variant", "fraction", "scaling"};
  require_object(j, input, keys);
  SpectrumRequest r;
  if (j.contains("config")) r.config = string_field(j["config"], input + ".config", "a configuration name (string)");
  if (j.contains("dim")) {
    const long long d = integer_field(j["dim"], input + ".dim", "an even integer >= 2");
    if (d < 2 || d > INT_MAX) throw InputError(input + ".dim", "an even integer >= 2", std::to_string(d));
    r.dim = static_cast<int>(d);
  }
  if (j.contains("theta")) r.theta = decimal_field(j["theta"], input + ".theta", "a decimal > 1");
  if (j.contains("variant"))
    r.variant = parse_variant(string_field(j["variant"], input + ".variant", "a variant name (string)"), input + ".variant");
  if (j.contains("fraction")) {
    if (!r.variant || !takes_fraction(*r.variant))
      throw InputError(input + ".fraction", "absent unless variant is p-rope, reversed or partial", shown(j["fraction"]));
    r.fraction = decimal_field(j["fraction"], input + ".fraction", "a decimal in [0, 1]");
  } else if (r.variant && takes_fraction(*r.variant)) {
    throw InputError(input + ".fraction", "a decimal in [0, 1] (required with variant " + variant_name(*r.variant) + ")", "");
  }
  if (j.contains("scaling")) r.scaling = string_field(j["scaling"], input + ".scaling", "none, linear:F or llama3");
  if (!r.config && !r.dim) throw InputError(input + ".dim", "an even integer >= 2 (or give config)", "");
  return r;
}

Spectrum spectrum_from_json(const json& j, const std::string& where) {
  const SpectrumRequest r = spectrum_request_from_json(j, where);
  try {
    return resolve(r).spectrum;
  } catch (const InputError& e) {
    rethrow_at(e, where);
  }
}

double component_from_json(const json& j, const std::string& where) {
  double x = 0;
  if (j.is_number()) {
    x = j.get<double>();
  } else if (j.is_string()) {
    if (!parse_component_text(j.get<std::string>(), x)) throw InputError(where, kComponentAccepted, shown(j));
  } else {
    throw InputError(where, kComponentAccepted, shown(j));
  }
  if (!std::isfinite(x)) throw InputError(where, kComponentAccepted, shown(j));
  return x;
}

std::string component_text(double x) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

json head_to_json(const Head& head) {
  const Spectrum& s = head.spectrum;
  json spectrum = json::object();
  if (head.spectrum_request.config) spectrum["config"] = *head.spectrum_request.config;
  spectrum["dim"] = s.dim();
  spectrum["theta"] = s.theta();
  spectrum["variant"] = variant_name(s.variant());
  if (takes_fraction(s.variant())) spectrum["fraction"] = s.fraction();
  spectrum["scaling"] = scaling_text(s.scaling());
  json j = json::object();
  j["spectrum"] = spectrum;
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
  static const std::set<std::string> keys = {"spectrum", "query", "target", "distractors", "bos", "notion", "epsilon", "break_at"};
  const std::string input = at(where, "head");
  require_object(j, input, keys);
  Head head;
  const json& spectrum = required(j, "spectrum", input, "a spectrum object");
  head.spectrum_request = spectrum_request_from_json(spectrum, input + ".spectrum");
  head.spectrum = spectrum_from_json(spectrum, input + ".spectrum");
  const int dim = head.spectrum.dim();
  const std::string vec = "a list of " + std::to_string(dim) + " finite numbers";
  head.query = vector_from_json(required(j, "query", input, vec), input + ".query", dim);
  head.target = vector_from_json(required(j, "target", input, vec), input + ".target", dim);
  const json& ds = required(j, "distractors", input, "a non-empty list of keys");
  if (!ds.is_array() || ds.empty()) throw InputError(input + ".distractors", "a non-empty list of keys (" + vec + " each)", shown(ds));
  for (std::size_t i = 0; i < ds.size(); ++i) head.distractors.push_back(vector_from_json(ds[i], index(input + ".distractors", i), dim));
  if (j.contains("bos")) head.bos = vector_from_json(j["bos"], input + ".bos", dim);
  if (j.contains("notion")) {
    const std::string n = string_field(j["notion"], input + ".notion", "attention or argmax");
    if (n == "attention") head.notion = Notion::attention;
    else if (n == "argmax") head.notion = Notion::argmax;
    else throw InputError(input + ".notion", "attention or argmax", shown(j["notion"]));
  }
  if (j.contains("epsilon")) head.epsilon = string_field(j["epsilon"], input + ".epsilon", "a decimal string in (0, 1)");
  if (j.contains("break_at")) head.break_at = string_field(j["break_at"], input + ".break_at", "a decimal string in [0, 1)");
  validate(head, input);
  return head;
}

json sequence_to_json(const Sequence& s) {
  json tokens = json::array();
  for (const auto& [position, type] : s.tokens) tokens.push_back(json::array({position, type_name(type)}));
  return json{{"length", s.length}, {"fill", type_name(s.fill)}, {"tokens", tokens}};
}

Sequence sequence_from_json(const json& j, const Head& head, const std::string& where) {
  static const std::set<std::string> keys = {"length", "fill", "tokens"};
  const std::string input = at(where, "sequence");
  require_object(j, input, keys);
  Sequence s;
  const std::string length_accepted = "an integer in [2, 2^40]";
  s.length = integer_field(required(j, "length", input, length_accepted), input + ".length", length_accepted);
  if (s.length < 2 || s.length > (1LL << 40)) throw InputError(input + ".length", length_accepted, std::to_string(s.length));
  s.fill = head_type_from_json(required(j, "fill", input, kTypeAccepted), head, input + ".fill");
  const json& tokens = required(j, "tokens", input, "a list of [position, type] pairs");
  if (!tokens.is_array()) throw InputError(input + ".tokens", "a list of [position, type] pairs", shown(tokens));
  const std::string position_accepted = "an integer position in [0, " + std::to_string(s.length - 1) + "], listed once";
  std::set<long long> seen;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::string item = index(input + ".tokens", i);
    if (!tokens[i].is_array() || tokens[i].size() != 2) throw InputError(item, "a [position, type] pair", shown(tokens[i]));
    const long long position = integer_field(tokens[i][0], index(item, 0), position_accepted);
    if (position < 0 || position >= s.length || !seen.insert(position).second)
      throw InputError(index(item, 0), position_accepted, std::to_string(position));
    s.set(position, head_type_from_json(tokens[i][1], head, index(item, 1)));
  }
  validate(s, head, input);
  return s;
}

json to_json(const Counterexample& c) {
  json swaps = json::array();
  for (const auto& [a, b] : c.swaps) swaps.push_back(json::array({a, b}));
  return json{{"format", kCounterexampleFormat}, {"target", c.target},         {"head", head_to_json(c.head)},
              {"sequence", sequence_to_json(c.before)}, {"swaps", swaps}, {"found", c.found}};
}

Counterexample counterexample_from_json(const json& j, const std::string& where) {
  static const std::set<std::string> keys = {"format", "target", "head", "sequence", "swaps", "found"};
  if (!j.is_object()) throw InputError(where.empty() ? "counterexample" : where, "a counterexample object", shown(j));
  // Required top-level fields are named "<where>: field" (no "counterexample." prefix).
  const auto need = [&](const std::string& key, const std::string& accepted) -> const json& {
    if (!j.contains(key)) throw InputError(at(where, key), accepted + " (a required field)", "");
    return j[key];
  };
  // The format first: a kernel counterexample or another file gets that answer, not "unknown key".
  const std::string format_accepted = std::string("\"") + kCounterexampleFormat + "\"";
  const json& format = need("format", format_accepted);
  if (!format.is_string() || format.get<std::string>() != kCounterexampleFormat)
    throw InputError(at(where, "format"), format_accepted, shown(format));
  for (const auto& item : j.items())
    if (!keys.count(item.key()))
      throw InputError(at(where, item.key()), "absent: a counterexample's fields are " + key_list(keys), "an unknown key");
  Counterexample c;
  c.target = string_field(need("target", "channel or band"), at(where, "target"), "channel or band");
  if (c.target != "channel" && c.target != "band") throw InputError(at(where, "target"), "channel or band", shown(j["target"]));
  need("head", "a head object");
  c.head = head_from_json(j["head"], where);
  c.before = sequence_from_json(need("sequence", "a sequence object"), c.head, where);
  const std::string swaps_input = at(where, "swaps");
  const json& swaps = need("swaps", "a list of [a, b] position pairs");
  if (!swaps.is_array()) throw InputError(swaps_input, "a list of [a, b] position pairs", shown(swaps));
  for (std::size_t i = 0; i < swaps.size(); ++i) {
    const std::string item = index(swaps_input, i);
    if (!swaps[i].is_array() || swaps[i].size() != 2) throw InputError(item, "an [a, b] position pair", shown(swaps[i]));
    const std::string accepted = "an integer position in [0, " + std::to_string(c.before.length - 1) + "]";
    Swap s;
    s.first = integer_field(swaps[i][0], index(item, 0), accepted);
    s.second = integer_field(swaps[i][1], index(item, 1), accepted);
    for (int k = 0; k < 2; ++k) {
      const long long p = k == 0 ? s.first : s.second;
      if (p < 0 || p >= c.before.length) throw InputError(index(item, k), accepted, std::to_string(p));
    }
    c.swaps.push_back(s);
  }
  validate_swaps(c.swaps, c.before, swaps_input);
  if (j.contains("found")) c.found = j["found"];
  return c;
}

json read_json_file(const std::string& path) {
  namespace fs = std::filesystem;
  const std::string accepted = "a readable JSON file";
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(path, accepted, "no such file");
  if (fs::is_directory(path, ec)) throw InputError(path, accepted, "a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, accepted, "cannot be opened for reading");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError(path, accepted, "a read error");
  // nlohmann keeps the last of two equal keys silently; a duplicate is as suspicious as a typo.
  std::vector<std::set<std::string>> open_objects;
  std::string duplicate;
  const json::parser_callback_t callback = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) open_objects.emplace_back();
    else if (event == json::parse_event_t::object_end && !open_objects.empty()) open_objects.pop_back();
    else if (event == json::parse_event_t::key && !open_objects.empty() && duplicate.empty() &&
             !open_objects.back().insert(parsed.get<std::string>()).second)
      duplicate = parsed.get<std::string>();
    return true;
  };
  json j;
  try {
    j = json::parse(text, callback);
  } catch (const json::parse_error& e) {
    // e.what() is "[json.exception.parse_error.101] parse error at line L, column C: <reason>";
    // e.byte counts from 1, and is one past the end when the input ended early.
    std::string reason = e.what();
    const std::size_t bracket = reason.find("] ");
    if (bracket != std::string::npos) reason = reason.substr(bracket + 2);
    const bool truncated = e.byte > text.size();
    throw InputError(path, accepted,
                     std::string(truncated ? "truncated" : "malformed") + " JSON at byte " + std::to_string(e.byte) + " of " +
                         std::to_string(text.size()) + ": " + reason);
  } catch (const json::exception& e) {
    // A number beyond the binary64 range (out_of_range.406) is the parser's other refusal.
    std::string reason = e.what();
    const std::size_t bracket = reason.find("] ");
    if (bracket != std::string::npos) reason = reason.substr(bracket + 2);
    throw InputError(path, accepted, "malformed JSON: " + reason);
  }
  if (!duplicate.empty()) throw InputError(path, accepted, "malformed JSON: the key \"" + duplicate + "\" twice in one object");
  return j;
}

std::string canonical_text(const json& j) { return j.dump(2) + "\n"; }

StoredFile store_counterexample(const std::string& out_dir, const std::string& target, const json& doc) {
  namespace fs = std::filesystem;
  const std::string accepted = "a writable directory";
  if (out_dir.empty()) throw InputError("--out", accepted, "");
  // The target becomes a directory name: only the names the formats use.
  if (target != "channel" && target != "band" && target != "kernel") throw InputError("target", "channel, band or kernel", target);
  const fs::path dir = fs::path(out_dir) / target;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError("--out", accepted, dir.string() + ": " + ec.message());
  if (!fs::is_directory(dir, ec)) throw InputError("--out", accepted, dir.string() + ": not a directory");
  const std::string text = canonical_text(doc);
  StoredFile out;
  out.path = (dir / (sha256_hex(text) + ".json")).string();
  out.created = atomic_create(out.path, text, "--out");
  return out;
}

}  // namespace ropecheck::adversarial

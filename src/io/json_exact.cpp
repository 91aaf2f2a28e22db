#include "io/json_exact.h"

#include <cmath>
#include <optional>
#include <set>
#include <vector>

#include "io/input_error.h"

namespace ropecheck {

namespace {

using nlohmann::json;

// Builds the DOM as nlohmann's own SAX DOM builder does, except that a float becomes its marked
// lexeme, and a key given twice in one object stops the parse.
class ExactBuilder {
 public:
  explicit ExactBuilder(json& root) : root_(root) {}

  bool null() { return put(json(nullptr)); }
  bool boolean(bool v) { return put(json(v)); }
  bool number_integer(json::number_integer_t v) { return put(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return put(json(v)); }
  bool number_float(json::number_float_t v, const json::string_t& lexeme) {
    if (!std::isfinite(v)) {  // as nlohmann's own parser, which refuses it (out_of_range.406)
      error_ = "malformed JSON: number overflow parsing '" + lexeme + "'";
      return false;
    }
    return put(json(std::string(1, kFloatMark) + lexeme));
  }
  bool string(json::string_t& v) { return put(json(v)); }
  bool binary(json::binary_t&) { return false; }  // not produced by a text parse
  bool start_object(std::size_t) {
    json* o = put(json::object());
    stack_.push_back(o);
    keys_.emplace_back();
    return o != nullptr;
  }
  bool key(json::string_t& k) {
    if (!keys_.back().insert(k).second) {
      duplicate_ = k;
      return false;
    }
    key_ = k;
    return true;
  }
  bool end_object() {
    stack_.pop_back();
    keys_.pop_back();
    return true;
  }
  bool start_array(std::size_t) {
    json* a = put(json::array());
    stack_.push_back(a);
    keys_.emplace_back();
    return a != nullptr;
  }
  bool end_array() {
    stack_.pop_back();
    keys_.pop_back();
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
    if (const auto* p = dynamic_cast<const json::parse_error*>(&e)) parse_error_.emplace(*p);
    else error_ = "malformed JSON: " + std::string(e.what());
    return false;
  }

  // Returns: why the parse stopped ("" when it did not), in read_json_file's words.
  std::string reason(std::size_t text_size) const {
    if (!duplicate_.empty()) return "malformed JSON: the key \"" + duplicate_ + "\" twice in one object";
    if (parse_error_) return json_error_reason(*parse_error_, text_size, true);
    return error_;
  }

 private:
  // Places v where the parse is and returns it (a pointer, so that containers can be filled).
  json* put(json v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    json& parent = *stack_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(v));
      return &parent.back();
    }
    json& slot = parent[key_];
    slot = std::move(v);
    return &slot;
  }

  json& root_;
  std::vector<json*> stack_;
  std::vector<std::set<std::string>> keys_;
  std::string key_, duplicate_, error_;
  std::optional<json::parse_error> parse_error_;
};

bool is_marked(const json& j) {
  return j.is_string() && !j.get_ref<const std::string&>().empty() && j.get_ref<const std::string&>()[0] == kFloatMark;
}

json unmarked(const json& j) {
  if (is_marked(j)) return json::parse(j.get<std::string>().substr(1));
  if (j.is_object()) {
    json out = json::object();
    for (const auto& item : j.items()) out[item.key()] = unmarked(item.value());
    return out;
  }
  if (j.is_array()) {
    json out = json::array();
    for (const auto& v : j) out.push_back(unmarked(v));
    return out;
  }
  return j;
}

}  // namespace

json parse_json_exact(const std::string& text, const std::string& origin) {
  const std::string accepted = "a readable JSON file";
  json root;
  ExactBuilder builder(root);
  try {
    if (!json::sax_parse(text, &builder)) throw InputError(origin, accepted, builder.reason(text.size()));
  } catch (const json::parse_error& e) {
    throw InputError(origin, accepted, json_error_reason(e, text.size(), true));
  } catch (const json::exception& e) {
    throw InputError(origin, accepted, json_error_reason(e, text.size(), false));
  }
  return root;
}

json read_json_exact_file(const std::string& path) { return parse_json_exact(read_json_text(path), path); }

bool is_exact_number(const json& j) { return j.is_number_integer() || is_marked(j); }

std::string number_text(const json& j, const JsonPlace& place, const std::string& accepted) {
  if (is_marked(j)) return j.get<std::string>().substr(1);
  if (j.is_number_integer()) return j.dump();
  throw InputError(place.name(), accepted, shown_exact(j));
}

std::string exact_string(const json& j, const JsonPlace& place, const std::string& accepted) {
  if (!j.is_string() || is_marked(j)) throw InputError(place.name(), accepted, shown_exact(j));
  return j.get<std::string>();
}

std::string shown_exact(const json& j) { return shown(unmarked(j)); }

}  // namespace ropecheck

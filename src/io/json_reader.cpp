#include "io/json_reader.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <system_error>
#include <vector>

#include "io/input_error.h"
#include "io/json_exact.h"

namespace ropecheck {

namespace {

using nlohmann::json;

const char* const kReadable = "a readable JSON file";

// The reason for a parser exception on a text of text_size bytes (parse_error: e is a
// json::parse_error; else another refusal, such as a number beyond the binary64 range).
std::string error_reason(const json::exception& e, std::size_t text_size, bool parse_error) {
  // e.what() is "[json.exception.parse_error.101] parse error at line L, column C: <reason>".
  std::string reason = e.what();
  const std::size_t bracket = reason.find("] ");
  if (bracket != std::string::npos) reason = reason.substr(bracket + 2);
  if (!parse_error) return "malformed JSON: " + reason;
  // e.byte counts from 1, and is one past the end when the input ended early.
  const std::size_t byte = static_cast<const json::parse_error&>(e).byte;
  return std::string(byte > text_size ? "truncated" : "malformed") + " JSON at byte " + std::to_string(byte) + " of " +
         std::to_string(text_size) + ": " + reason;
}

// Builds the DOM as nlohmann's own SAX DOM builder does, within the limits, refusing a key given
// twice in one object, and (exact) holding each float as its marked lexeme.
class LimitedBuilder {
 public:
  LimitedBuilder(json& root, const JsonLimits& limits, JsonNumbers numbers) : root_(root), limits_(limits), numbers_(numbers) {}

  bool null() { return put(json(nullptr)) != nullptr; }
  bool boolean(bool v) { return put(json(v)) != nullptr; }
  bool number_integer(json::number_integer_t v) { return put(json(v)) != nullptr; }
  bool number_unsigned(json::number_unsigned_t v) { return put(json(v)) != nullptr; }
  bool number_float(json::number_float_t v, const json::string_t& lexeme) {
    if (!std::isfinite(v)) {  // as nlohmann's own parser, which refuses it (out_of_range.406)
      error_ = "malformed JSON: number overflow parsing '" + lexeme + "'";
      return false;
    }
    if (numbers_ == JsonNumbers::exact) return put(json(std::string(1, kFloatMark) + lexeme)) != nullptr;
    return put(json(v)) != nullptr;
  }
  bool string(json::string_t& v) {
    if (numbers_ == JsonNumbers::exact && !v.empty() && v[0] == kFloatMark) {  // "\u0001...": it would read as a number
      error_ = "malformed JSON: a string starting with the control character U+0001";
      return false;
    }
    return put(json(std::move(v))) != nullptr;
  }
  bool binary(json::binary_t&) { return false; }  // not produced by a text parse
  bool start_object(std::size_t) { return open(json::object()); }
  bool key(json::string_t& k) {
    if (!keys_.back().insert(k).second) {
      duplicate_ = k;
      return false;
    }
    key_ = k;
    return true;
  }
  bool end_object() { return close(); }
  bool start_array(std::size_t) { return open(json::array()); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
    if (const auto* p = dynamic_cast<const json::parse_error*>(&e)) parse_error_.emplace(*p);
    else error_ = "malformed JSON: " + std::string(e.what());
    return false;
  }

  // Returns: why the parse stopped ("" when it did not); limit: a limit stopped it.
  std::string reason(std::size_t text_size, bool& limit) const {
    limit = !limit_.empty();
    if (limit) return limit_;
    if (!duplicate_.empty()) return "malformed JSON: the key \"" + duplicate_ + "\" twice in one object";
    if (parse_error_) return error_reason(*parse_error_, text_size, true);
    return error_;
  }

 private:
  bool open(json container) {
    if (stack_.size() + 1 > limits_.max_depth) {
      limit_ = "arrays or objects nested deeper than " + std::to_string(limits_.max_depth);
      return false;
    }
    json* c = put(std::move(container));
    if (c == nullptr) return false;
    stack_.push_back(c);
    items_.push_back(0);
    keys_.emplace_back();
    return true;
  }
  bool close() {
    stack_.pop_back();
    items_.pop_back();
    keys_.pop_back();
    return true;
  }
  // Places v where the parse is and returns it (a pointer, so that containers can be filled);
  // nullptr past the item limit.
  json* put(json v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    if (++items_.back() > limits_.max_items) {
      limit_ = "an array or object of more than " + std::to_string(limits_.max_items) + " items";
      return nullptr;
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
  const JsonLimits limits_;
  const JsonNumbers numbers_;
  std::vector<json*> stack_;
  std::vector<std::size_t> items_;
  std::vector<std::set<std::string>> keys_;
  std::string key_, duplicate_, error_, limit_;
  std::optional<json::parse_error> parse_error_;
};

}  // namespace

std::string JsonLimits::describe() const {
  return "a JSON document of at most " + std::to_string(max_bytes) + " bytes, nesting depth at most " + std::to_string(max_depth) +
         " and at most " + std::to_string(max_items) + " items per array or object";
}

json parse_json(std::string_view text, const std::string& origin, const JsonLimits& limits, JsonNumbers numbers) {
  if (text.size() > limits.max_bytes) throw InputError(origin, limits.describe(), std::to_string(text.size()) + " bytes");
  json root;
  LimitedBuilder builder(root, limits, numbers);
  bool complete = false;
  try {
    complete = json::sax_parse(text, &builder);
  } catch (const json::parse_error& e) {
    throw InputError(origin, kReadable, error_reason(e, text.size(), true));
  } catch (const json::exception& e) {
    throw InputError(origin, kReadable, error_reason(e, text.size(), false));
  }
  if (!complete) {
    bool limit = false;
    const std::string reason = builder.reason(text.size(), limit);
    throw InputError(origin, limit ? limits.describe() : std::string(kReadable), reason);
  }
  return root;
}

std::string read_json_text(const std::string& path, const JsonLimits& limits) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(path, kReadable, "no such file");
  if (fs::is_directory(path, ec)) throw InputError(path, kReadable, "a directory");
  if (fs::is_regular_file(path, ec)) {
    const std::uintmax_t size = fs::file_size(path, ec);
    if (!ec && size > limits.max_bytes) throw InputError(path, limits.describe(), std::to_string(size) + " bytes");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, kReadable, "cannot be opened for reading");
  // A pipe or a file growing while read: read at most one byte past the limit.
  std::string text;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > limits.max_bytes) throw InputError(path, limits.describe(), "more than " + std::to_string(limits.max_bytes) + " bytes");
  }
  if (in.bad()) throw InputError(path, kReadable, "a read error");
  return text;
}

json read_json_file(const std::string& path, const JsonLimits& limits, JsonNumbers numbers) {
  return parse_json(read_json_text(path, limits), path, limits, numbers);
}

}  // namespace ropecheck

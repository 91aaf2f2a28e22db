#include "io/json_fields.h"

#include <climits>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>
#include <vector>

#include "io/input_error.h"
#include "io/number_text.h"

namespace ropecheck {

using nlohmann::json;

JsonPlace JsonPlace::document(const std::string& origin) {
  JsonPlace p(origin);
  p.document_ = true;
  return p;
}

JsonPlace JsonPlace::member(const std::string& key) const {
  if (!document_) return JsonPlace(name_ + "." + key);
  return JsonPlace(name_.empty() ? key : name_ + ": " + key);
}

JsonPlace JsonPlace::item(std::size_t i) const { return JsonPlace(name_ + "[" + std::to_string(i) + "]"); }

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

void refuse_unknown_keys(const json& object, const JsonPlace& place, const std::set<std::string>& allowed, const std::string& owner) {
  for (const auto& item : object.items())
    if (!allowed.count(item.key()))
      throw InputError(place.member(item.key()).name(),
                       "absent: not a field of " + (owner.empty() ? place.name() : owner) + ", whose fields are " + key_list(allowed),
                       "an unknown key");
}

void require_object(const json& j, const JsonPlace& place, const std::set<std::string>& allowed) {
  if (!j.is_object()) throw InputError(place.name(), "an object with keys among " + key_list(allowed), shown(j));
  refuse_unknown_keys(j, place, allowed);
}

const json& required(const json& object, const JsonPlace& place, const std::string& key, const std::string& accepted) {
  const auto it = object.find(key);
  if (it == object.end()) throw InputError(place.member(key).name(), accepted + " (a required field)", "");
  return *it;
}

std::string string_value(const json& j, const JsonPlace& place, const std::string& accepted) {
  if (!j.is_string()) throw InputError(place.name(), accepted, shown(j));
  return j.get<std::string>();
}

long long integer_value(const json& j, const JsonPlace& place, const std::string& accepted) {
  if (j.is_number_unsigned()) {
    const auto u = j.get<unsigned long long>();
    if (u > static_cast<unsigned long long>(LLONG_MAX)) throw InputError(place.name(), accepted, shown(j));
    return static_cast<long long>(u);
  }
  if (j.is_number_integer()) return j.get<long long>();
  throw InputError(place.name(), accepted, shown(j));
}

std::uint64_t unsigned_value(const json& j, const JsonPlace& place, const std::string& accepted) {
  if (j.is_number_unsigned()) return j.get<std::uint64_t>();
  if (j.is_number_integer() && j.get<long long>() >= 0) return static_cast<std::uint64_t>(j.get<long long>());
  throw InputError(place.name(), accepted, shown(j));
}

double number_value(const json& j, const JsonPlace& place, const std::string& accepted) {
  if (!j.is_number()) throw InputError(place.name(), accepted, shown(j));
  return j.get<double>();
}

std::string decimal_value(const json& j, const JsonPlace& place, const std::string& accepted) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_number_integer()) return j.dump();
  throw InputError(place.name(), accepted + " (as a string, so that it stays exact)", shown(j));
}

double finite_double_value(const json& j, const JsonPlace& place) {
  static const std::string accepted = "a finite number (JSON number, decimal or hex-float string)";
  double x = 0;
  if (j.is_number()) {
    x = j.get<double>();
  } else if (j.is_string()) {
    if (!parse_number_text(j.get<std::string>(), x)) throw InputError(place.name(), accepted, shown(j));
  } else {
    throw InputError(place.name(), accepted, shown(j));
  }
  if (!std::isfinite(x)) throw InputError(place.name(), accepted, shown(j));
  return x;
}

std::string read_json_text(const std::string& path) {
  namespace fs = std::filesystem;
  const std::string accepted = "a readable JSON file";
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(path, accepted, "no such file");
  if (fs::is_directory(path, ec)) throw InputError(path, accepted, "a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, accepted, "cannot be opened for reading");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError(path, accepted, "a read error");
  return text;
}

std::string json_error_reason(const json::exception& e, std::size_t text_size, bool parse_error) {
  // e.what() is "[json.exception.parse_error.101] parse error at line L, column C: <reason>".
  std::string reason = e.what();
  const std::size_t bracket = reason.find("] ");
  if (bracket != std::string::npos) reason = reason.substr(bracket + 2);
  if (!parse_error) return "malformed JSON: " + reason;  // e.g. a number beyond the binary64 range
  // e.byte counts from 1, and is one past the end when the input ended early.
  const std::size_t byte = static_cast<const json::parse_error&>(e).byte;
  return std::string(byte > text_size ? "truncated" : "malformed") + " JSON at byte " + std::to_string(byte) + " of " +
         std::to_string(text_size) + ": " + reason;
}

json read_json_file(const std::string& path) {
  const std::string accepted = "a readable JSON file";
  const std::string text = read_json_text(path);
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
    throw InputError(path, accepted, json_error_reason(e, text.size(), true));
  } catch (const json::exception& e) {
    throw InputError(path, accepted, json_error_reason(e, text.size(), false));
  }
  if (!duplicate.empty()) throw InputError(path, accepted, "malformed JSON: the key \"" + duplicate + "\" twice in one object");
  return j;
}

}  // namespace ropecheck

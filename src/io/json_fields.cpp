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
  // Replacing invalid UTF-8 (a caller's value, not a parsed one): dump() would throw on it.
  std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace);
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

}  // namespace ropecheck

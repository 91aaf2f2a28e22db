#include "io/json_exact.h"

#include <cmath>

#include "io/input_error.h"

namespace ropecheck {

namespace {

using nlohmann::json;

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

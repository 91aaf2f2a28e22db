#include "spectrum/detail/spectrum_fields.h"

#include <set>

#include "io/input_error.h"
#include "spectrum/detail/scaling_checks.h"

namespace ropecheck::spectrum_fields {

using nlohmann::json;

std::string positive_decimal(const json& object, const JsonPlace& place, const std::string& key) {
  const std::string accepted = "a decimal > 0";
  const std::string text = decimal_value(required(object, place, key, accepted), place.member(key), accepted);
  // Decided exactly on the decimal (scaling_checks.h), as check_scaling decides it.
  if (!scaling_checks::positive_decimal(text)) throw InputError(place.member(key).name(), accepted, text);
  return text;
}

std::optional<std::string> optional_positive(const json& object, const JsonPlace& place, const std::string& key) {
  if (!object.contains(key)) return std::nullopt;
  return positive_decimal(object, place, key);
}

std::optional<std::string> optional_decimal(const json& object, const JsonPlace& place, const std::string& key) {
  if (!object.contains(key)) return std::nullopt;
  return decimal_value(object[key], place.member(key), "a decimal");
}

long long integer_at_least(const json& object, const JsonPlace& place, const std::string& key, long long min) {
  const std::string accepted = "an integer >= " + std::to_string(min);
  const long long v = integer_value(required(object, place, key, accepted), place.member(key), accepted);
  if (v < min) throw InputError(place.member(key).name(), accepted, std::to_string(v));
  return v;
}

bool boolean_field(const json& object, const JsonPlace& place, const std::string& key) {
  const json& v = required(object, place, key, "true or false");
  if (!v.is_boolean()) throw InputError(place.member(key).name(), "true or false", shown(v));
  return v.get<bool>();
}

std::vector<std::string> decimal_list(const json& object, const JsonPlace& place, const std::string& key) {
  const std::string accepted = "a list of decimals > 0";
  const json& v = required(object, place, key, accepted);
  if (!v.is_array()) throw InputError(place.member(key).name(), accepted, shown(v));
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); ++i) out.push_back(decimal_value(v[i], place.member(key).item(i), "a decimal > 0"));
  return out;
}

void scaling_keys(const json& object, const JsonPlace& place, const std::string& kind, std::initializer_list<std::string> fields) {
  std::set<std::string> allowed(fields);
  allowed.insert("kind");
  refuse_unknown_keys(object, place, allowed, "a scaling of kind " + kind);
}

}  // namespace ropecheck::spectrum_fields

// File: detail/spectrum_fields.h
// The field readers of spectrum files (spectrum_json.cpp) and of the scaling object's fields
// (each scaling/<kind>.cpp's from_json): each refusal an InputError naming the field and the
// accepted range. Decimals keep the file's exact text, as Scaling holds them.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/json_fields.h"

namespace ropecheck::spectrum_fields {

// The decimal text of object[key], refused unless a decimal > 0.
std::string positive_decimal(const nlohmann::json& object, const JsonPlace& place, const std::string& key);
// As positive_decimal, nullopt when the key is absent.
std::optional<std::string> optional_positive(const nlohmann::json& object, const JsonPlace& place, const std::string& key);
// The decimal text of object[key] (any sign), nullopt when absent.
std::optional<std::string> optional_decimal(const nlohmann::json& object, const JsonPlace& place, const std::string& key);
// object[key], refused unless an integer >= min.
long long integer_at_least(const nlohmann::json& object, const JsonPlace& place, const std::string& key, long long min);
// object[key], refused unless true or false.
bool boolean_field(const nlohmann::json& object, const JsonPlace& place, const std::string& key);
// object[key], refused unless a list of decimals (each text kept; positivity is check_scaling's).
std::vector<std::string> decimal_list(const nlohmann::json& object, const JsonPlace& place, const std::string& key);
// Refuses every key of a scaling object but "kind" and `fields` (a scaling of kind `kind`).
void scaling_keys(const nlohmann::json& object, const JsonPlace& place, const std::string& kind, std::initializer_list<std::string> fields);

}  // namespace ropecheck::spectrum_fields

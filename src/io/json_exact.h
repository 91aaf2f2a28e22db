// File: json_exact.h
// JSON whose numbers keep the text they were written with. Model configs write decimals as JSON
// numbers ("rope_theta": 500000.0, "short_factor": [1.0800000429153442, ...]); a JSON parser rounds
// them to binary64, which is not the decimal the file shows, and exact arithmetic needs the
// decimal. parse_json(..., JsonNumbers::exact) (io/json_reader.h) keeps each JSON float as its lexeme;
// number_text() returns it.
//
// Representation: a float is held in the DOM as a string that starts with kFloatMark (a control
// character no JSON text can put in a string unescaped), so the documents stay plain nlohmann
// values; string_value() of json_fields.h must not be used on them for fields that may be numbers:
// use exact_string() below, which refuses a marked float as "not a string".
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "io/json_fields.h"

namespace ropecheck {

inline constexpr char kFloatMark = '\x01';

// Returns: true for a JSON integer or a marked float.
bool is_exact_number(const nlohmann::json& j);
// Returns: a number's text exactly as written ("500000.0", "1e-05", "32"). Throws InputError(place,
// accepted, shown) for anything else (a string, a boolean, null, an object).
std::string number_text(const nlohmann::json& j, const JsonPlace& place, const std::string& accepted);
// Returns: a JSON string's value. Throws InputError(place, accepted, shown) for anything else,
// marked floats included.
std::string exact_string(const nlohmann::json& j, const JsonPlace& place, const std::string& accepted);
// Returns: j for display: marked floats shown as the numbers they were.
std::string shown_exact(const nlohmann::json& j);

}  // namespace ropecheck

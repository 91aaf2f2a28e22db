// File: json_fields.h
// Reading JSON documents field by field, with one error shape for every file format of ropecheck
// (counterexamples, kernel counterexamples, spectra: spectrum/spectrum_json.h, Monte Carlo params,
// the proofs' ledger): InputError(<the field's name>, <what is accepted>, <what was given>).
//
// A field's name is the document's origin (a file name, or "" for a document without one) and the
// JSON path inside it: "cx.json: head.query[3]". JsonPlace builds such names; a reader handed a
// value by its name alone (e.g. "cx.json: spectrum") continues it with that string: its members are
// "<name>.<key>". What was given is shown as compact JSON, cut to 60 characters (shown()).
// Unknown keys are refused wherever a format says so: a typo must not silently leave a field at its
// default.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace ropecheck {

class JsonPlace {
 public:
  // A value inside a document, named in full ("cx.json: head.spectrum"). Implicit, so that a
  // reader handed a name can pass it on as is.
  JsonPlace(std::string name) : name_(std::move(name)) {}
  JsonPlace(const char* name) : name_(name) {}
  // The document read from `origin` (a file name; "" for none).
  static JsonPlace document(const std::string& origin);

  // "<origin>: key" for a member of the document ("key" without an origin), else "<name>.key".
  JsonPlace member(const std::string& key) const;
  // "<name>[i]".
  JsonPlace item(std::size_t i) const;
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  bool document_ = false;
};

// Returns: j as compact JSON, cut to 57 characters + "..." when longer than 60.
std::string shown(const nlohmann::json& j);
// Returns: the keys joined by ", " (in set order).
std::string key_list(const std::set<std::string>& keys);

// Throws InputError(place.member(k), "absent: not a field of <owner>, whose fields are <allowed>",
// "an unknown key") for the first key k of `object` outside `allowed`; owner "" means place's name.
void refuse_unknown_keys(const nlohmann::json& object, const JsonPlace& place, const std::set<std::string>& allowed,
                         const std::string& owner = "");
// Throws InputError(place, "an object with keys among <allowed>", shown(j)) unless j is an object,
// then as refuse_unknown_keys.
void require_object(const nlohmann::json& j, const JsonPlace& place, const std::set<std::string>& allowed);
// Returns: object[key]. Throws InputError(place.member(key), accepted + " (a required field)", "")
// when object has no such key. Preconditions: object is an object.
const nlohmann::json& required(const nlohmann::json& object, const JsonPlace& place, const std::string& key, const std::string& accepted);

// Each returns j's value or throws InputError(place, accepted, shown(j)):
// a JSON string;
std::string string_value(const nlohmann::json& j, const JsonPlace& place, const std::string& accepted);
// a JSON integer in the long long range (3.0 or "3" are refused rather than guessed at);
long long integer_value(const nlohmann::json& j, const JsonPlace& place, const std::string& accepted);
// a JSON integer in [0, 2^64);
std::uint64_t unsigned_value(const nlohmann::json& j, const JsonPlace& place, const std::string& accepted);
// a JSON number (integer or float), as the binary64 the parser made of it;
double number_value(const nlohmann::json& j, const JsonPlace& place, const std::string& accepted);
// an exact decimal: a string (returned as written, not checked here) or a JSON integer (its digits).
// A JSON float is refused, accepted + " (as a string, so that it stays exact)": the parser has
// already rounded it to binary64, which is not the decimal it shows.
std::string decimal_value(const nlohmann::json& j, const JsonPlace& place, const std::string& accepted);
// a finite binary64 given as a JSON number, a decimal string or a C99 hex-float string
// (io/number_text.h: correctly rounded, exact for the shortest_text of a value); accepted is
// "a finite number (JSON number, decimal or hex-float string)". A JSON integer -0 reads as +0 (JSON
// parsers keep no sign for integer zero): "-0" or -0.0 is the negative zero.
double finite_double_value(const nlohmann::json& j, const JsonPlace& place);

}  // namespace ropecheck

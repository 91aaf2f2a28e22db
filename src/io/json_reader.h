// File: json_reader.h
// The one entry through which ropecheck reads JSON: every document (config.json files, the zoo's
// and the C ABI's config text, spectrum and counterexample files, Monte Carlo partials, run.json
// for --compare, the proofs' ledger) is parsed by parse_json() under limits checked before and
// while parsing, so no document, however deep, long or large, reaches a recursion or an allocation
// it chose:
//  - its size, before a byte is parsed (a file's size before it is read);
//  - the nesting depth of arrays and objects (the top level is depth 1), as the parser enters them:
//    nlohmann's parser is iterative, but copying, printing and destroying a DOM recurse, and a
//    config.json nested 300000 deep overflowed the stack;
//  - the items of one array or object, as they are added.
// Each format states its limits beside its reader (e.g. kConfigJsonLimits in spectrum/hf_config.h),
// from the largest document of that format the project accepts; kJsonLimits is the default.
//
// Errors: InputError(<the file or origin>, "a readable JSON file", reason) for malformed or
// truncated JSON (with the byte offset), a number beyond binary64 and a key given twice in one
// object (nlohmann would silently keep the last); InputError(<origin>, limits.describe(), what was
// found) past a limit. Never another exception for any input text.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ropecheck {

struct JsonLimits {
  std::size_t max_bytes;  // the document's size in bytes
  std::size_t max_depth;  // arrays and objects nested in one another; 1 = a flat array or object
  std::size_t max_items;  // elements of one array, members of one object

  // Returns: "a JSON document of at most <max_bytes> bytes, nesting depth at most <max_depth> and at
  // most <max_items> items per array or object": the accepted range of an error past a limit.
  std::string describe() const;
};

// The default: 64 MiB, depth 64, 2^20 items (every counterexample, spectrum and ledger file).
inline constexpr JsonLimits kJsonLimits{std::size_t{64} << 20, 64, std::size_t{1} << 20};

// How JSON floats are held: as the binary64 the parser rounds them to, or (exact) as their lexemes,
// marked (io/json_exact.h), for the decimals exact arithmetic needs.
enum class JsonNumbers { binary64, exact };

// Returns: the document in `text`; `origin` names it in errors (a file name, "config_json", ...).
nlohmann::json parse_json(std::string_view text, const std::string& origin, const JsonLimits& limits = kJsonLimits,
                          JsonNumbers numbers = JsonNumbers::binary64);
// Returns: parse_json of the file at `path` (its name the origin). Also throws InputError(path, "a
// readable JSON file", reason) for a missing or unreadable file or a directory.
nlohmann::json read_json_file(const std::string& path, const JsonLimits& limits = kJsonLimits,
                              JsonNumbers numbers = JsonNumbers::binary64);
// Returns: the bytes of the file at `path`, refused as read_json_file refuses it, and refused
// beyond limits.max_bytes before they are read (a stream without a size: as soon as it passes).
std::string read_json_text(const std::string& path, const JsonLimits& limits = kJsonLimits);

}  // namespace ropecheck

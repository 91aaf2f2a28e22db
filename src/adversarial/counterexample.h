// File: counterexample.h
// Counterexample files: JSON with exact values, content-addressed, written atomically, never
// overwritten.
//
// Format "ropecheck-counterexample/1" (channel and band targets; kernel files: kernel_fuzz.h):
//   {"format": "ropecheck-counterexample/1", "target": "channel" | "band",
//    "head": {"spectrum": {"config": "gemma-7b"} | {"dim": 256, "theta": "10000",
//                          "variant": "rope|nope|p-rope|reversed|partial", "fraction": "0.75",
//                          "scaling": "none|linear:F|llama3", "config": optional base},
//             "query": [...], "target": [...], "distractors": [[...], ...], "bos": [...] (optional),
//             "notion": "attention" | "argmax", "epsilon": "0.1", "break_at": "0.5"},
//    "sequence": {"length": N, "fill": "d0", "tokens": [[position, "target"], [0, "bos"], ...]},
//    "swaps": [[a, b], ...],
//    "found": {... informational: context, distances, alpha estimates, seed, config, candidate,
//              search statistics; replay never trusts it ...}}
// Vector components: a JSON number, a decimal string or a C99 hex-float string ("0x1.8p+1"); all
// are read as the binary64 value they denote (decimal strings correctly rounded, std::from_chars). Written
// as the shortest decimal string that reads back to the same binary64 (std::to_chars), so a file
// round-trips exactly. Unknown keys are rejected (a typo must not silently change a head), except
// inside "found". Optional: "bos", and "notion", "epsilon", "break_at" (defaults attention, "0.1",
// "0.5"), and "found"; every other field is required. Spectrum "fraction" is required with, and
// only allowed with, p-rope, reversed and partial; theta and fraction are decimal strings (or JSON
// integers), never JSON floats. A JSON integer component -0 reads as +0 (JSON parsers keep no sign
// for integer zero): write "-0" or -0.0 for the negative zero.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "adversarial/sequence.h"

namespace ropecheck::adversarial {

inline constexpr const char* kCounterexampleFormat = "ropecheck-counterexample/1";

struct Counterexample {
  std::string target = "channel";  // "channel" or "band"
  Head head;
  Sequence before;
  std::vector<Swap> swaps;
  nlohmann::json found = nlohmann::json::object();  // informational
};

// Serialisation. The *_from_json functions throw InputError whose input is `where` + the field
// path (e.g. "cx.json: head.query[3]") and whose reason says what is accepted: a missing field,
// a wrong type, a non-finite or unparsable number, a vector of the wrong length, an unknown key,
// a bad spectrum (via resolve()), and everything validate() checks.
nlohmann::json head_to_json(const Head& head);
Head head_from_json(const nlohmann::json& j, const std::string& where);
nlohmann::json sequence_to_json(const Sequence& s);
Sequence sequence_from_json(const nlohmann::json& j, const Head& head, const std::string& where);
nlohmann::json to_json(const Counterexample& c);
Counterexample counterexample_from_json(const nlohmann::json& j, const std::string& where);

// Returns: the spectrum object every counterexample format uses ("spectrum" above; kernel files
// too): the request, and the spectrum it resolves to. Throws InputError naming `where` + the field
// ("<where>.dim", "<where>.fraction") for a wrong type, an unknown key, a fraction without a
// variant that takes one (or missing with one), and anything resolve() refuses.
SpectrumRequest spectrum_request_from_json(const nlohmann::json& j, const std::string& where);
Spectrum spectrum_from_json(const nlohmann::json& j, const std::string& where);

// Returns: the binary64 a component names (number, decimal string or hex-float string).
// Throws InputError(where, "a finite number (JSON number, decimal or hex-float string)", text).
double component_from_json(const nlohmann::json& j, const std::string& where);
// Returns: the shortest decimal string that reads back as exactly x.
std::string component_text(double x);

// Returns: the parsed JSON of a file. Throws InputError(path, "a readable JSON file", reason)
// for a missing/unreadable file or malformed/truncated JSON (with the parser's byte offset).
nlohmann::json read_json_file(const std::string& path);

// The bytes a counterexample file holds: j.dump(2) + "\n" (nlohmann sorts object keys, so equal
// documents give equal bytes).
std::string canonical_text(const nlohmann::json& j);

struct StoredFile {
  std::string path;     // DIR/<target>/<sha256 of canonical_text>.json
  bool created = false; // false: a file with that name (hence that content) was already there
};
// Writes DIR/<target>/<sha256>.json atomically (temporary + link, so an existing file is never
// replaced, even by a concurrent writer), creating DIR/<target> if needed. Throws InputError(
// "--out", "a writable directory", reason) when it cannot; no temporary is left behind.
StoredFile store_counterexample(const std::string& out_dir, const std::string& target, const nlohmann::json& doc);

}  // namespace ropecheck::adversarial

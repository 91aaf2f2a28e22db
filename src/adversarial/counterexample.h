// File: counterexample.h
// Counterexample files: JSON with exact values, content-addressed, written atomically, never
// overwritten.
//
// Format "ropecheck-counterexample/1" (channel and band targets; kernel files: kernel_fuzz.h):
//   {"format": "ropecheck-counterexample/1", "target": "channel" | "band",
//    "head": {"spectrum": SPECTRUM (spectrum/spectrum_json.h: {"config": "gemma-7b"}, or its
//                          explicit fields; written in full, with "config" when the head has one),
//             "query": [...], "target": [...], "distractors": [[...], ...], "bos": [...] (optional),
//             "notion": "attention" | "argmax", "epsilon": "0.1", "break_at": "0.5"},
//    "sequence": {"length": N, "fill": "d0", "tokens": [[position, "target"], [0, "bos"], ...]},
//    "swaps": [[a, b], ...],
//    "found": {... informational: context, distances, alpha estimates, seed, config, candidate,
//              search statistics; replay never trusts it ...}}
// Vector components: a JSON number, a decimal string or a C99 hex-float string ("0x1.8p+1"); all
// are read as the binary64 value they denote (io/json_fields.h's finite_double_value). Written as
// the shortest decimal string that reads back to the same binary64 (io/number_text.h's
// shortest_text), so a file round-trips exactly. Unknown keys are rejected (a typo must not
// silently change a head), except inside "found". Optional: "bos", and "notion", "epsilon",
// "break_at" (defaults attention, "0.1", "0.5"), and "found"; every other field is required.
// Files are stored by io/content_store.h: canonical bytes named by their SHA-256.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "adversarial/sequence.h"
#include "io/content_store.h"
#include "io/number_text.h"

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
// a bad spectrum (spectrum_json.h), and everything validate() checks.
nlohmann::json head_to_json(const Head& head);
Head head_from_json(const nlohmann::json& j, const std::string& where);
nlohmann::json sequence_to_json(const Sequence& s);
Sequence sequence_from_json(const nlohmann::json& j, const Head& head, const std::string& where);
nlohmann::json to_json(const Counterexample& c);
Counterexample counterexample_from_json(const nlohmann::json& j, const std::string& where);

// Writes `doc` to OUT/<target>/<sha256>.json with io/content_store.h's store_by_content. Throws
// InputError("target", "channel, band or kernel", target) for another target (it names a
// directory), and InputError("--out", "a writable directory", reason) when the store cannot write.
StoredFile store_counterexample(const std::string& out_dir, const std::string& target, const nlohmann::json& doc);

}  // namespace ropecheck::adversarial

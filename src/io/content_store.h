// File: content_store.h
// A content-addressed file store: a JSON document is written once, in canonical bytes, under the
// SHA-256 of those bytes, atomically and never overwritten (io/atomic_write.h's atomic_create).
// Equal documents give equal bytes and so one file; a name states the content it must hold.
// Counterexample files (adversarial/counterexample.h) are stored so.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace ropecheck {

// Returns: the canonical bytes of a document: j.dump(2) + "\n" (nlohmann sorts object keys, so
// equal documents give equal bytes).
std::string canonical_text(const nlohmann::json& j);

struct StoredFile {
  std::string path;      // DIR/<sha256 of canonical_text>.json
  bool created = false;  // false: a file with that name (hence that content) was already there
};

// Writes DIR/<sha256 of canonical_text(doc)>.json unless a file with that name exists (which is
// left untouched, even by a concurrent writer), creating DIR and its parents if needed. Throws
// InputError(input, "a writable directory", reason) when DIR cannot be created or written, or the
// name is taken by something other than a regular file; no temporary is left behind.
StoredFile store_by_content(const std::string& dir, const nlohmann::json& doc, const std::string& input);

}  // namespace ropecheck

// File: atomic_write.h
// Writes a file so that readers see either the old content or the whole new content, never a
// half-written file: write to a temporary in the same directory, flush, then rename over the target
// (atomic_write), or link it to the target only if no file has that name (atomic_create).
#pragma once

#include <string>

namespace ropecheck {

// Writes `content` to `path` atomically. Throws InputError naming `input` when the directory cannot
// be written (bad user-supplied path), leaving no temporary behind.
void atomic_write(const std::string& path, const std::string& content, const std::string& input = "output file");

// Creates `path` holding `content` unless a file with that name already exists, which is never
// replaced or touched, even by a concurrent writer: the content goes to a fresh temporary in the
// same directory (unique name, O_EXCL), is fsync'ed, and is published with link(2), which fails
// with EEXIST instead of replacing. The temporary is unlinked in every case, so readers see no file
// or the whole file. Returns: true when this call created the file, false when `path` already was a
// regular file (its content is not compared: callers name files by a hash of their content).
// Throws InputError(input, "a writable directory", reason) when the directory does not exist or
// cannot be written, or `path` exists and is not a regular file; no temporary is left behind.
bool atomic_create(const std::string& path, const std::string& content, const std::string& input = "output file");

// Throws InputError naming `input` unless `path` names a file in an existing, writable directory.
// Called before long computations, so a bad output path fails at once, not after the work.
void check_writable_target(const std::string& path, const std::string& input);

}  // namespace ropecheck

// File: atomic_write.h
// Writes a file so that readers see either the old content or the whole new content, never a
// half-written file: write to a temporary in the same directory, flush, then rename over the target.
#pragma once

#include <string>

namespace ropecheck {

// Writes `content` to `path` atomically. Throws InputError naming `input` when the directory cannot
// be written (bad user-supplied path), leaving no temporary behind.
void atomic_write(const std::string& path, const std::string& content, const std::string& input = "output file");

// Throws InputError naming `input` unless `path` names a file in an existing, writable directory.
// Called before long computations, so a bad output path fails at once, not after the work.
void check_writable_target(const std::string& path, const std::string& input);

}  // namespace ropecheck

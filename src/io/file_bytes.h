// File: file_bytes.h
// A whole file read into memory, the one helper for it (inputs, committed results, artifacts).
#pragma once

#include <string>

namespace ropecheck {

// Returns: the bytes of `path`. Throws InputError(input, accepted, path) when it cannot be opened,
// and with "<path>: read error" when reading fails part-way (`accepted`: e.g. "a readable .npy file").
std::string read_file_bytes(const std::string& path, const std::string& input, const std::string& accepted = "a readable file");

}  // namespace ropecheck

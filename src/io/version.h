// File: version.h
// ropecheck's version, written once (here): CMakeLists.txt reads it for project(VERSION), the
// Python wheel's metadata (src/python/wheel_backend.py) and the extension's __version__ come from
// it, and every JSON file's "tool" field and `ropecheck --version` print kToolName.
#pragma once

#define ROPECHECK_VERSION "0.1.0"

namespace ropecheck {

inline constexpr const char* kVersion = ROPECHECK_VERSION;
inline constexpr const char* kToolName = "ropecheck " ROPECHECK_VERSION;

}  // namespace ropecheck

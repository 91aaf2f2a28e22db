// File: run_info.h
// What produced a report, for run.json's "source" and "environment": a reviewer re-running the
// report needs the commit, the build and the machine to tell whether a difference is theirs.
//
// Everything here is read at run time (git, /proc/cpuinfo, /etc/os-release, dpkg-query) so the
// values describe the binary and machine actually used; a value that cannot be read is the string
// "unknown" (never an exception), so the report still runs in a tarball without git or on a
// non-Debian system.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ropecheck::report {

// Returns: {"commit": 40-hex or "unknown", "dirty": bool or "unknown" (tracked files modified;
// untracked files such as new reports do not count), "source_dir", "build_type", "compiler",
// "compiler_version", "cxx_flags" (the flags this translation unit was built with, as CMake
// passed them), "fast_math": false, "fp_contract": "off", "sanitizers": "" or "address,undefined"}.
nlohmann::json source_info();

// The Debian packages ropecheck builds and runs with (scripts/setup's list).
const std::vector<std::string>& dependency_packages();

// Returns: {"os": PRETTY_NAME, "kernel": uname release, "packages": {name: version or "not
// installed"}, "libraries": arithmetic_environment() plus {"rapidcheck": the Debian version},
// "cpu": {"model", "logical_cpus", "flags": [the SIMD flags that matter: sse4_2 avx avx2 fma
// avx512f avx512bw avx512dq avx512vl avx512_bf16]}, "kernel_paths": {"available": [...],
// "default": path name}, "gnuplot": version or "not found"}.
nlohmann::json machine_environment();

}  // namespace ropecheck::report

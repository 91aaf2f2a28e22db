// File: path.h
// Which instruction-set path runs a SIMD routine (the RoPE kernel, kernel/apply_rope.h; the normal
// sampler, random/normal_sampler.h). Every path of a routine computes bit-identical results (the
// scalar path fixes the semantics; the SIMD paths are its twins, tested against it on every input
// the tests generate); a path only changes speed. Detection is CPUID plus the OS's XCR0 state
// (cpu/x86.cpp); a build for another architecture (ROPECHECK_X86 off, cmake/Architecture.cmake)
// has the scalar paths only, and there available_paths() is {scalar}.
//
// kPaths is the one list of paths: names, parsing, ROPECHECK_KERNEL, the tests' loops over every
// path, counterexample files and the report all iterate it. A new path is an entry here, its probe
// (cpu/x86.cpp, and its case in path.cpp's runs()), and its own twins (CONTRIBUTING.md, "A new
// SIMD path or architecture").
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ropecheck::cpu {

enum class Path { scalar, avx2, avx512, avx512_bf16 };

struct PathInfo {
  Path value;
  std::string_view name;   // ROPECHECK_KERNEL's spelling, and every file's
  std::string_view needs;  // what the CPU (and the OS's XCR0) must provide
};

// Ordered from the most portable to the widest: the default is the last one the CPU runs.
inline constexpr PathInfo kPaths[] = {
    {Path::scalar, "scalar", "nothing: portable C++, the reference semantics"},
    {Path::avx2, "avx2", "AVX2 + FMA + F16C"},
    {Path::avx512, "avx512", "AVX-512 F/BW/DQ/VL + FMA; bf16 conversions by integer rounding"},
    {Path::avx512_bf16, "avx512-bf16",
     "as avx512, plus AVX-512 BF16 (VCVTNEPS2BF16 for f32 -> bf16; its flush-to-zero of subnormals is patched so results match scalar)"},
};

// Returns: the path's name ("scalar", "avx2", "avx512", "avx512-bf16").
std::string path_name(Path p);

// Returns: every path in kPaths order.
std::vector<Path> all_paths();

// Returns: the paths this CPU (CPUID plus the OS's XCR0 state) can run, scalar first, best last.
std::vector<Path> available_paths();

// Returns: the path named by the environment variable ROPECHECK_KERNEL when it is set (one of
// kPaths' names), else the best available path.
// Throws InputError naming ROPECHECK_KERNEL when it names an unknown path or one this CPU lacks.
Path default_path();

// Throws InputError(input, "a path this CPU runs", path_name(path)) unless this CPU runs `path`.
void require_available(Path path, const std::string& input);

// Returns: `name` parsed. Throws InputError(input, ...) for an unknown or unavailable path.
Path parse_path(const std::string& name, const std::string& input);

// Returns: the path `name` names, whether or not this CPU runs it (a file written on another
// machine). Throws InputError(input, "scalar, avx2, avx512 or avx512-bf16", name) for an unknown
// name.
Path parse_any_path(const std::string& name, const std::string& input);

}  // namespace ropecheck::cpu

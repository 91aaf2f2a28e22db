// File: path.h
// Which instruction-set path runs a SIMD routine (the RoPE kernel, kernel/apply_rope.h; the normal
// sampler, random/normal_sampler.h). Every path of a routine computes bit-identical results (the
// scalar path fixes the semantics; the SIMD paths are its twins, tested against it on every input
// the tests generate); a path only changes speed. Detection is CPUID plus the OS's XCR0 state.
#pragma once

#include <string>
#include <vector>

namespace ropecheck::cpu {

// scalar      portable C++, the reference semantics.
// avx2        AVX2 + FMA.
// avx512      AVX-512 F/BW/DQ/VL + FMA; bf16 conversions by integer rounding.
// avx512-bf16 as avx512, plus the AVX-512 BF16 conversion instruction (VCVTNEPS2BF16) for
//             f32 -> bf16; its flush-to-zero of subnormals is patched so results match scalar.
enum class Path { scalar, avx2, avx512, avx512_bf16 };

// Returns: "scalar", "avx2", "avx512", "avx512-bf16".
std::string path_name(Path p);

// Returns: the paths this CPU (CPUID plus the OS's XCR0 state) can run, scalar first, best last.
std::vector<Path> available_paths();

// Returns: the path named by the environment variable ROPECHECK_KERNEL when it is set
// (scalar|avx2|avx512|avx512-bf16), else the best available path.
// Throws InputError naming ROPECHECK_KERNEL when it names an unknown path or one this CPU lacks.
Path default_path();

// Throws InputError(input, "a path this CPU runs", path_name(path)) unless this CPU runs `path`.
void require_available(Path path, const std::string& input);

// Returns: `name` parsed. Throws InputError(input, ...) for an unknown or unavailable path.
Path parse_path(const std::string& name, const std::string& input);

}  // namespace ropecheck::cpu

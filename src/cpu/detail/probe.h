// File: cpu/detail/probe.h
// The one seam between cpu/path.cpp and the architecture: what the CPU under this process can run,
// read once. cpu/x86.cpp reads it off CPUID and XCR0 (built when ROPECHECK_X86 is on,
// cmake/Architecture.cmake); cpu/portable.cpp, everywhere else, says "nothing but scalar".
#pragma once

namespace ropecheck::cpu::detail {

struct CpuFeatures {
  bool avx2 = false;         // AVX2 + FMA + F16C, with the OS saving YMM state
  bool avx512 = false;       // avx2 plus AVX-512 F/BW/DQ/VL, with the OS saving ZMM and opmask state
  bool avx512_bf16 = false;  // avx512 plus AVX-512 BF16
};

// Returns: the features of this CPU (and its OS), probed on each call: cache the result.
CpuFeatures probe();

}  // namespace ropecheck::cpu::detail

// File: float_environment.h
// Runs code under the default floating-point environment (round to nearest even, no
// flush-to-zero, no denormals-are-zero, exceptions masked) whatever the caller set: a host that
// enabled FTZ/DAZ (as some BLAS and audio libraries do) would otherwise flush subnormal inputs and
// outputs, and a caller's fesetround would change every rounding, breaking the kernel's
// bit-for-bit contract (kernel/apply_rope.h). The destructor restores the caller's environment,
// its exception flags included (flags raised inside are dropped).
// One implementation per architecture: cpu/x86.cpp (MXCSR, which also governs the SIMD
// registers), cpu/portable.cpp (<cfenv>: FE_DFL_ENV, which on AArch64 clears FPCR.FZ and the
// rounding mode).
#pragma once

namespace ropecheck::cpu {

class DefaultFloatEnvironment {
 public:
  DefaultFloatEnvironment();
  ~DefaultFloatEnvironment();
  DefaultFloatEnvironment(const DefaultFloatEnvironment&) = delete;
  DefaultFloatEnvironment& operator=(const DefaultFloatEnvironment&) = delete;

 private:
  // The caller's state: MXCSR on x86, a whole fenv_t elsewhere (glibc's is at most 32 bytes on
  // every architecture Debian ships; float_environment's implementations static_assert it).
  alignas(16) unsigned char saved_[32];
};

}  // namespace ropecheck::cpu

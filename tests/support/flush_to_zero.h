// File: tests/support/flush_to_zero.h
// The caller's side of cpu/float_environment.h in tests: a scope that switches the FPU to
// flush-to-zero (x86: MXCSR FTZ + DAZ; AArch64: FPCR.FZ, which flushes inputs and outputs alike)
// and round toward +infinity, as a hostile host library might, and reads the control word back.
// On an architecture without a known flush-to-zero control, `supported` is false.
#pragma once

#include <cfenv>

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace ropecheck::test {

class HostileFloatEnvironment {
 public:
#if defined(__x86_64__)
  static constexpr bool supported = true;
  static unsigned control() { return _mm_getcsr() & 0xFFC0u; }  // masks, rounding, FTZ, DAZ
  HostileFloatEnvironment() : saved_(_mm_getcsr()) { _mm_setcsr((saved_ | 0x8040u | 0x4000u) & ~0x2000u); }
  ~HostileFloatEnvironment() { _mm_setcsr(saved_); }
#elif defined(__aarch64__)
  static constexpr bool supported = true;
  static unsigned control() { return __builtin_aarch64_get_fpcr(); }
  HostileFloatEnvironment() : saved_(__builtin_aarch64_get_fpcr()) {
    __builtin_aarch64_set_fpcr((saved_ | (1u << 24)) & ~(3u << 22));  // FZ, and RMode = 0b00 first
    std::fesetround(FE_UPWARD);
  }
  ~HostileFloatEnvironment() { __builtin_aarch64_set_fpcr(saved_); }
#else
  static constexpr bool supported = false;
  static unsigned control() { return 0; }
  HostileFloatEnvironment() : saved_(0) {}
#endif
  HostileFloatEnvironment(const HostileFloatEnvironment&) = delete;
  HostileFloatEnvironment& operator=(const HostileFloatEnvironment&) = delete;

 private:
  unsigned saved_;
};

}  // namespace ropecheck::test

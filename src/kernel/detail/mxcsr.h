// File: detail/mxcsr.h
// Runs the kernel under the default MXCSR (round to nearest, no flush-to-zero, no
// denormals-are-zero, exceptions masked) whatever the caller set: a host that enabled FTZ/DAZ (as
// some BLAS and audio libraries do) would otherwise flush subnormal inputs and outputs, and a
// caller's fesetround would change every rounding, breaking the bit-for-bit contract.
#pragma once

#include <xmmintrin.h>

namespace ropecheck::kernel::detail {

class MxcsrGuard {
 public:
  MxcsrGuard() : saved_(_mm_getcsr()) { _mm_setcsr(kDefault | (saved_ & kStickyFlags)); }
  ~MxcsrGuard() { _mm_setcsr(saved_); }
  MxcsrGuard(const MxcsrGuard&) = delete;
  MxcsrGuard& operator=(const MxcsrGuard&) = delete;

 private:
  static constexpr unsigned kDefault = 0x1F80;    // all exceptions masked, RNE, FTZ = DAZ = 0
  static constexpr unsigned kStickyFlags = 0x3F;  // keep the caller's exception flags
  unsigned saved_;
};

}  // namespace ropecheck::kernel::detail

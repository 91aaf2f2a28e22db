// File: precision.h
// The working precision of ropecheck's MPFR reals and MPFI intervals.
//
// Boost 1.74 keeps one process-wide default precision per backend, counted in decimal digits and
// turned into bits by digits10_2_2 (roughly d*1000/301 + 2). A request of B bits therefore gets the
// smallest digit count whose conversion is >= B bits: 256 bits asks for 77 digits and gets 257 bits.
// Every certificate states the bits it really ran with (effective_precision_bits), never the request.
#pragma once

#include <mutex>

namespace ropecheck {

inline constexpr unsigned kDefaultPrecisionBits = 256;
inline constexpr unsigned kMinPrecisionBits = 53;     // below double, the certificates say nothing new
inline constexpr unsigned kMaxPrecisionBits = 65536;  // sanity bound for the --precision flag

// Returns: the mantissa bits an mpfr_float or mpfi_float created under a request of `bits` gets.
// Preconditions: bits >= 2.
unsigned effective_precision_bits(unsigned bits);

// Sets the default precision of mpfr_float and mpfi_float for its lifetime and restores the previous
// one on destruction. Values created before keep their own precision. Not thread-safe: Boost 1.74's
// default precision is a process-wide static.
class ScopedPrecision {
 public:
  explicit ScopedPrecision(unsigned bits);
  ~ScopedPrecision();
  ScopedPrecision(const ScopedPrecision&) = delete;
  ScopedPrecision& operator=(const ScopedPrecision&) = delete;

  // Returns: the effective bits (see effective_precision_bits).
  unsigned bits() const { return bits_; }

 private:
  unsigned saved_mpfr_digits_;
  unsigned saved_mpfi_digits_;
  unsigned bits_;
};

// The lock for a ScopedPrecision on a thread that may run beside others doing the same (the
// kernel's plans and slow path under a threaded caller): hold it for the ScopedPrecision's life.
std::mutex& default_precision_mutex();

}  // namespace ropecheck

// File: random_floats.h
// Inputs the kernel tests draw from a counter-based generator (random/counter_rng.h): the same
// value for the same (generator, index) on every machine.
//   moderate_float(rng, i)  a binary32 of random sign and mantissa with magnitude in [2^-8, 2^8)
// Include as "tests/support/random_floats.h" (the project root is on every test target's include path).
#pragma once

#include <bit>
#include <cstdint>

#include "random/counter_rng.h"

namespace ropecheck {

inline float moderate_float(const CounterRng& rng, std::uint64_t i) {
  const std::uint64_t b = rng.bits(i);
  const std::uint32_t exponent = 119 + static_cast<std::uint32_t>((b >> 8) % 16);  // 2^-8 .. 2^7
  return std::bit_cast<float>((static_cast<std::uint32_t>(b >> 32) & 0x807FFFFFu) | (exponent << 23));
}

}  // namespace ropecheck

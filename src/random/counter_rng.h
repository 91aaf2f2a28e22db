// File: counter_rng.h
// Counter-based random bits (Random123 Philox4x32-10): the bits at (seed, stream, index) are a pure
// function of those three numbers, so any sample can be regenerated alone, in any order, on any
// thread or machine, with the same bytes. No std:: distribution is involved anywhere.
#pragma once

#include <Random123/philox.h>

#include <cstdint>

namespace ropecheck {

class CounterRng {
 public:
  CounterRng(std::uint64_t seed, std::uint64_t stream) : seed_(seed), stream_(stream) {}

  // Returns: 64 random bits for counter `index`.
  std::uint64_t bits(std::uint64_t index) const {
    r123::Philox4x32 gen;
    r123::Philox4x32::key_type key = {{static_cast<std::uint32_t>(seed_), static_cast<std::uint32_t>(seed_ >> 32)}};
    r123::Philox4x32::ctr_type ctr = {{static_cast<std::uint32_t>(stream_), static_cast<std::uint32_t>(stream_ >> 32),
                                       static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32)}};
    const r123::Philox4x32::ctr_type out = gen(ctr, key);
    return (static_cast<std::uint64_t>(out[1]) << 32) | out[0];
  }

  // Returns: a uniform value in [-1, 1) that is a multiple of 2^-52, hence exactly representable in
  // double and in every MPFR/MPFI precision >= 53: the same number in every working type.
  double uniform_dyadic(std::uint64_t index) const {
    const std::uint64_t m = bits(index) >> 11;  // 53 bits
    return static_cast<double>(static_cast<std::int64_t>(m) - (std::int64_t{1} << 52)) * 0x1p-52;
  }

  std::uint64_t seed() const { return seed_; }
  std::uint64_t stream() const { return stream_; }

 private:
  std::uint64_t seed_;
  std::uint64_t stream_;
};

}  // namespace ropecheck

// File: streams.h
// Which Philox stream every random number of a Monte Carlo run comes from. The stream of a sample
// is a function of (seed, series, distance, trial) only -- never of the thread, the shard or the
// order of work -- which is what makes runs bit-identical at any scale.
//
//   key     = seed (64 bits)
//   stream  = code << 56 | distance << 32 | trial      (code: 8 bits, distance < 2^24, trial < 2^32)
//   index   = the deviate number inside the stream: q = deviates [0, d), k = deviates [d, 2d).
// Per-trial draws that belong to no distance use two reserved distance values: kPositionsDistance
// (fig8's position sample) and kChoiceDistance (the distance a trial contributes to the two-sample
// test). The series code is experiment * 16 + series index, so series and experiments never share
// a stream.
#pragma once

#include <cstdint>

namespace ropecheck::montecarlo {

inline constexpr std::int64_t kMaxDistance = (std::int64_t{1} << 24) - 3;
inline constexpr std::int64_t kMaxTrials = std::int64_t{1} << 32;
inline constexpr std::uint64_t kPositionsDistance = (std::uint64_t{1} << 24) - 2;
inline constexpr std::uint64_t kChoiceDistance = (std::uint64_t{1} << 24) - 1;

inline std::uint64_t stream_id(std::uint32_t code, std::uint64_t distance, std::uint64_t trial) {
  return (static_cast<std::uint64_t>(code & 0xFF) << 56) | (distance << 32) | trial;
}

}  // namespace ropecheck::montecarlo

// File: random_positions.h
// Random RoPE's positions (Ruoss et al. 2023): n distinct positions drawn uniformly without
// replacement from [0, L) and sorted, reproducibly from Philox counters.
#pragma once

#include <cstdint>
#include <vector>

namespace ropecheck::montecarlo {

// Returns: p_0 < p_1 < ... < p_{n-1}, a uniformly random n-subset of {0, ..., L-1} (every subset
// exactly equally likely: selection sampling, Knuth's Algorithm S, with unbiased integer draws from
// CounterRng(seed, stream) bits at indices first_index, first_index + 1, ...; Lemire's
// multiply-and-reject, so no modulo bias). L == n returns 0..n-1 and draws nothing.
// Cost O(L). Preconditions: 1 <= n <= L <= 2^40 (InputError naming "n"/"L" otherwise).
std::vector<std::int64_t> random_positions(std::int64_t n, std::int64_t L, std::uint64_t seed, std::uint64_t stream,
                                           std::uint64_t first_index);

}  // namespace ropecheck::montecarlo

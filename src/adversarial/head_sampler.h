// File: head_sampler.h
// The fuzzer's heads: candidate i of a run is a pure function of (seed, i) through CounterRng, so a
// run's files depend only on the seed and how many candidates the budget allowed.
//
//   channel  one rotating pair among the 8 lowest-frequency pairs of the base spectrum carries the
//            channel; query, target and distractor 2-vectors have components drawn from simple
//            decimals (k/4, |k| <= 64), powers of two, and the Appendix E.1 values, with norms from
//            1 to ~1e3; every other chunk is zero.
//   band     2..8 of the 8 lowest pairs carry the channel, each its own random 2-vectors.
// With a base head (--config names a preset or a head file), candidate 0 is the base itself and
// later candidates perturb it (components rescaled by 2^k, |k| <= 2, signs flipped, chunks
// dropped): the search stays around the question asked (a p-RoPE base stays in its removed band).
// Without one, every candidate is a fresh random head on the base spectrum.
#pragma once

#include <cstdint>
#include <optional>

#include "adversarial/head.h"

namespace ropecheck::adversarial {

enum class HeadFamily { channel, band };

// Returns: candidate `index` of the family on `base_spectrum` (or around `base`). Every head has
// one distractor type and no BOS, notion attention, epsilon 0.1, break_at 1/2; validate() passes.
Head sample_head(HeadFamily family, const SpectrumRequest& base_spectrum, const std::optional<Head>& base, std::uint64_t seed,
                 std::uint64_t index);

}  // namespace ropecheck::adversarial

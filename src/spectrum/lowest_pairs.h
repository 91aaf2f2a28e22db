// File: lowest_pairs.h
// Which pairs of a spectrum rotate slowest: the band a semantic channel lives in (the adversarial
// band heads, `ropecheck channels`, thm-6.1's slowest pair of a model).
#pragma once

#include <vector>

#include "spectrum/spectrum.h"

namespace ropecheck {

// Returns: the 0-based indices of the k lowest-frequency rotating pairs of a spectrum (ordered by
// the frequencies' enclosures, not by index or exponent), listed in ascending index order. Sets
// its own precision (128 bits) for the enclosures. Throws InputError unless
// 0 <= k <= spectrum.rotated_pairs().
std::vector<int> lowest_pairs(const Spectrum& spectrum, int k);

}  // namespace ropecheck

// File: profile_tensor.h
// Ordinary RoPE inputs spread over the position decades, for the error profile of another
// implementation (ropecheck.torch.profile): the audit's per-decade table (audit.h) of its output
// on them is the figure a kernel engineer quotes. fuzz_tensor.h gives the adversarial inputs;
// these are the typical ones, queries and keys at their usual scale.
//
// Decade d, for d = 0 .. position_decade(max_position) (ulp_error.h), takes `tokens` positions
// uniform in [10^d, 10^(d+1) - 1] clipped to max_position (decade 0: [0, 9]), in increasing
// decades. Every element of every head is a standard normal deviate (random/normal_sampler.h)
// rounded to the format (numeric/small_floats.h: bits_of_value): no specials; float32 and bfloat16
// values are normal (the smallest |deviate| is far above 2^-126), while in float16 a deviate below
// 2^-14 in magnitude (a share of about 2^-14 x 0.8 = 5e-5) rounds to a subnormal or zero. A pure
// function of its arguments: the same seed gives the same bytes on every machine.
#pragma once

#include <cstdint>
#include <vector>

#include "kernel/rope_plan.h"
#include "numeric/dtype.h"

namespace ropecheck::accuracy {

struct ProfileTensor {
  std::vector<std::int64_t> positions;  // one per token: decades x tokens
  std::vector<std::uint32_t> bits;      // [tokens][heads][dim]: the format's bits in the low bits
};

// Throws InputError: tokens or heads outside [1, 2^16], max_position outside [0, 2^62], more than
// 2^28 elements in all; std::invalid_argument for format f64.
ProfileTensor profile_tensor(const kernel::RopePlan& plan, Dtype format, std::uint64_t seed, std::int64_t tokens, std::int64_t heads,
                             std::int64_t max_position);

}  // namespace ropecheck::accuracy

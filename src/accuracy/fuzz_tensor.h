// File: fuzz_tensor.h
// Adversarial RoPE inputs as whole tensors, for testing another implementation (the Python
// module's ropecheck.testing.check_rope): the kernel fuzz's candidates (kernel_candidates.h) laid
// into [tokens][heads][head_dim] rows of one plan and one format.
//
// Token t takes the position of candidate block t (edge positions such as 2^24 +- 1, 2^31, 2^40,
// near-returns of the plan's own pairs, log-uniform magnitudes, bit patterns), kept only when it
// lies in [min_position, max_position]: blocks outside are skipped, and after 64 skips in a row a
// position uniform in the range is drawn instead, so a narrow range still fills. Every rotary pair
// (identity pairs of p-RoPE included) of every head takes one candidate's inputs in the format:
// bit patterns, moderate values, near-cancellation pairs for the token's exact angle, edge values,
// one or two signed zeros, infinities and NaNs. Pass-through elements take candidate inputs too.
// A pure function of its arguments: the same seed gives the same bytes on every machine.
#pragma once

#include <cstdint>
#include <vector>

#include "kernel/rope_plan.h"
#include "numeric/dtype.h"

namespace ropecheck::accuracy {

struct FuzzTensor {
  std::vector<std::int64_t> positions;  // one per token
  std::vector<std::uint32_t> bits;      // [tokens][heads][dim]: float bits, or bf16 bits in the low 16
};

// Throws InputError: tokens or heads outside [1, 2^20], tokens * heads * dim above 2^28 elements,
// min_position > max_position; std::invalid_argument for format f64.
FuzzTensor fuzz_tensor(const kernel::RopePlan& plan, Dtype format, std::uint64_t seed, std::int64_t tokens, std::int64_t heads,
                       std::int64_t min_position, std::int64_t max_position);

}  // namespace ropecheck::accuracy

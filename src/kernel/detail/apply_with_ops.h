// File: detail/apply_with_ops.h
// apply_rope (kernel/apply_rope.h) with the given path table in place of ops_for(options.path):
// the same validation, split over threads, sin/cos rows and rotation loop. The seam through which
// bench/kernel_bench.cpp times the floor tables (detail/floor.h) in the production loop; the
// library itself always passes ops_for(options.path). options.path must still be a path this CPU
// runs (checked), and `ops` must be that path's table or its floor.
#pragma once

#include <cstdint>
#include <span>

#include "kernel/apply_rope.h"
#include "kernel/detail/ops.h"

namespace ropecheck::kernel::detail {

// E: float, Bf16Bits or F16Bits, as apply_rope's overloads.
template <typename E>
void apply_rope_with_ops(const PathOps& ops, const RopePlan& plan, std::span<const std::int64_t> positions,
                         TensorView<const E> in, TensorView<E> out, const KernelOptions& options);

}  // namespace ropecheck::kernel::detail

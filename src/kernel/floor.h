// File: floor.h
// The kernel's floor, for benchmarks only: apply_rope (apply_rope.h) with the same validation,
// thread split, sin/cos rows and rotation loop, run on the path files compiled a second time with
// every fast rounding test passing unconditionally (detail/floor.h). Each output is RN(y) of the
// fast formula (float32: RN32 of the binary64 y; bfloat16 and float16: RN of the binary32 y), NOT
// correctly rounded, and the accurate path never runs. floor time / apply_rope time on the same
// path is the measured price of correct rounding there (bench/kernel_bench.cpp, rope_floor rows).
//
// Not in libropecheck.so: these functions are defined only in the static library
// ropecheck_kernel_floor (src/CMakeLists.txt: dispatch.cpp compiled with ROPECHECK_KERNEL_FLOOR),
// which only the benchmarks link. Errors as apply_rope's: InputError on bad shapes, threads or a
// path this CPU does not run (options.path).
#pragma once

#include <cstdint>
#include <span>

#include "kernel/apply_rope.h"

namespace ropecheck::kernel {

void apply_rope_floor(const RopePlan& plan, std::span<const std::int64_t> positions, TensorView<const float> in,
                      TensorView<float> out, const KernelOptions& options);
void apply_rope_floor(const RopePlan& plan, std::span<const std::int64_t> positions, TensorView<const Bf16Bits> in,
                      TensorView<Bf16Bits> out, const KernelOptions& options);
void apply_rope_floor(const RopePlan& plan, std::span<const std::int64_t> positions, TensorView<const F16Bits> in,
                      TensorView<F16Bits> out, const KernelOptions& options);

}  // namespace ropecheck::kernel

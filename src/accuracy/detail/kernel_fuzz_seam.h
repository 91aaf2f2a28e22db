// File: detail/kernel_fuzz_seam.h
// The seam through which the kernel fuzz and its replay call the kernel under test, so that a test
// can substitute a deliberately faulty kernel and see the detector fail (tests/accuracy/
// kernel_fuzz_test.cpp, kernel_counterexample_test.cpp). The public functions of kernel_fuzz.h and
// kernel_counterexample.h run production_kernel(); nothing outside tests passes anything else.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "accuracy/kernel_counterexample.h"
#include "accuracy/kernel_fuzz.h"
#include "accuracy/ulp_error.h"
#include "cpu/path.h"
#include "kernel/rope_plan.h"

namespace ropecheck::accuracy::detail {

// Rotates rows [tokens][1][plan.dim()] of `in` into `out` (arrays of kernel dtype f's storage,
// tokens = positions.size()) on `path`, with the semantics of kernel/apply_rope.h.
struct KernelUnderTest {
  std::function<void(const kernel::RopePlan&, std::span<const std::int64_t>, Dtype f, const void* in, void* out, cpu::Path)> rows;
};

// Returns: kernel::apply_rope, one thread.
KernelUnderTest production_kernel();

// Returns: kut's output for rows [positions.size()][plan.dim()] of bit patterns `in` of format f
// (16-bit formats: the low 16 bits) on `path`, as bit patterns.
std::vector<std::uint32_t> run_rows(const KernelUnderTest& kut, const kernel::RopePlan& plan, std::span<const std::int64_t> positions,
                                    const std::vector<std::uint32_t>& in, Dtype f, cpu::Path path);

// fuzz_kernel (kernel_fuzz.h) and replay_kernel_counterexample (kernel_counterexample.h) with
// `kernel` in place of the production kernel.
KernelFuzzResult fuzz_kernel_with(const KernelFuzzOptions& options, std::ostream& log, const KernelUnderTest& kernel);
KernelReplay replay_kernel_with(const nlohmann::json& doc, const std::string& where, const KernelUnderTest& kernel);

}  // namespace ropecheck::accuracy::detail

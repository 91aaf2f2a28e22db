// File: kernel_check.h
// `ropecheck kernel-check`: a seeded sweep of this kernel (every path this CPU runs) and of the two
// baselines (baselines.h) against the MPFR reference, with the metric of ulp_error.h ("ulp floored
// at 2^-24 x pair norm").
//
// Samples. Positions: `samples` positions log-uniform in [0, max_position] (a bit length L uniform
// in [0, bitlen(P)], then p uniform among the L-bit integers <= P), plus the edge positions 0, 1,
// 2^24, 2^31, 2^40 - 1 and P itself (those <= P). Every position carries kHeads head vectors of
// different kinds: head 0 random bit patterns (every finite value of the format, subnormals and the
// largest included), head 1 moderate values (exponents in [-8, 8]: activation-like), head 2 pairs
// near cancellation ((x_a, x_b) = RN(s sin t, s cos t) or RN(s cos t, -s sin t) for the exact angle
// t of that position and pair, so that one output nearly cancels), head 3 edge values (signed
// zeros, the smallest and largest subnormals, the smallest normal, +-1, the largest finite
// values, mixed with random patterns). A few further tokens hold infinities and NaN: a separate
// "specials" check of IEEE semantics (rope_reference.h), outside the ulp statistics. Everything is
// a pure function of (seed, index) through CounterRng: the same seed gives the same bytes for any
// thread count.
//
// Figures. The sample maxima are lower bounds (sampled) for an implementation's true maximum; the
// kernel's proved upper bound (apply_rope.h: correctly rounded, 0.5 ulp) is printed beside. The
// check fails (passed = false) when a kernel path has ANY decided output that is not the correctly
// rounded value (every kind, every kernel dtype: the kernel's contract, no ulp floor), an output its
// accurate path could not resolve, a special that differs from IEEE semantics, or when the kernel
// paths do not agree bit for bit. Near-cancellation outputs' share is also shown apart, and each
// kernel row shows the share of outputs that took the accurate path (KernelStats). Baselines are
// measured, never judged. The plan may be any layer type's (geometry, attention factor): the
// reference applies the same factor, pass-through elements are checked bit for bit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "accuracy/audit.h"
#include "kernel/apply_rope.h"
#include "kernel/rope_plan.h"
#include "accuracy/ulp_error.h"

namespace ropecheck::accuracy {

inline constexpr int kKernelCheckHeads = 4;
inline constexpr double kKernelMaxUlps = 0.5;  // a correctly rounded output's bound (in any metric of ulp_error.h)

// The --dtype values kernel-check accepts (a kernel dtype, or all of them).
inline constexpr const char* kKernelCheckDtypeChoices = "f32, bf16, f16 or all";

struct KernelCheckOptions {
  std::vector<Dtype> formats{kKernelDtypes.begin(), kKernelDtypes.end()};
  std::int64_t samples = 4096;                           // random positions
  std::int64_t max_position = (std::int64_t{1} << 40) - 1;  // P >= 0
  std::uint64_t seed = 1;
  int threads = 1;
  unsigned precision_bits = kReferencePrecisionBits;
};

// The input kinds, one per head of every sampled position.
enum class InputKind { bit_patterns = 0, moderate = 1, near_cancellation = 2, edge_values = 3 };
std::string kind_name(InputKind k);

struct ImplementationCheck {
  std::string name;  // "kernel scalar", "kernel avx2", ..., "baseline f32-angle", "baseline f64-angle"
  bool kernel = false;
  Dtype format = Dtype::f32;
  ErrorAccumulator errors{Dtype::f32};       // every finite-input output
  ErrorAccumulator typical{Dtype::f32};      // bit patterns, moderate and edge values (the 99.99% share)
  ErrorAccumulator cancellation{Dtype::f32}; // near-cancellation pairs alone
  ErrorAccumulator moderate{Dtype::f32};     // moderate values alone (the per-decade table)
  kernel::KernelStats stats;  // kernel rows: what the rounding test sent to the accurate path
  bool passed = true;   // kernel rows: the accuracy goal holds on the sample (baselines: always true)
  std::string verdict;  // "ok", the failed criteria, or "baseline (not judged)"
};

struct KernelCheckResult {
  std::string spectrum;
  kernel::Layout layout = kernel::Layout::interleaved;
  KernelCheckOptions options;
  std::vector<std::int64_t> edge_positions;
  std::int64_t tokens = 0, special_tokens = 0;
  std::vector<ImplementationCheck> rows;
  std::vector<std::string> path_agreement;  // one line per format
  std::vector<bool> format_paths_agree;      // parallel to path_agreement: that format's paths agree
  bool paths_agree = true;
  bool passed = true;
  double seconds = 0;
};

// Runs the sweep. Throws InputError for samples < 1, max_position < 0, threads < 1, an empty
// formats list or f64 in it (kKernelCheckDtypeChoices).
KernelCheckResult run_kernel_check(const kernel::RopePlan& plan, const KernelCheckOptions& options);

// The head dimension swept when no spectrum is given (theta 10000, interleaved): the common
// head_dim. `ropecheck kernel-check` and the report's kernel section both default to it.
inline constexpr int kKernelCheckDefaultDim = 128;

// Returns: the text of apply_rope.h's kProvedUlpBoundF32 / kProvedUlpBoundBf16: "0.5 (CR)",
// correctly rounded. Throws std::invalid_argument for f64.
std::string proved_bound_text(Dtype f);

// The report: one row per (implementation, dtype) with samples, max ulp (lower bound, sampled) and
// the proved bound beside it, median ulp, share correctly rounded, max abs error at unit pair norm,
// specials and the verdict; the per-decade table of the max absolute error at unit pair norm on the
// moderate inputs (bit patterns would let a baseline's overflowing float intermediates, inf, hide
// the growth with position); the path agreement; the seed and the time. The JSON carries the
// per-decade table as each row's "moderate_decades" (errors.decades covers every input kind).
std::string format_kernel_check(const KernelCheckResult& result);
nlohmann::json kernel_check_json(const KernelCheckResult& result);

}  // namespace ropecheck::accuracy

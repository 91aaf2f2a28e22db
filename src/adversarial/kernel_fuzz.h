// File: kernel_fuzz.h
// `ropecheck fuzz --target kernel`: the production RoPE kernel (every path this CPU runs) against
// the MPFR reference (rope_reference.h) on adversarial inputs, looking for an output that breaks
// the kernel's proved bound (apply_rope.h: |error| <= 0.5 + 2^-25 ulp f32, 0.5 + 2^-14 ulp bf16,
// in the floored metric of ulp_error.h), a path that disagrees with the scalar twin, or a special
// (inf, NaN, -0) with the wrong IEEE result.
//
// Candidates (pure functions of (seed, index) through CounterRng): positions from bit patterns
// (any int64, weighted to 0, +-1, 2^k +- 1, 2^24, 2^31, 2^40, INT64_MIN/MAX and the near-returns
// 44, 710, 103993, 104348 of g = 1), every pair of the spectrum, inputs from bit patterns and edge
// values (signed zeros, subnormals, the largest finite, +-1) and pairs built near cancellation for
// the exact angle, in f32 and bf16, interleaved and half layouts.
// kernel_candidates.h draws them: blocks of one position times every pair; one block in eight runs
// the configuration as p-rope 0.75, whose identity pairs must copy -0 and NaN payloads bit for bit.
// A run keeps at most 64 documents (the first in candidate order); its log counts every violation.
// Tests substitute a faulty kernel through detail/kernel_fuzz_seam.h.
//
// Counterexample file (stored with counterexample.h's store_counterexample under "kernel/"):
//   {"format": "ropecheck-kernel-counterexample/1", "target": "kernel",
//    "spectrum": SPECTRUM (spectrum/spectrum_json.h; written as the request: {"config": NAME}, or
//                with "variant": "p-rope", "fraction": "0.75"), "layout": "interleaved|half", "dtype": "f32|bf16",
//    "path": "scalar|avx2|avx512|avx512-bf16", "position": "<int64 as decimal string>",
//    "pair": k, "input": ["0x...", "0x..."] (the pair's bit patterns, hex),
//    "claim": "bound" | "paths" | "special",
//    "found": {"got": [...], "reference": [...], "ulp": ..., "bound": ...}}
// Replay recomputes the kernel output on the recorded path (or the scalar twin, saying so, when
// this CPU lacks the path) and the MPFR reference from the recorded inputs.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "adversarial/certify.h"

namespace ropecheck::adversarial {

struct KernelFuzzOptions {
  std::string config = "gemma-7b";   // a spectrum configuration (spectrum/config.h)
  double budget_seconds = 10;
  std::uint64_t seed = 1;
  long long max_candidates = 0;      // 0: until the budget ends
};

struct KernelFuzzResult {
  long long tried = 0;               // candidate pairs (position, pair, input, dtype, layout)
  long long outputs_checked = 0;     // output components compared with the reference
  long long undecided = 0;           // reference rounding test undecided (never counted as errors)
  double max_ulp_f32 = 0, max_ulp_bf16 = 0;  // sampled maxima: LOWER bounds of the true maxima
  std::string worst_f32, worst_bf16;         // the worst element, "x=%a ref=%a got=%a" style
  std::vector<nlohmann::json> counterexamples;  // documents in the format above
  double seconds = 0;
};

// Throws InputError for budget <= 0 or an unknown config.
KernelFuzzResult fuzz_kernel(const KernelFuzzOptions& options, std::ostream& log);

// Re-checks a kernel counterexample document. Throws InputError("<where>: <field>", ...) if
// malformed (io/json_fields.h: a missing or unknown field, a wrong type; the format is checked first).
// still_breaks when the recomputed kernel output still violates the recorded claim.
struct KernelReplay {
  ReplayVerdict verdict = ReplayVerdict::inconclusive;
  std::string detail;
};
KernelReplay replay_kernel_counterexample(const nlohmann::json& doc, const std::string& where);

}  // namespace ropecheck::adversarial

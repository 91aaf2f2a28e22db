// File: kernel_counterexample.h
// The kernel fuzz's counterexample file (kernel_fuzz.h finds them): the document, and its replay.
//
// Document (stored content-addressed under "kernel/", adversarial/counterexample.h's
// store_counterexample over io/content_store.h):
//   {"format": "ropecheck-kernel-counterexample/1", "target": "kernel",
//    "spectrum": SPECTRUM (spectrum/spectrum_json.h; written as the request: {"config": NAME}, or
//                with "variant": "p-rope", "fraction": "0.75"), "layout": "interleaved|half", "dtype": "f32|bf16",
//    "path": "scalar|avx2|avx512|avx512-bf16", "position": "<int64 as decimal string>",
//    "pair": k, "input": ["0x...", "0x..."] (the pair's bit patterns, hex),
//    "claim": "bound" | "paths" | "special",
//    "found": {"got": [...], "reference": [...], "ulp": ..., "bound": ...}}
// "found" is informational (what the search saw); replay reads everything else, and refuses a
// malformed document with InputError("<where>: <field>", ...) (io/json_fields.h: a missing or
// unknown field, a wrong type; the format is checked first).
// Claims: "bound" a finite pair beyond apply_rope.h's proved ulp bound; "paths" a SIMD path whose
// output differs from the scalar twin's; "special" an identity pair, a non-finite input or two
// signed zeros whose output is not the IEEE result (kernel_output_check.h).
//
// Replay recomputes the kernel output on the recorded path (or the scalar twin, saying so, when
// this CPU lacks the path) and the MPFR reference from the recorded inputs, and checks the claim
// with kernel_output_check.h: three-valued, an undecided figure or sign is inconclusive.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "accuracy/ulp_error.h"
#include "certificate/replay_verdict.h"
#include "cpu/path.h"
#include "kernel/rope_plan.h"

namespace ropecheck::accuracy {

inline constexpr const char* kKernelCounterexampleFormat = "ropecheck-kernel-counterexample/1";

enum class KernelClaim { bound, paths, special };

// Returns: "bound", "paths" or "special".
std::string kernel_claim_name(KernelClaim c);

// Returns: the document above for pair k of a plan of `spectrum` (its JSON form) at position p,
// with the pair's input bit patterns `in` and the informational `found`.
nlohmann::json kernel_counterexample_json(const nlohmann::json& spectrum, kernel::Layout layout, Dtype f, cpu::Path path, std::int64_t p, int k,
                                          const std::uint32_t in[2], KernelClaim claim, nlohmann::json found);

// Returns: the two bit patterns as hex text (bits_hex of kernel_output_check.h), a JSON array.
nlohmann::json hex_pair(const std::uint32_t bits[2], Dtype f);

// Returns: a JSON number, or "inf", "-inf", "nan" (JSON has neither).
nlohmann::json json_number(double v);

// Re-checks a kernel counterexample document. Throws InputError(where + ": " + field, ...) if
// malformed (unknown key, wrong format or target, bad position, pair outside the plan's block,
// bad bit pattern, a claim that does not fit the input). still_breaks when the recomputed kernel
// output still violates the recorded claim.
struct KernelReplay {
  ReplayVerdict verdict = ReplayVerdict::inconclusive;
  std::string detail;
};
KernelReplay replay_kernel_counterexample(const nlohmann::json& doc, const std::string& where);

}  // namespace ropecheck::accuracy

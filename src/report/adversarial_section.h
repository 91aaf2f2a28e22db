// File: adversarial_section.h
// The report's adversarial part: a short, deterministic search for token swaps that break
// low-frequency semantic channels (adversarial/fuzz.h), and the kernel fuzz.
//
// Determinism: every search is bounded by a candidate count (FuzzOptions::max_candidates), never
// by the clock (the wall-clock budget is set far above what the count needs and the section
// reports "missing" if it was ever the limit), so the same seed finds the same counterexamples.
// Searches (quick; smoke runs the first two with 1 candidate, the p-RoPE controls with 4 and the
// kernel with 512; full raises the counts):
//   channel gemma-7b-apostrophe        1 candidate (the paper's head: certified shortest 11865)
//   band    gemma-7b-band8             2 candidates (the band head, then one perturbation of it:
//                                      each perturbed candidate is shrunk, ~3.5 s; full runs 8)
//   band    llama-3.1-8b-band8         1 candidate (breaks at 3,644,840 tokens, ~1 s; row "adv-band-llama")
//   channel gemma-7b-apostrophe-p-rope-0.75 (and band8 p-RoPE): the control, certified position-free
//   channel gemma-7b (fresh random heads)  N candidates
//   kernel                              N candidates (every path against MPFR)
// Counterexamples are written under counterexamples/<target>/<sha256>.json (replay them with
// `ropecheck replay`), and listed in report.md with context, alpha before/after, and the replay
// command.
#pragma once

#include "report/section.h"

namespace ropecheck::report {

// Returns: key "adversarial"; summary rows "adv-apostrophe" (expected counterexample: the paper's
// thm-6.1 says the channel breaks), "adv-band-gemma", "adv-p-rope-control" (expected holds: no
// break), "adv-random-channels", "adv-kernel" (expected holds: no violation); counterexample files
// as artifacts (deterministic).
SectionResult adversarial_section(const Context& context);

}  // namespace ropecheck::report

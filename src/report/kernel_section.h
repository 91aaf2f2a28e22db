// File: kernel_section.h
// The report's kernel part: the accuracy sweep (accuracy/kernel_check.h on every path this CPU runs
// and the two naive baselines, f32 and bf16) and a speed measurement.
//
// Accuracy (deterministic, seeded): the kernel-check table per (implementation, dtype): outputs,
// max ulp (a LOWER bound: sampled) beside the proved UPPER bound of apply_rope.h, median, share
// correctly rounded, specials, verdict; and the figure "kernel-error-vs-position": the max absolute
// error at unit pair norm per position decade (moderate inputs) for the kernel and the naive
// baselines, f32 and bf16 (log-log), whose growth with position is the naive strategies' failure.
// Sizes: smoke 64 positions, quick 4096 (kernel-check's default), full 65536; max position
// 2^40 - 1; seed = Context seed.
//
// Speed (timings only): apply_rope on a dense [tokens][heads][128] tensor (tokens x heads chosen
// so the tensor is ~32 MiB, larger than the caches: memory speed is the goal) for every available
// path and both baselines, f32 and bf16, against memcpy of the same number of bytes between the
// baseline's own buffers in the same run (the baseline of "memory speed": the ratio is what a
// noisy shared machine can still compare), timed by accuracy/memory_speed.h with the pair order
// drawn from the Context seed; medians of k repetitions; GB/s counted as bytes read + written.
// Written to timings and to the markdown table, never to data.
#pragma once

#include "report/section.h"

namespace ropecheck::report {

// Returns: key "kernel"; summary rows "kernel-accuracy-f32", "kernel-accuracy-bf16" (verdict
// "holds" when every kernel path meets kernel-check's goal on the sample, expected "holds");
// artifacts "evidence/kernel/kernel-check.json" (deterministic: without its time and thread-count
// fields, which go to timings) and "evidence/kernel/speed.csv" (deterministic = false); figures
// "kernel-error-vs-position" (f32 and bf16 in one plot); as_paper_states = kernel-check passed.
// Throws InputError for context.threads < 1.
SectionResult kernel_section(const Context& context);

}  // namespace ropecheck::report

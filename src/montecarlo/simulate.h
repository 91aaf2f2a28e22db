// File: simulate.h
// Runs the samples of a Monte Carlo experiment: every trial of the shard, split over threads
// (each thread accumulates its own exact sums, merged at the end: the result has the same bits
// for every thread count).
#pragma once

#include <vector>

#include "montecarlo/partial.h"

namespace ropecheck::montecarlo {

struct RunOptions {
  int threads = 1;            // >= 1
  bool progress = true;       // show a progress line when stderr is a terminal
};

// Throws InputError for parameters outside their ranges (trials, distances, threads, shard, the
// experiment's own constraints); simulate() calls it first. Callers that print a header before the
// long run call it themselves, so bad input still gives exactly one line.
void validate(const Params& params, const Shard& shard, const RunOptions& options);

// Returns: the accumulated shard. Throws InputError for parameters outside their ranges (trials,
// distances, threads, the experiment's own constraints).
Partial simulate(const Params& params, const Shard& shard, const RunOptions& options);

// The activation of one (query, key) pair at distance r (f64 arithmetic) is (1/d) a(r), a(r) by
// attention/activation.h's lagged_activation from the pair products u, w and the cos/sin row of r:
// a fixed summation order, so the same bits on every machine.

// Returns: f(t) for t = 0..rows-1, the activation of q = k = (1, ..., 1) at distance t computed as
// above (u_k = 2, w_k = 0) from the kernel's cos/sin table (error <= 2^-50 per term): the
// fig2a curve (2/d) sum_k cos(t g_k), and for Gaussian q, k the correlation of the activations at
// two distances t apart. Bit-identical to what fig2a's simulation accumulates.
std::vector<double> all_ones_curve(const Spectrum& spectrum, std::int64_t rows, int threads = 1);

}  // namespace ropecheck::montecarlo

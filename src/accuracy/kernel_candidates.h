// File: kernel_candidates.h
// The candidates of the kernel fuzz (kernel_fuzz.h): adversarial (position, pair, input pair, dtype,
// layout) tuples, each a pure function of (seed, index) through CounterRng.
//
// Blocks. Candidates come in blocks of `block_pairs` consecutive indices that share one position
// (and one spectrum subject), candidate b * block_pairs + k carrying block pair k: every pair of the
// spectrum is tried at every position drawn, and the MPFR reference's cos and sin of a position,
// the costly part (one 200-bit sin_cos per pair), are computed once per block.
//
// Positions (per block): any int64 bit pattern; log-uniform magnitudes with a random sign; edge
// values (0, +-1, +-(2^k + {-1, 0, 1}), 2^24, 2^31, 2^40, INT64_MIN, INT64_MAX and the near-returns
// +-44, +-710, +-103993, +-104348 of g = 1); and near-returns of the spectrum's own pairs: the
// convergent denominators of each pair's turn rate (near_returns below), +-1, where p g_k comes
// closest to a multiple of 2pi, pi or pi/2 for its size (cos or sin nearly 0: the hardest angles
// for a range reduction).
//
// Inputs (per candidate, its own dtype and layout): finite bit patterns; moderate values
// (exponents in [-8, 8]); pairs near cancellation for the exact angle ((s sin t, s cos t) or
// (s cos t, -s sin t) rounded, so that one output nearly cancels); edge values of the format
// (sample_values.h) mixed with bit patterns; one zero component (the output is one rounded
// product); two signed zeros (the sign of a zero output); and non-finite inputs (infinities,
// quiet, signalling and negative NaNs, beside finite values).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kernel/rope_plan.h"
#include "accuracy/ulp_error.h"

namespace ropecheck::accuracy {

enum class KernelInputKind { bit_patterns, moderate, near_cancellation, edge_values, axis, zeros, specials };
// Returns: "bit patterns", "moderate", "near cancellation", "edge values", "axis", "zeros", "specials".
std::string input_kind_name(KernelInputKind kind);

// Returns: G_k = round(2^128 g_k / 2pi) of block pair k (rope_plan.h's turns per token).
unsigned __int128 plan_turns(const kernel::RopePlan& plan, int k);

// Returns: the denominators q in [1, 2^63) of the continued-fraction convergents of frac(m G / 2^128)
// for m = 1, 2, 4 (turn rates of a full, half and quarter turn), ascending, without repeats; empty
// for G = 0 (an identity pair). Exact integer arithmetic (Euclid on 128-bit integers).
std::vector<std::int64_t> near_returns(unsigned __int128 turns);

struct KernelBlock {
  std::int64_t position = 0;
  int subject = 0;         // which spectrum the block runs (0: the configuration as named)
  std::string origin;      // how the position was drawn: "bit pattern", "log-uniform", "edge", "near-return of pair k"
};

struct KernelCandidate {
  long long index = 0;
  std::int64_t position = 0;
  int subject = 0;
  int pair = 0;  // block pair
  Dtype format = Dtype::f32;
  kernel::Layout layout = kernel::Layout::interleaved;
  KernelInputKind kind = KernelInputKind::bit_patterns;
  std::uint32_t input[2] = {0, 0};  // (x_a, x_b) bit patterns: float bits, or bf16 bits in the low 16
};

// cos and sin (rounded to double) of the block's angle p g_k for block pair k: only the
// near-cancellation kind reads them.
using CosSin = std::function<void(int k, double& c, double& s)>;

class KernelCandidates {
 public:
  // block_pairs >= 1; near_returns: one list per block pair (near_returns()); subjects >= 1.
  KernelCandidates(std::uint64_t seed, int block_pairs, std::vector<std::vector<std::int64_t>> near_returns, int subjects);

  int block_size() const { return block_pairs_; }
  long long block_of(long long index) const { return index / block_pairs_; }
  KernelBlock block(long long b) const;
  // Returns: candidate `index` (its block's position and subject included). format: the dtype to
  // draw its inputs in, instead of the one the seed picks (a caller testing one format).
  KernelCandidate candidate(long long index, const CosSin& cos_sin, std::optional<Dtype> format = std::nullopt) const;

 private:
  std::uint64_t seed_;
  int block_pairs_;
  std::vector<std::vector<std::int64_t>> near_returns_;
  std::vector<int> pairs_with_returns_;
  int subjects_;
};

}  // namespace ropecheck::accuracy

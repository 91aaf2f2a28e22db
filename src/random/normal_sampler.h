// File: normal_sampler.h
// Standard normal deviates from Philox counters, bit-identical on every path, thread count and
// machine: the deviate at (seed, stream, index) is a pure function of those three numbers.
//
// Method: Box-Muller (not a ziggurat: no rejection, so deviate i never depends on how many draws
// another deviate needed, and the SIMD twins need no compaction). Philox4x32-10 block j of
// (seed, stream) -- key {seed lo, seed hi}, counter {stream lo, stream hi, j lo, j hi}, exactly
// CounterRng's key and counter -- gives four 32-bit words w0..w3 and two deviates:
//     a = ((w1 << 32) | w0) >> 11,  b = ((w3 << 32) | w2) >> 11      (53 bits each)
//     u = (a + 1) * 2^-53 in (0, 1]  (exact),  t = b * 2^-53 in [0, 1)  (exact, a turn)
//     rho = sqrt(-2 log u),  deviate 2j = rho cos(2 pi t),  deviate 2j+1 = rho sin(2 pi t).
// log, cos and sin are ropecheck's own (libm's differ between versions and machines): fdlibm-style
// polynomials evaluated with +, -, *, / and sqrt only, no FMA, so that every IEEE binary64 machine
// and every SIMD twin computes the same bits. cos/sin of 2 pi t take the octant from t's top bits
// exactly (t is a turn), so only |x| <= pi/4 reaches the polynomial.
// Accuracy: each deviate is within a few ulps of the exact Box-Muller transform of (u, t); the
// largest |deviate| is sqrt(2 * 53 ln 2) = 8.57 (u = 2^-53). The distribution error is dominated by
// the 2^-53 grid of u and t, far below anything a Monte Carlo run can resolve.
#pragma once

#include <cstdint>
#include <span>

#include "cpu/path.h"

namespace ropecheck {

// Returns: deviate `index` of (seed, stream), computed by the scalar path.
double normal_deviate(std::uint64_t seed, std::uint64_t stream, std::uint64_t index);

// Fills out[i] = deviate (first + i) of (seed, stream) for i < out.size(), on `path`. Every path
// returns the same bits as normal_deviate (tests/random/normal_sampler_test.cpp loops over all).
// `first` may be odd. Throws nothing; out may be empty.
void normal_fill(std::uint64_t seed, std::uint64_t stream, std::uint64_t first, std::span<double> out,
                 cpu::Path path = cpu::default_path());

}  // namespace ropecheck

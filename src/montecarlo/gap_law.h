// File: gap_law.h
// The law of Random RoPE's position gaps, and the expected all-ones activation it implies.
//
// For a uniformly random n-subset p_0 < ... < p_{n-1} of {0, ..., L-1}, the n + 1 spacings
// (p_0 + 1, p_1 - p_0, ..., L - p_{n-1}) are exchangeable, so the gap D_r = p_{j+r} - p_j
// (0 <= j, j + r <= n - 1) has the law of p_{r-1} + 1, the r-th smallest element of an n-subset of
// {1..L}: P(D_r = t) = C(t-1, r-1) C(L-t, n-r) / C(L, n), t = r..L-n+r (r >= 1; D_0 = 0).
// With the all-ones curve f(t) = (1/P) sum_k cos(t g_k) (fig-2a), E f(D_r) = sum_t P(D_r = t) f(t):
// the mean of Figure 8(a)'s Random RoPE curve at index distance r. For L == n, D_r = r and the
// expectation is f(r) itself.
// It is also, for Gaussian q and k, the correlation between the activations at index distances r
// and r + s of one trial: E[a(r) a(r+s)] / E[a(r)^2] = E f(D_s) (statistics/inference.h uses it).
#pragma once

#include <cstdint>
#include <vector>

namespace ropecheck::montecarlo {

// Returns: P(D_r = t) for t = 0..L (zero outside r..L-n+r), computed in binary64 from the ratio
// recurrence P(t+1)/P(t) = t (L - t - n + r) / ((t - r + 1)(L - t)) with an explicit power-of-two
// exponent carried beside the mantissa (so no underflow, even where P(D_r = r) ~ (n/L)^r < 2^-1074),
// using only +, -, *, / (the same bits on every machine). Relative error of each probability below
// 4 (L + r) 2^-53 (each recurrence step adds at most 4 roundings), plus an absolute 2^-1075 where
// the probability is below 2^-1022 (the one final rounding into binary64's subnormal range, or to
// 0); the probabilities sum to 1 within that bound (tested). Preconditions: 1 <= n <= L <= 2^40,
// 0 <= r <= n - 1 (InputError naming "n", "L" or "r" otherwise).
std::vector<double> gap_probabilities(std::int64_t n, std::int64_t L, std::int64_t r);

// Returns: E f(D_r) for r = 0..n-1, given f(t) for t = 0..L (f.size() == L + 1; f[0] = 1 for the
// all-ones curve). Compensated (Neumaier) sum in index order of P(D_r = t) f(t); terms with P below
// 2^-80 max_t P are skipped (their total is below 2^-80 L, stated as part of the error:
// |error| <= 4(L + n) 2^-53 max|f| + L 2^-80 max|f|). Preconditions as gap_probabilities; f.size() == L + 1 (InputError
// naming "f" otherwise).
std::vector<double> expected_gap_curve(std::int64_t n, std::int64_t L, const std::vector<double>& f);

}  // namespace ropecheck::montecarlo

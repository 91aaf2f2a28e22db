// File: random_positions.cpp
// Selection sampling (Knuth, TAOCP vol. 2, 3.4.2, Algorithm S): walk t = 0..L-1 and keep t with
// probability (n - m) / (L - t), m = positions kept so far. Each of the C(L, n) subsets then comes
// out with probability exactly 1 / C(L, n) -- provided the coin is exact, which is why the coin is
// an integer draw U uniform on [0, L - t) (Lemire's multiply-and-reject, random/uniform_below.h),
// keeping t iff U < n - m, rather than a floating-point uniform compared with a ratio.
//
// Random-word consumption: the k-th 64-bit word used is CounterRng(seed, stream).bits(first_index
// + k), every candidate of every draw counted, rejected ones included. A draw is made only when
// the decision is not already forced, i.e. when 0 < n - m < L - t: once n positions are kept the
// walk stops, and once the remaining candidates are exactly as many as the positions still needed
// they are all kept without drawing (so L == n draws nothing).
#include "montecarlo/random_positions.h"

#include <string>

#include "io/input_error.h"
#include "random/counter_rng.h"
#include "random/uniform_below.h"

namespace ropecheck::montecarlo {

std::vector<std::int64_t> random_positions(std::int64_t n, std::int64_t L, std::uint64_t seed, std::uint64_t stream,
                                           std::uint64_t first_index) {
  constexpr std::int64_t kMaxL = std::int64_t{1} << 40;
  if (L < 1 || L > kMaxL) throw InputError("L", "an integer in [1, 2^40]", std::to_string(L));
  if (n < 1 || n > L) throw InputError("n", "an integer in [1, L] = [1, " + std::to_string(L) + "]", std::to_string(n));

  const CounterRng rng(seed, stream);
  std::uint64_t index = first_index;
  const auto next_word = [&] { return rng.bits(index++); };

  std::vector<std::int64_t> positions;
  positions.reserve(static_cast<std::size_t>(n));
  std::int64_t t = 0;
  for (; static_cast<std::int64_t>(positions.size()) < n; ++t) {
    const std::int64_t needed = n - static_cast<std::int64_t>(positions.size());
    const std::int64_t remaining = L - t;
    if (needed == remaining) break;
    if (static_cast<std::int64_t>(uniform_below_u64(static_cast<std::uint64_t>(remaining), next_word)) < needed) {
      positions.push_back(t);
    }
  }
  for (; static_cast<std::int64_t>(positions.size()) < n; ++t) positions.push_back(t);
  return positions;
}

}  // namespace ropecheck::montecarlo

#include "accuracy/fuzz_tensor.h"

#include <stdexcept>
#include <string>

#include "accuracy/kernel_candidates.h"
#include "accuracy/rope_reference.h"
#include "io/input_error.h"
#include "random/counter_rng.h"

namespace ropecheck::accuracy {

namespace {

// CounterRng stream of the fallback positions (kernel_candidates.cpp uses 11 and 12).
constexpr std::uint64_t kFallbackStream = 13;
constexpr int kMaxSkips = 64;

// Returns: a position uniform in [lo, hi] (a modulo of 64 random bits: bias below range / 2^64).
std::int64_t uniform_position(const CounterRng& rng, std::uint64_t index, std::int64_t lo, std::int64_t hi) {
  const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
  const std::uint64_t r = rng.bits(index);
  const std::uint64_t offset = span == ~std::uint64_t{0} ? r : r % (span + 1);
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + offset);
}

}  // namespace

FuzzTensor fuzz_tensor(const kernel::RopePlan& plan, Dtype format, std::uint64_t seed, std::int64_t tokens, std::int64_t heads,
                       std::int64_t min_position, std::int64_t max_position) {
  if (format == Dtype::f64) throw std::invalid_argument("fuzz_tensor: format f64 is not a kernel dtype");
  if (tokens < 1 || tokens > (1 << 20)) throw InputError("tokens", "an integer in [1, 2^20]", std::to_string(tokens));
  if (heads < 1 || heads > (1 << 20)) throw InputError("heads", "an integer in [1, 2^20]", std::to_string(heads));
  const int dim = plan.dim();
  if (tokens * heads * dim > (std::int64_t{1} << 28))
    throw InputError("tokens", "at most 2^28 elements in all (tokens x heads x head_dim " + std::to_string(dim) + ")",
                     std::to_string(tokens) + " x " + std::to_string(heads));
  if (min_position > max_position)
    throw InputError("min_position", "at most max_position " + std::to_string(max_position), std::to_string(min_position));
  const int block = plan.block_pairs();
  std::vector<std::vector<std::int64_t>> returns;
  for (int k = 0; k < block; ++k) returns.push_back(plan.identity(k) ? std::vector<std::int64_t>{} : near_returns(plan_turns(plan, k)));
  // One candidate per (head, pair) of a token, plus one for every two pass-through elements: a
  // block of `row` candidates (pair indices taken modulo the plan's block for the cos and sin).
  const int pass_pairs = (dim - 2 * block + 1) / 2;
  const int row = static_cast<int>(heads) * (block + pass_pairs);
  const KernelCandidates gen(seed, row, {}, 1);
  // Positions: from a generator over the plan's own pairs (near-returns included).
  const KernelCandidates positions_gen(seed, std::max(block, 1), returns, 1);
  const CounterRng fallback(seed, kFallbackStream);
  RopeReference ref(plan);
  FuzzTensor out;
  out.positions.reserve(static_cast<std::size_t>(tokens));
  out.bits.assign(static_cast<std::size_t>(tokens * heads * dim), 0);
  long long b = 0;
  for (std::int64_t t = 0; t < tokens; ++t) {
    std::int64_t p = 0;
    int skips = 0;
    for (;; ++b) {
      p = positions_gen.block(b).position;
      if (p >= min_position && p <= max_position) break;
      if (++skips == kMaxSkips) {
        p = uniform_position(fallback, static_cast<std::uint64_t>(b), min_position, max_position);
        break;
      }
    }
    ++b;
    out.positions.push_back(p);
    ref.set_position(p);
    for (std::int64_t h = 0; h < heads; ++h) {
      const auto base = static_cast<std::size_t>((t * heads + h) * dim);
      const long long first = static_cast<long long>(t) * row + static_cast<long long>(h) * (block + pass_pairs);
      for (int k = 0; k < block; ++k) {
        // The candidate's own pair index is its place in the row: the angle is pair k's.
        const KernelCandidate c = gen.candidate(first + k, [&](int, double& co, double& si) { ref.cos_sin_double(k, co, si); }, format);
        out.bits[base + static_cast<std::size_t>(plan.first_element(k))] = c.input[0];
        out.bits[base + static_cast<std::size_t>(plan.second_element(k))] = c.input[1];
      }
      // Pass-through elements, in element order, two per candidate.
      int filled = 0;
      for (int j = 0; j < dim; ++j) {
        if (j >= plan.rotary_offset() && j < plan.rotary_offset() + 2 * block) continue;
        const KernelCandidate c = gen.candidate(first + block + filled / 2, [](int, double& co, double& si) { co = 1, si = 0; }, format);
        out.bits[base + static_cast<std::size_t>(j)] = c.input[filled % 2];
        ++filled;
      }
    }
  }
  return out;
}

}  // namespace ropecheck::accuracy

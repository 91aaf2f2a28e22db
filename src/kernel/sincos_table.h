// File: sincos_table.h
// cos and sin of p * g_k in binary64 for a list of positions and every block pair of a plan,
// shared by every head (and by every tensor a caller applies at the same positions); SinCosPairs
// evaluates chosen pairs at one position with the same bits.
//
// Contract: for every int64 position p and pair k, the unscaled values cos~, sin~ satisfy
//     |cos~ - cos(p g_k)| <= 2^-50   and   |sin~ - sin(p g_k)| <= 2^-50,
// where g_k is the exact real frequency; the rows hold RN(a_d cos~), RN(a_d sin~) with a_d the
// plan's attention factor rounded to double (the plain values when a_d = 1; ops.h bounds the
// scaled error). Identity pairs hold cos = 1, sin = 0 (never used: the kernel copies them). Every
// path computes bit-identical tables.
//
// Error budget (the proof of the 2^-50; tests/kernel/sincos_table_test.cpp measures each term):
//  1. Turns. T = floor(|p| G_k / 2^64) mod 2^64 is exact integer arithmetic (32-bit limbs, seven
//     32x32->64 products); T / 2^64 differs from frac(|p| g_k / 2pi) by less than 2^-64 (the
//     truncation) + |p| 2^-129 (rope_plan.h) <= 2^-64 + 2^-65 turns. For p < 0, T is negated mod 2^64.
//  2. Quadrant. With T' = T + 2^61, q = T' >> 62 and r = (T' mod 2^62) - 2^61, the angle is
//     2pi (q/4 + r/2^64) with |r| <= 2^61, i.e. a reduced turn |r/2^64| <= 1/8 (|x| <= pi/4).
//  3. x = RN(RN(r) * K), K = RN(2pi) * 2^-64 (a power-of-two scaling of RN(2pi), exact): three
//     relative errors of 2^-53 (int64 -> double, RN(2pi), the product), so
//     |x - 2pi r/2^64| <= (pi/4)(3 * 2^-53 + O(2^-106)) < 2^-52.6.
//     Together with 1: the argument error is < 2^-52.6 + 2pi * 1.5 * 2^-64 < 2^-52.5.
//  4. sin x and cos x on |x| <= pi/4 by the fdlibm kernels' minimax polynomials (degree 13 and 14,
//     approximation error < 2^-58), evaluated with FMA Horner: sin = x + (x z) P(z), z = RN(x^2),
//     cos = RN(1 - z/2) + z^2 Q(z). Rounding errors: sin < 2^-53 (last add) + 2^-56 (the rest);
//     cos < 2^-54 (1 - z/2) + 2^-53 (last add) + 2^-55 (the error of z times 1/2) + 2^-56.
//     So each is within 2^-52 of the true function at x, and with 3 (sin and cos are 1-Lipschitz)
//     within 2^-52 + 2^-52.5 < 2^-51.2 of the exact value.
//  5. The quadrant swap and sign changes are exact.
// Total < 2^-51.2 < 2^-50: the contract keeps a factor of about 2 in reserve.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <span>
#include <vector>

#include "cpu/path.h"
#include "kernel/rope_plan.h"

namespace ropecheck::kernel {

inline constexpr double kSinCosErrorBound = 0x1p-50;  // the contract above, as a number

// Fills c[k], s[k] for k in [0, plan.block_pairs()) at position p, on `path`.
void sincos_row(const RopePlan& plan, std::int64_t p, double* c, double* s, cpu::Path path);

namespace detail {
// std::allocator with 64-byte (cache-line) alignment: the kernel's vector loads of a table row
// then never straddle two lines.
template <typename T>
struct CacheLineAllocator {
  using value_type = T;
  CacheLineAllocator() = default;
  template <typename U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{64})); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t{64}); }
  template <typename U>
  bool operator==(const CacheLineAllocator<U>&) const { return true; }
};
}  // namespace detail

class SinCosTable {
 public:
  // Computes the table for `positions` (any int64s, any order, repeats allowed) on `path`, split
  // over `threads` (>= 1) by token: bit-identical for every thread count.
  SinCosTable(const RopePlan& plan, std::span<const std::int64_t> positions, cpu::Path path = cpu::default_path(), int threads = 1);

  const RopePlan& plan() const { return *plan_; }
  std::int64_t tokens() const { return tokens_; }
  std::int64_t position(std::int64_t t) const { return positions_[static_cast<size_t>(t)]; }
  // Row t: block_pairs() values, 64-byte aligned (rows are padded to a multiple of 8 doubles).
  const double* cos_row(std::int64_t t) const { return cos_.data() + t * stride_; }
  const double* sin_row(std::int64_t t) const { return sin_.data() + t * stride_; }

 private:
  const RopePlan* plan_;
  std::int64_t tokens_;
  std::int64_t stride_;  // doubles from one row to the next: block_pairs() rounded up to 8
  std::vector<std::int64_t> positions_;
  std::vector<double, detail::CacheLineAllocator<double>> cos_, sin_;
};

// cos and sin of p * g_k for chosen block pairs of a plan, one position at a time: for a caller
// that needs a few pairs at many positions (the adversarial scan evaluates a head's active pairs
// at every distance) rather than every pair at a list of positions.
//
// Contract: at(p, c, s) writes c[j], s[j] bit-identical to SinCosTable's cos_row(t)[k],
// sin_row(t)[k] for k = pairs[j] and position(t) = p, on every path (the same per-pair
// arithmetic), so the 2^-50 contract above holds; identity pairs give cos = 1, sin = 0. It runs
// under the default floating-point environment (cpu/float_environment.h) whatever the caller set, like the table.
class SinCosPairs {
 public:
  // `pairs`: block-pair indices of `plan`, any order, repeats allowed, possibly empty. The plan's
  // turn limbs of those pairs are copied: the plan need not outlive this object.
  // Throws InputError("pairs", ...) for an index outside [0, plan.block_pairs()), and
  // InputError("kernel path", ...) for a path this CPU does not run.
  SinCosPairs(const RopePlan& plan, std::span<const int> pairs, cpu::Path path = cpu::default_path());

  std::size_t size() const { return pairs_.size(); }
  int pair(std::size_t j) const { return pairs_[j]; }
  cpu::Path path() const { return path_; }
  // Fills c[j], s[j] for j in [0, size()) at position p (any int64); touches nothing when empty.
  void at(std::int64_t p, double* c, double* s) const;

 private:
  std::vector<int> pairs_;
  std::vector<std::uint64_t> limbs_[4];
  double factor_ = 1;
  cpu::Path path_;
};

}  // namespace ropecheck::kernel

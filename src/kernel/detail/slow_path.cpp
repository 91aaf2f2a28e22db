// The accurate path behind every kernel path's rounding test (ops.h, level 3), and the row helpers
// every path shares. Compiled without any -m flag, like scalar.cpp: one implementation for all
// paths. (Levels 2, retry_*, are detail/retry.h: compiled into each path with its own flags.)
#include <bit>
#include <cmath>
#include <cstring>

#include "kernel/detail/ops.h"
#include "kernel/exact_rotation.h"

namespace ropecheck::kernel::detail {
namespace {

template <typename E>
E slow(const SlowPath& slow, int k, E x_a, E x_b, bool second, E fast) {
  const double a = widen(x_a), b = widen(x_b);
  if (!std::isfinite(a) || !std::isfinite(b) || (a == 0 && b == 0)) return fast;
  if (slow.taken != nullptr) ++*slow.taken;
  const ExactRotation::Rounded r = slow.exact->round(dtype_of<E>, k, slow.position, a, b, second);
  if (!r.resolved && slow.unresolved != nullptr) ++*slow.unresolved;
  return narrow_from_double<dtype_of<E>>(r.value);  // exact: r.value is already in E's format
}

}  // namespace

float slow_f32(const SlowPath& s, int k, float x_a, float x_b, bool second, float fast) {
  return slow(s, k, x_a, x_b, second, fast);
}
Bf16Bits slow_16(const SlowPath& s, int k, Bf16Bits x_a, Bf16Bits x_b, bool second, Bf16Bits fast) {
  return slow(s, k, x_a, x_b, second, fast);
}
F16Bits slow_16(const SlowPath& s, int k, F16Bits x_a, F16Bits x_b, bool second, F16Bits fast) {
  return slow(s, k, x_a, x_b, second, fast);
}

template <typename E>
void copy_passthrough_impl(const RowShape& shape, const E* in, E* out) {
  if (in == out) return;
  if (shape.offset > 0) std::memmove(out, in, sizeof(E) * static_cast<size_t>(shape.offset));
  const int end = shape.offset + 2 * shape.block;
  if (shape.dim > end) std::memmove(out + end, in + end, sizeof(E) * static_cast<size_t>(shape.dim - end));
}

void copy_passthrough(const RowShape& shape, const float* in, float* out) { copy_passthrough_impl(shape, in, out); }
void copy_passthrough(const RowShape& shape, const Bf16Bits* in, Bf16Bits* out) { copy_passthrough_impl(shape, in, out); }
void copy_passthrough(const RowShape& shape, const F16Bits* in, F16Bits* out) { copy_passthrough_impl(shape, in, out); }

namespace {
constexpr std::size_t round64(std::size_t n) { return (n + 63) / 64 * 64; }
}  // namespace

namespace {
constexpr std::size_t kGroup = static_cast<std::size_t>(kGroupHeads);
std::size_t table_bytes(std::size_t r) { return round64(8 * 4 * (r + 16)); }
std::size_t list_bytes(std::size_t r) { return round64(4 * kGroup * (r / 4 + 1)); }
}  // namespace

std::size_t Scratch::bytes(int block_pairs) {
  const auto r = static_cast<std::size_t>(block_pairs);
  return table_bytes(r) + 2 * list_bytes(r) + round64(4 * kGroup * 2 * r);
}

Scratch Scratch::carve(void* memory, int block_pairs) {
  const auto r = static_cast<std::size_t>(block_pairs);
  auto* base = static_cast<unsigned char*>(memory);
  Scratch s;
  s.table = reinterpret_cast<double*>(base);
  s.fails = reinterpret_cast<std::uint32_t*>(base + table_bytes(r));
  s.at = reinterpret_cast<std::uint32_t*>(base + table_bytes(r) + list_bytes(r));
  s.copy = base + table_bytes(r) + 2 * list_bytes(r);
  return s;
}

void scale_row(double a, int n, double* c, double* s) {
  if (a == 1.0) return;
  for (int k = 0; k < n; ++k) {
    c[k] = a * c[k];
    s[k] = a * s[k];
  }
}

}  // namespace ropecheck::kernel::detail

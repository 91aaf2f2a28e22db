// The accurate path behind every kernel path's rounding test (ops.h), and the row helpers every
// path shares. Compiled without any -m flag, like scalar.cpp: one implementation for all paths.
#include <cmath>
#include <cstring>

#include "kernel/bf16.h"
#include "kernel/detail/ops.h"
#include "kernel/exact_rotation.h"

namespace ropecheck::kernel::detail {
namespace {

template <typename E, typename Widen, typename Narrow>
E slow(const SlowPath& slow, OutputFormat format, int k, E x_a, E x_b, bool second, E fast, Widen widen, Narrow narrow) {
  const double a = widen(x_a), b = widen(x_b);
  if (!std::isfinite(a) || !std::isfinite(b) || (a == 0 && b == 0)) return fast;
  if (slow.taken != nullptr) ++*slow.taken;
  const ExactRotation::Rounded r = slow.exact->round(format, k, slow.position, a, b, second);
  if (!r.resolved && slow.unresolved != nullptr) ++*slow.unresolved;
  return narrow(r.value);
}

}  // namespace

float slow_f32(const SlowPath& s, int k, float x_a, float x_b, bool second, float fast) {
  return slow<float>(s, OutputFormat::f32, k, x_a, x_b, second, fast, [](float v) { return static_cast<double>(v); },
                     [](double v) { return static_cast<float>(v); });  // exact: a binary32 value
}

std::uint16_t slow_bf16(const SlowPath& s, int k, std::uint16_t x_a, std::uint16_t x_b, bool second, std::uint16_t fast) {
  return slow<std::uint16_t>(s, OutputFormat::bf16, k, x_a, x_b, second, fast,
                             [](std::uint16_t v) { return static_cast<double>(bf16_to_f32(v)); },
                             [](double v) { return f32_to_bf16_rne(static_cast<float>(v)); });  // exact: a bf16 value
}

template <typename E>
void copy_passthrough_impl(const RowShape& shape, const E* in, E* out) {
  if (in == out) return;
  if (shape.offset > 0) std::memmove(out, in, sizeof(E) * static_cast<size_t>(shape.offset));
  const int end = shape.offset + 2 * shape.block;
  if (shape.dim > end) std::memmove(out + end, in + end, sizeof(E) * static_cast<size_t>(shape.dim - end));
}

void copy_passthrough(const RowShape& shape, const float* in, float* out) { copy_passthrough_impl(shape, in, out); }
void copy_passthrough(const RowShape& shape, const std::uint16_t* in, std::uint16_t* out) { copy_passthrough_impl(shape, in, out); }

void scale_row(double a, int n, double* c, double* s) {
  if (a == 1.0) return;
  for (int k = 0; k < n; ++k) {
    c[k] = a * c[k];
    s[k] = a * s[k];
  }
}

}  // namespace ropecheck::kernel::detail

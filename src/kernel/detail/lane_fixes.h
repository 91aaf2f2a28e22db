// File: detail/lane_fixes.h
// The SIMD paths' redo of failed lanes (ops.h): after a head, each lane whose test failed is
// recomputed alone by `retry` (retry_f32 or retry_bf16 with the path's arguments). Lane j of the
// step at element (interleaved) or pair (half) i is:
//   interleaved: element e = i + j, pair e / 2, component e odd;
//   half:        pair i + (j mod L), component j >= L (L lanes per component).
// Included only by avx2.cpp and avx512.cpp, and inside an anonymous namespace: each file gets its
// own copy, compiled with its own -m flags (avx512.cpp says why no inline function may be shared).
#pragma once

#include <cstdint>

namespace ropecheck::kernel::detail {
namespace {

template <int kLanes, typename E, typename Retry>
auto fix_interleaved(const double* c, const double* s, Retry retry) {
  return [=](const E* x, E* y, int i, std::uint32_t bits) {
    for (int j = 0; j < kLanes; ++j) {
      if (!((bits >> j) & 1u)) continue;
      const int e = i + j, k = e / 2;
      y[e] = retry(k, x[2 * k], x[2 * k + 1], (e & 1) != 0, c[k], s[k]);
    }
  };
}

template <int kLanes, typename E, typename Retry>
auto fix_half(int r, const double* c, const double* s, Retry retry) {
  return [=](const E* x, E* y, int i, std::uint32_t bits) {
    for (int j = 0; j < 2 * kLanes; ++j) {
      if (!((bits >> j) & 1u)) continue;
      const int k = i + j % kLanes;
      y[j < kLanes ? k : r + k] = retry(k, x[k], x[r + k], j >= kLanes, c[k], s[k]);
    }
  };
}

}  // namespace
}  // namespace ropecheck::kernel::detail

// File: detail/head_groups.h
// The SIMD paths' head loop (avx2.cpp, avx512.cpp), in an anonymous namespace so that each path
// compiles its own copy with its own flags (no inline function shared between the path files).
//   for_head_groups  heads in groups of kGroupHeads (ops.h's Scratch): for each head of a group,
//       steps(x, y, note) rotates and stores its rotary part (inputs x, outputs y) and calls
//       note(failed, i) once per step, `failed` the lanes of the step at
//       lane i whose test failed. The failed steps are listed branch-free; after the group's last
//       head, fix(x, y, i, failed) redoes each listed step, off the hot loop, and *redone counts
//       its lanes (KernelStats::redone). In place, each head's rotary inputs are first copied to
//       the group's `copy`, so that the fixes still read inputs. Pass-through elements are copied
//       per head.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernel/detail/ops.h"

namespace ropecheck::kernel::detail {
namespace {

template <typename E, typename Steps, typename Fix>
__attribute__((always_inline)) inline void for_head_groups(const RowShape& sh, const E* in, std::int64_t in_hs, E* out,
                                                           std::int64_t out_hs, std::int64_t heads, const Scratch& scratch,
                                                           std::int64_t* redone, Steps steps, Fix fix) {
  const bool in_place = static_cast<const void*>(in) == static_cast<const void*>(out);
  const std::size_t row = 2 * static_cast<std::size_t>(sh.block);
  E* copy = static_cast<E*>(scratch.copy);
  for (std::int64_t h0 = 0; h0 < heads; h0 += kGroupHeads) {
    const int g = static_cast<int>(heads - h0 < kGroupHeads ? heads - h0 : kGroupHeads);
    int listed = 0;
    for (int j = 0; j < g; ++j) {
      const E* x = in + (h0 + j) * in_hs + sh.offset;
      E* y = out + (h0 + j) * out_hs + sh.offset;
      if (in_place) x = static_cast<const E*>(__builtin_memcpy(copy + j * row, x, sizeof(E) * row));
      steps(x, y, [&](std::uint32_t failed, int i) {
        scratch.fails[listed] = failed;
        scratch.at[listed] = static_cast<std::uint32_t>(j) << 17 | static_cast<std::uint32_t>(i);
        listed += failed != 0;
      });
      if (sh.pass_through) copy_passthrough(sh, in + (h0 + j) * in_hs, out + (h0 + j) * out_hs);
    }
    for (int u = 0; u < listed; ++u) {
      *redone += __builtin_popcount(scratch.fails[u]);
      const int j = static_cast<int>(scratch.at[u] >> 17), i = static_cast<int>(scratch.at[u] & 0x1FFFF);
      const E* x = in_place ? copy + j * row : in + (h0 + j) * in_hs + sh.offset;
      fix(x, out + (h0 + j) * out_hs + sh.offset, i, scratch.fails[u]);
    }
  }
}

}  // namespace
}  // namespace ropecheck::kernel::detail

// File: detail/floor.h
// The bench-only "floor" of the kernel: the path files (dispatch.cpp, scalar.cpp, avx2.cpp,
// avx512.cpp) compiled a second time with ROPECHECK_KERNEL_FLOOR into the static library
// ropecheck_kernel_floor (src/CMakeLists.txt; linked only by bench/kernel_bench.cpp). There every
// fast rounding test passes unconditionally (kFloor) and its instructions are dead code: each output
// is RN(y) of the fast formula (float32: RN32 of the binary64 y; bfloat16: RN_bf16 of the binary32
// y), NOT correctly rounded, and no lane reaches levels 2 and 3. The benchmark's ratio floor time /
// correctly rounded time is then the measured price of correct rounding on each path.
// Without the definition (the shipped build, libropecheck.so) kFloor is false and the files are the
// bit-identical twins of ops.h. With it, the tables get other names (the macros below), so the two
// builds never clash in one program, and nothing in the library can reach the floor's tables: only
// the floor build's dispatch.cpp runs them (through detail/apply_with_ops.h), behind the public
// seam kernel/floor.h, which only the benchmark calls.
#pragma once

#include "cpu/path.h"

#ifdef ROPECHECK_KERNEL_FLOOR
#define scalar_ops floor_scalar_ops
#define avx2_ops floor_avx2_ops
#define avx512_ops floor_avx512_ops
#define avx512_bf16_ops floor_avx512_bf16_ops
#define ops_for floor_ops_for
#endif

namespace ropecheck::kernel::detail {

#ifdef ROPECHECK_KERNEL_FLOOR
inline constexpr bool kFloor = true;
#else
inline constexpr bool kFloor = false;
#endif

struct PathOps;
// The floor's ops_for (dispatch.cpp compiled with ROPECHECK_KERNEL_FLOOR): defined only in
// ropecheck_kernel_floor.
const PathOps& floor_ops_for(cpu::Path path);

}  // namespace ropecheck::kernel::detail

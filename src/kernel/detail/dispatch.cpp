#include "kernel/detail/ops.h"

namespace ropecheck::kernel::detail {

const PathOps& ops_for(cpu::Path path) {
  switch (path) {
    case cpu::Path::scalar: return scalar_ops();
#if ROPECHECK_X86
    case cpu::Path::avx2: return avx2_ops();
    case cpu::Path::avx512: return avx512_ops();
    case cpu::Path::avx512_bf16: return avx512_bf16_ops();
#else
    // Not built off x86 (cmake/Architecture.cmake), and never available there (cpu/path.h).
    case cpu::Path::avx2:
    case cpu::Path::avx512:
    case cpu::Path::avx512_bf16: break;
#endif
  }
  return scalar_ops();
}

}  // namespace ropecheck::kernel::detail

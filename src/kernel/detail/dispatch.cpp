#include "kernel/detail/ops.h"

namespace ropecheck::kernel::detail {

const PathOps& ops_for(cpu::Path path) {
  switch (path) {
    case cpu::Path::scalar: return scalar_ops();
    case cpu::Path::avx2: return avx2_ops();
    case cpu::Path::avx512: return avx512_ops();
    case cpu::Path::avx512_bf16: return avx512_bf16_ops();
  }
  return scalar_ops();
}

}  // namespace ropecheck::kernel::detail

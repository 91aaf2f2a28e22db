#include "kernel/detail/ops.h"

namespace ropecheck::kernel::detail {

const PathOps& ops_for(Path path) {
  switch (path) {
    case Path::scalar: return scalar_ops();
    case Path::avx2: return avx2_ops();
    case Path::avx512: return avx512_ops();
    case Path::avx512_bf16: return avx512_bf16_ops();
  }
  return scalar_ops();
}

}  // namespace ropecheck::kernel::detail

#include "kernel/detail/ops.h"

#ifdef ROPECHECK_KERNEL_FLOOR
#include "kernel/detail/apply_with_ops.h"
#include "kernel/floor.h"
#endif

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

#ifdef ROPECHECK_KERNEL_FLOOR
// kernel/floor.h: the one seam to the floor's tables (ops_for above is floor_ops_for in this build).
namespace ropecheck::kernel {

void apply_rope_floor(const RopePlan& plan, std::span<const std::int64_t> positions, TensorView<const float> in,
                      TensorView<float> out, const KernelOptions& options) {
  detail::apply_rope_with_ops<float>(detail::floor_ops_for(options.path), plan, positions, in, out, options);
}
void apply_rope_floor(const RopePlan& plan, std::span<const std::int64_t> positions, TensorView<const Bf16Bits> in,
                      TensorView<Bf16Bits> out, const KernelOptions& options) {
  detail::apply_rope_with_ops<Bf16Bits>(detail::floor_ops_for(options.path), plan, positions, in, out, options);
}
void apply_rope_floor(const RopePlan& plan, std::span<const std::int64_t> positions, TensorView<const F16Bits> in,
                      TensorView<F16Bits> out, const KernelOptions& options) {
  detail::apply_rope_with_ops<F16Bits>(detail::floor_ops_for(options.path), plan, positions, in, out, options);
}

}  // namespace ropecheck::kernel
#endif

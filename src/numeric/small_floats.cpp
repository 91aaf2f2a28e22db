#include "numeric/small_floats.h"

#include <cmath>

namespace ropecheck {

double value_of_bits(Dtype t, std::uint32_t bits) {
  switch (t) {
    case Dtype::f32: return std::bit_cast<float>(bits);
    case Dtype::bf16: return to_float(Bf16Bits{static_cast<std::uint16_t>(bits)});
    case Dtype::f16: return to_double(F16Bits{static_cast<std::uint16_t>(bits)});
    case Dtype::f64: break;
  }
  require_kernel_dtype(t, "value_of_bits");
  return 0;
}

std::uint32_t bits_of_value(Dtype t, double v) {
  if (!dtype_info(t).kernel) require_kernel_dtype(t, "bits_of_value");
  return with_storage(t, [&](auto e) { return bits_of(narrow_from_double<dtype_of<decltype(e)>>(v)); });
}

}  // namespace ropecheck

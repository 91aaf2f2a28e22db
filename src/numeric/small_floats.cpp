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
  switch (t) {
    case Dtype::f32: return std::isnan(v) ? kCanonicalNaNF32 : std::bit_cast<std::uint32_t>(static_cast<float>(v));
    case Dtype::bf16: return bf16_from_float(static_cast<float>(v)).bits;
    case Dtype::f16: return f16_from_double(v).bits;
    case Dtype::f64: break;
  }
  require_kernel_dtype(t, "bits_of_value");
  return 0;
}

}  // namespace ropecheck

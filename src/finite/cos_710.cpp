#include "finite/cos_710.h"

#include "finite/detail/construction_inputs.h"
#include "finite/finite_arithmetic.h"
#include "io/printf_string.h"
#include "numeric/precision.h"
#include "spectrum/spectrum.h"

namespace ropecheck::finite {

using detail::kExactBits;
using detail::lower_double;
using detail::round_certified;
using detail::upper_double;

Cos710 cos_710(cpu::Path path) {
  Cos710 out;
  {
    ScopedPrecision precision(kExactBits);
    Interval s, c;
    sin_cos(Interval(710), s, c);
    out.cos_lower = lower_double(c);
    out.cos_upper = upper_double(c);
    out.cos_f32 = round_certified(c, Dtype::f32);
  }
  const Spectrum spectrum(2, "10000");  // d = 2: the one pair has g = theta^0 = 1 for every theta
  const kernel::RopePlan plan(spectrum, kernel::Layout::interleaved);
  const std::vector<std::int64_t> at{710};
  const std::vector<float> unit{1.0f, 0.0f};
  const std::vector<float> r = rotate(Implementation::kernel, Dtype::f32, plan, at, unit, 1, path);
  out.kernel_x = r[0];
  out.kernel_y = r[1];
  return out;
}

nlohmann::json to_json(const Cos710& c) {
  return {{"cos_710_lower", c.cos_lower}, {"cos_710_upper", c.cos_upper}, {"fl32_cos_710", hex_float(c.cos_f32)},
          {"kernel_f32_rotation_of_(1,0)_at_710", {hex_float(c.kernel_x), hex_float(c.kernel_y)}}};
}

}  // namespace ropecheck::finite

#include "finite/finite_arithmetic.h"

#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <iterator>

#include "accuracy/baselines.h"
#include "finite/detail/construction_inputs.h"
#include "io/input_error.h"
#include "io/printf_string.h"
#include "kernel/apply_rope.h"
#include "numeric/small_floats.h"

namespace ropecheck::finite {

void check_dtypes(const std::vector<Dtype>& dtypes) {
  if (dtypes.empty()) throw InputError("--dtype", "f32, bf16 or both", "no dtype");
  for (Dtype t : dtypes)
    if (std::find(std::begin(kFiniteDtypes), std::end(kFiniteDtypes), t) == std::end(kFiniteDtypes))
      throw InputError("--dtype", "f32, bf16 or both", dtype_name(t));
}

float round_to(Dtype t, double x) {
  check_dtypes({t});
  if (t == Dtype::f32) return static_cast<float>(x);
  mpfr_t m;
  mpfr_init2(m, 53);
  mpfr_set_d(m, x, MPFR_RNDN);
  const float f = detail::round_mpfr(m, t);
  mpfr_clear(m);
  return f;
}

std::vector<float> rotate(Implementation r, Dtype t, const kernel::RopePlan& plan, std::span<const std::int64_t> positions,
                          std::span<const float> in, std::int64_t heads, cpu::Path path) {
  check_dtypes({t});
  const std::int64_t tokens = static_cast<std::int64_t>(positions.size());
  const int d = plan.dim();
  if (static_cast<std::int64_t>(in.size()) != tokens * heads * d)
    throw InputError("rotate: input", std::to_string(tokens * heads * d) + " values (tokens x heads x dim)",
                     std::to_string(in.size()));
  std::vector<float> out(in.size());
  with_storage(t, [&]<typename E>(E) {  // the kernel's element type for t, whichever format
    std::vector<E> ei(in.size()), eo(in.size());
    for (size_t i = 0; i < in.size(); ++i) {
      ei[i] = narrow_to<E>(in[i]);
      if (widen(ei[i]) != static_cast<double>(in[i]) && !std::isnan(in[i]))
        throw InputError("rotate: input", "values representable in " + dtype_name(t), hex_float(in[i]));
    }
    const auto iv = kernel::dense_view(static_cast<const E*>(ei.data()), tokens, heads, d);
    const auto ov = kernel::dense_view(eo.data(), tokens, heads, d);
    accuracy::apply_rope_with(r, plan, positions, iv, ov, kernel::KernelOptions{path, 1});
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(widen(eo[i]));
  });
  return out;
}

}  // namespace ropecheck::finite

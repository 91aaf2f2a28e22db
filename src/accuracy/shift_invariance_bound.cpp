#include "accuracy/shift_invariance_bound.h"

#include <cmath>
#include <stdexcept>

#include "kernel/apply_rope.h"

namespace ropecheck::accuracy {

double shift_invariance_bound(Dtype t, std::span<const float> q, std::span<const float> k) {
  require_kernel_dtype(t, "shift_invariance_bound");
  if (q.size() != k.size() || q.size() % 2 != 0) throw std::invalid_argument("shift_invariance_bound: q, k of one even size");
  const double p_floor = std::ldexp(1.0, -dtype_info(t).precision);  // 2^-p'
  const double c = kernel::kProvedUlpBound;  // the contract's ulp factor
  const double cu = c * 2 * p_floor;                            // c 2^(1-p')
  const double eps = cu / (1 - cu);
  const double d = static_cast<double>(q.size()), u = 0x1p-24;
  const double gamma = d * u / (1 - d * u);
  double S = 0;
  for (size_t i = 0; i < q.size(); i += 2) {
    const double nq = std::hypot(static_cast<double>(q[i]), static_cast<double>(q[i + 1]));
    const double nk = std::hypot(static_cast<double>(k[i]), static_cast<double>(k[i + 1]));
    // The ulp floor argument needs normal-range pair norms (or exact zeros, which rotate to zeros).
    if ((nq != 0 && nq < 0x1p-100) || (nk != 0 && nk < 0x1p-100))
      throw std::invalid_argument("shift_invariance_bound: pair norms must be 0 or >= 2^-100");
    S += nq * nk;
  }
  const double B = (2 * std::sqrt(2.0) * eps + 2 * eps * eps + gamma * (1 + std::sqrt(2.0) * eps) * (1 + std::sqrt(2.0) * eps)) * S;
  // The double evaluation of B (d + 10 roundings of 2^-53 each, and hypot's < 1 ulp) is covered by
  // a relative 2^-40 of slack.
  return 2 * B * (1 + 0x1p-40);
}

}  // namespace ropecheck::accuracy

#include "accuracy/profile_tensor.h"

#include <stdexcept>
#include <string>

#include "accuracy/ulp_error.h"
#include "io/input_error.h"
#include "numeric/small_floats.h"
#include "random/counter_rng.h"
#include "random/normal_sampler.h"
#include "random/uniform_below.h"

namespace ropecheck::accuracy {

namespace {

// CounterRng streams of the positions and of the values.
constexpr std::uint64_t kPositionStream = 21;
constexpr std::uint64_t kValueStream = 22;

}  // namespace

ProfileTensor profile_tensor(const kernel::RopePlan& plan, Dtype format, std::uint64_t seed, std::int64_t tokens, std::int64_t heads,
                             std::int64_t max_position) {
  if (format == Dtype::f64) throw std::invalid_argument("profile_tensor: format f64 is not a kernel dtype");
  if (tokens < 1 || tokens > (1 << 16)) throw InputError("tokens", "an integer in [1, 2^16]", std::to_string(tokens));
  if (heads < 1 || heads > (1 << 16)) throw InputError("heads", "an integer in [1, 2^16]", std::to_string(heads));
  if (max_position < 0 || max_position > (std::int64_t{1} << 62))
    throw InputError("max_position", "an integer in [0, 2^62]", std::to_string(max_position));
  const int decades = position_decade(max_position) + 1;
  const std::int64_t rows = decades * tokens;
  const std::int64_t dim = plan.dim();
  if (rows * heads * dim > (std::int64_t{1} << 28))
    throw InputError("tokens", "at most 2^28 elements in all (" + std::to_string(decades) + " decades x tokens x heads x head_dim " +
                                   std::to_string(dim) + ")",
                     std::to_string(tokens) + " x " + std::to_string(heads));
  ProfileTensor out;
  const CounterRng rng(seed, kPositionStream);
  std::uint64_t word = 0;
  std::int64_t low = 0, high = 9;
  for (int d = 0; d < decades; ++d) {
    if (d > 0) low = high + 1, high = low > max_position / 10 ? max_position : low * 10 - 1;
    const std::int64_t top = std::min(high, max_position);
    const auto span = static_cast<std::uint64_t>(top - low) + 1;
    for (std::int64_t t = 0; t < tokens; ++t)
      out.positions.push_back(low + static_cast<std::int64_t>(uniform_below_u64(span, [&] { return rng.bits(word++); })));
  }
  std::vector<double> values(static_cast<std::size_t>(rows * heads * dim));
  normal_fill(seed, kValueStream, 0, values, cpu::Path::scalar);
  out.bits.reserve(values.size());
  for (double v : values) out.bits.push_back(bits_of_value(format, v));
  return out;
}

}  // namespace ropecheck::accuracy

// The two angle strategies of inference engines, written plainly (scalar, one thread): they are
// measurement baselines, not products. Their arithmetic is spelled out one operation per statement
// so that it is the IEEE sequence the header describes (the project builds with -std=c++20, where
// GCC does not contract a*b - c into an FMA, and never with fast-math).
#include "accuracy/baselines.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "io/input_error.h"
#include "io/named_values.h"
#include "numeric/small_floats.h"
#include "spectrum/frequencies.h"

namespace ropecheck::accuracy {

std::vector<Implementation> all_implementations() { return values_in(kImplementations); }

std::vector<Implementation> baselines() {
  std::vector<Implementation> b = all_implementations();
  std::erase(b, Implementation::kernel);
  return b;
}

std::string implementation_name(Implementation i) { return name_in(kImplementations, i); }

Implementation parse_implementation(const std::string& name, const std::string& input) {
  return parse_name_in(kImplementations, name, input);
}

namespace {

// The number of elements a view spans from its first element, or 0 for an empty view.
std::int64_t span_elements(std::int64_t tokens, std::int64_t heads, std::int64_t token_stride, std::int64_t head_stride,
                           int dim) {
  if (tokens == 0 || heads == 0) return 0;
  return (tokens - 1) * token_stride + (heads - 1) * head_stride + dim;
}

// Throws InputError unless the rows of a [tokens][heads][dim] view with these strides are disjoint.
// Accepted: the rows of one axis are at least `dim` apart and the other axis steps over the whole
// first one (the nested layouts every tensor library produces: dense, q inside fused qkv, or
// [heads][tokens][dim]). An axis of count <= 1 has no stride constraint.
void check_disjoint_rows(const char* input, std::int64_t tokens, std::int64_t heads, std::int64_t token_stride,
                         std::int64_t head_stride, int dim) {
  const bool many_tokens = tokens > 1, many_heads = heads > 1;
  bool ok = true;
  if (many_tokens && many_heads) {
    const bool heads_inner = head_stride >= dim && token_stride >= (heads - 1) * head_stride + dim;
    const bool tokens_inner = token_stride >= dim && head_stride >= (tokens - 1) * token_stride + dim;
    ok = heads_inner || tokens_inner;
  } else if (many_tokens) {
    ok = token_stride >= dim;
  } else if (many_heads) {
    ok = head_stride >= dim;
  }
  if (!ok)
    throw InputError(input, "strides whose rows of head_dim " + std::to_string(dim) + " elements do not overlap",
                     "token stride " + std::to_string(token_stride) + ", head stride " + std::to_string(head_stride));
}

template <typename T>
void check_views(const kernel::RopePlan& plan, std::span<const std::int64_t> positions, kernel::TensorView<const T> in,
                 kernel::TensorView<T> out) {
  const int dim = plan.dim();
  auto check_view = [&](const char* name, std::int64_t tokens, std::int64_t heads, std::int64_t ts, std::int64_t hs,
                        const void* data) {
    if (tokens < 0 || heads < 0) throw InputError(name, "a view with tokens >= 0 and heads >= 0", std::to_string(tokens) + " tokens, " + std::to_string(heads) + " heads");
    if (ts < 0 || hs < 0) throw InputError(name, "non-negative strides", "token stride " + std::to_string(ts) + ", head stride " + std::to_string(hs));
    if (data == nullptr && tokens > 0 && heads > 0) throw InputError(name, "a view with data", "a null pointer");
  };
  check_view("in", in.tokens, in.heads, in.token_stride, in.head_stride, in.data);
  check_view("out", out.tokens, out.heads, out.token_stride, out.head_stride, out.data);
  if (in.tokens != out.tokens || in.heads != out.heads)
    throw InputError("out", "a view of the input's shape (" + std::to_string(in.tokens) + " tokens, " + std::to_string(in.heads) + " heads)",
                     std::to_string(out.tokens) + " tokens, " + std::to_string(out.heads) + " heads");
  if (static_cast<std::int64_t>(positions.size()) != in.tokens)
    throw InputError("positions", "one position per token (" + std::to_string(in.tokens) + ")", std::to_string(positions.size()) + " positions");
  check_disjoint_rows("out", out.tokens, out.heads, out.token_stride, out.head_stride, dim);
  const bool same_view = static_cast<const void*>(in.data) == static_cast<const void*>(out.data) &&
                         in.token_stride == out.token_stride && in.head_stride == out.head_stride;
  if (!same_view) {
    const auto in_begin = reinterpret_cast<std::uintptr_t>(in.data);
    const auto out_begin = reinterpret_cast<std::uintptr_t>(out.data);
    const auto in_end = in_begin + sizeof(T) * static_cast<std::uintptr_t>(span_elements(in.tokens, in.heads, in.token_stride, in.head_stride, dim));
    const auto out_end = out_begin + sizeof(T) * static_cast<std::uintptr_t>(span_elements(out.tokens, out.heads, out.token_stride, out.head_stride, dim));
    if (in_begin < out_end && out_begin < in_end && in_end != in_begin && out_end != out_begin)
      throw InputError("out", "the input view itself (in place) or memory that does not overlap the input", "an overlapping view");
  }
}

// One output dtype: how an element is read as float (exact: every kernel dtype widens into binary32)
// and how a result is stored (small_floats.h's narrowing; a NaN becomes the canonical NaN).
template <typename E>
float load(E x) {
  return static_cast<float>(widen(x));
}
template <typename E>
void store(E& dst, float y) {
  dst = narrow_to<E>(y);
}

template <typename T>
void run(Implementation b, const kernel::RopePlan& plan, std::span<const std::int64_t> positions, kernel::TensorView<const T> in,
         kernel::TensorView<T> out) {
  if (b == Implementation::kernel) throw std::invalid_argument("apply_rope_baseline: the kernel is not a baseline (apply_rope_with runs it)");
  check_views(plan, positions, in, out);
  const int dim = plan.dim();
  const int pairs = plan.block_pairs();
  const std::vector<float> g32 = frequencies<float>(plan.spectrum());
  const std::vector<double> g64 = frequencies<double>(plan.spectrum());
  // The attention factor as each strategy holds it: transformers multiplies its float32 cos and
  // sin tensors by the Python float attention_scaling, which PyTorch converts to float32 first.
  const double a64 = plan.attention_factor();
  const auto a32 = static_cast<float>(a64);
  std::vector<T> row(static_cast<size_t>(dim));
  for (std::int64_t t = 0; t < in.tokens; ++t) {
    const std::int64_t p = positions[static_cast<size_t>(t)];
    for (std::int64_t h = 0; h < in.heads; ++h) {
      // Through a row copy, so that in place and out of place compute the same bits.
      std::memcpy(row.data(), in.data + t * in.token_stride + h * in.head_stride, sizeof(T) * static_cast<size_t>(dim));
      T* y = out.data + t * out.token_stride + h * out.head_stride;
      std::memcpy(y, row.data(), sizeof(T) * static_cast<size_t>(dim));  // pass-through and identity pairs
      for (int k = 0; k < pairs; ++k) {
        if (plan.identity(k)) continue;
        const int ia = plan.first_element(k), ib = plan.second_element(k);
        const float xa = load(row[static_cast<size_t>(ia)]), xb = load(row[static_cast<size_t>(ib)]);
        const int sk = plan.spectrum_pair(k);
        if (b == Implementation::f32_angle) {
          const float angle = static_cast<float>(p) * g32[static_cast<size_t>(sk)];
          const float c0 = std::cos(angle), s0 = std::sin(angle);
          const float c = c0 * a32, s = s0 * a32;  // exact for a = 1
          const float ac = xa * c, bs = xb * s, as = xa * s, bc = xb * c;
          store(y[ia], ac - bs);
          store(y[ib], as + bc);
        } else {
          const double angle = static_cast<double>(p) * g64[static_cast<size_t>(sk)];
          const double c0 = std::cos(angle), s0 = std::sin(angle);
          const double c = c0 * a64, s = s0 * a64;  // exact for a = 1
          const double ac = xa * c, bs = xb * s, as = xa * s, bc = xb * c;
          store(y[ia], static_cast<float>(ac - bs));
          store(y[ib], static_cast<float>(as + bc));
        }
      }
    }
  }
}

}  // namespace

template <typename E>
  requires(dtype_of<E> != Dtype::f64)
void apply_rope_baseline(Implementation b, const kernel::RopePlan& plan, std::span<const std::int64_t> positions,
                         kernel::TensorView<const E> in, kernel::TensorView<E> out) {
  run<E>(b, plan, positions, in, out);
}

template <typename E>
  requires(dtype_of<E> != Dtype::f64)
void apply_rope_with(Implementation i, const kernel::RopePlan& plan, std::span<const std::int64_t> positions,
                     kernel::TensorView<const E> in, kernel::TensorView<E> out, const kernel::KernelOptions& options) {
  if (i == Implementation::kernel) kernel::apply_rope(plan, positions, in, out, options);
  else run<E>(i, plan, positions, in, out);
}

#define ROPECHECK_BASELINE_FOR(E)                                                                                      \
  template void apply_rope_baseline<E>(Implementation, const kernel::RopePlan&, std::span<const std::int64_t>,         \
                                       kernel::TensorView<const E>, kernel::TensorView<E>);                            \
  template void apply_rope_with<E>(Implementation, const kernel::RopePlan&, std::span<const std::int64_t>,             \
                                   kernel::TensorView<const E>, kernel::TensorView<E>, const kernel::KernelOptions&);
ROPECHECK_BASELINE_FOR(float)
ROPECHECK_BASELINE_FOR(Bf16Bits)
ROPECHECK_BASELINE_FOR(F16Bits)
#undef ROPECHECK_BASELINE_FOR

}  // namespace ropecheck::accuracy

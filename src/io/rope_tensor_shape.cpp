#include "io/rope_tensor_shape.h"

#include "io/input_error.h"
#include "io/named_values.h"
#include "io/npy.h"

namespace ropecheck {

namespace {

void check_head_dim(std::int64_t head_dim, const std::vector<std::int64_t>& shape, const std::string& input) {
  if (head_dim < 2 || head_dim % 2 != 0)
    throw InputError(input, "a tensor whose head_dim is even and >= 2 (RoPE rotates pairs)", "shape " + shape_repr(shape));
}

}  // namespace

TensorAxes parse_axes(const std::string& text, const std::string& flag) {
  std::string accepted;
  for (const TensorAxesInfo& a : kTensorAxes) {
    if (a.value == TensorAxes::automatic) continue;
    if (text == a.name) return a.value;
    accepted += (accepted.empty() ? "one of " : ", ") + std::string(a.name) + " " + std::string(a.shape);
  }
  throw InputError(flag, accepted, text);
}

std::string axes_name(TensorAxes axes) { return name_in(kTensorAxes, axes); }

RopeTensorShape rope_tensor_shape(const std::vector<std::int64_t>& shape, const std::string& input) {
  const std::size_t rank = shape.size();
  if (rank < 2)
    throw InputError(input, "a tensor of shape [..., tokens, heads, head_dim] or [tokens, head_dim]", "shape " + shape_repr(shape));
  RopeTensorShape s;
  s.head_dim = shape[rank - 1];
  check_head_dim(s.head_dim, shape, input);
  if (rank == 2) {
    s.tokens = shape[0];
    return s;
  }
  s.heads = shape[rank - 2];
  s.tokens = shape[rank - 3];
  for (std::size_t i = 0; i + 3 < rank; ++i) s.batch *= shape[i];
  return s;
}

RopeTensorShape rope_tensor_shape(const std::vector<std::int64_t>& shape, TensorAxes axes, std::int64_t head_dim,
                                  const std::string& input) {
  if (axes == TensorAxes::automatic) return rope_tensor_shape(shape, input);
  const std::string name = axes_name(axes);
  if (shape.size() != name.size())
    throw InputError(input, "a tensor of rank " + std::to_string(name.size()) + " for --axes " + name, "shape " + shape_repr(shape));
  RopeTensorShape s;
  switch (axes) {
    case TensorAxes::bshd: s = {shape[0], shape[1], shape[2], shape[3], false}; break;
    case TensorAxes::bhsd: s = {shape[0], shape[2], shape[1], shape[3], true}; break;
    case TensorAxes::shd: s = {1, shape[0], shape[1], shape[2], false}; break;
    case TensorAxes::hsd: s = {1, shape[1], shape[0], shape[2], true}; break;
    case TensorAxes::sd: {
      const std::int64_t width = shape[1];
      const std::int64_t d = head_dim > 0 ? head_dim : width;
      check_head_dim(d, shape, input);
      if (width % d != 0)
        throw InputError(input, "a last dimension that is a multiple of head_dim " + std::to_string(d) + " (--axes sd: [num_tokens, heads*head_dim])",
                         "shape " + shape_repr(shape));
      s = {1, shape[0], width / d, d, false};
      break;
    }
    case TensorAxes::automatic: break;
  }
  check_head_dim(s.head_dim, shape, input);
  return s;
}

bool positions_per_row(const RopeTensorShape& shape, std::int64_t count, const std::string& tensor, const std::string& positions,
                       const std::string& got) {
  const std::int64_t rows = shape.batch * shape.tokens;
  const bool per_row = shape.batch > 1 && count == rows && count != shape.tokens;
  if (count != shape.tokens && !per_row)
    throw InputError(positions,
                     std::to_string(shape.tokens) + " positions (one per token of " + tensor +
                         (shape.batch > 1 ? ", shared by the batch) or " + std::to_string(rows) + " (one per batch row and token)" : ")"),
                     got);
  return per_row;
}

}  // namespace ropecheck

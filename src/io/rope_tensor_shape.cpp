#include "io/rope_tensor_shape.h"

#include "io/input_error.h"

namespace ropecheck {

namespace {

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "shape (";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i > 0 ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace

RopeTensorShape rope_tensor_shape(const std::vector<std::int64_t>& shape, const std::string& input) {
  const std::size_t rank = shape.size();
  if (rank < 2)
    throw InputError(input, "a tensor of shape [..., tokens, heads, head_dim] or [tokens, head_dim]", shape_text(shape));
  RopeTensorShape s;
  s.head_dim = shape[rank - 1];
  if (s.head_dim < 2 || s.head_dim % 2 != 0)
    throw InputError(input, "a tensor whose last dimension (head_dim) is even and >= 2 (RoPE rotates pairs)",
                     shape_text(shape));
  if (rank == 2) {
    s.tokens = shape[0];
    return s;
  }
  s.heads = shape[rank - 2];
  s.tokens = shape[rank - 3];
  for (std::size_t i = 0; i + 3 < rank; ++i) s.batch *= shape[i];
  return s;
}

}  // namespace ropecheck

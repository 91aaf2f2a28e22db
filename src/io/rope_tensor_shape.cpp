#include "io/rope_tensor_shape.h"

#include "io/input_error.h"
#include "io/npy.h"

namespace ropecheck {

RopeTensorShape rope_tensor_shape(const std::vector<std::int64_t>& shape, const std::string& input) {
  const std::size_t rank = shape.size();
  if (rank < 2)
    throw InputError(input, "a tensor of shape [..., tokens, heads, head_dim] or [tokens, head_dim]", "shape " + shape_repr(shape));
  RopeTensorShape s;
  s.head_dim = shape[rank - 1];
  if (s.head_dim < 2 || s.head_dim % 2 != 0)
    throw InputError(input, "a tensor whose last dimension (head_dim) is even and >= 2 (RoPE rotates pairs)",
                     "shape " + shape_repr(shape));
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

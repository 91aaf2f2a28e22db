// File: rope_tensor_shape.h
// How a .npy tensor's shape maps onto the kernel's [tokens][heads][head_dim] views: the shapes
// that `ropecheck apply` and `ropecheck audit` accept, read the same way by both.
//   [tokens, head_dim]                     one head (heads = 1), batch 1
//   [..., tokens, heads, head_dim]         the leading dimensions are a batch: every batch slice is
//                                          a dense [tokens][heads][head_dim] tensor rotated at the
//                                          same positions (one position per token).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ropecheck {

struct RopeTensorShape {
  std::int64_t batch = 1;     // product of the leading dimensions (1 when there are none)
  std::int64_t tokens = 0;
  std::int64_t heads = 1;
  std::int64_t head_dim = 0;  // even, >= 2

  // Elements of one batch slice: tokens * heads * head_dim.
  std::int64_t slice_elements() const { return tokens * heads * head_dim; }
};

// Returns: the shape read as above. Throws InputError naming `input`: fewer than 2 dimensions, or
// a last dimension (head_dim) that is odd or below 2.
RopeTensorShape rope_tensor_shape(const std::vector<std::int64_t>& shape, const std::string& input);

}  // namespace ropecheck

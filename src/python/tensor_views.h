// File: tensor_views.h
// Arrays (python/array_view.h) as the kernel's tensor views, without copies: an array of shape
// [..., tokens, heads, head_dim] (or any axis order of io/rope_tensor_shape.h) whose last axis is
// contiguous and whose token and head strides are non-negative is a batch of TensorViews (one per
// index of the batch axes) over its own memory.
#pragma once

#include <cstdint>
#include <vector>

#include "io/rope_tensor_shape.h"
#include "kernel/apply_rope.h"
#include "python/array_view.h"

namespace ropecheck::python {

// An array read with an axis order: its shape as the kernel sees it and the element offset and
// strides of every batch slice.
struct BatchedTensor {
  RopeTensorShape shape;
  std::vector<std::int64_t> slice_offsets;  // elements from data() to each batch slice, row-major over the batch axes
  std::int64_t token_stride = 0, head_stride = 0;  // elements
};

// Returns: whether a's elements are of NumPy kind `kind` ('f', 'u', ...) and `size` bytes, in
// native byte order: float32 is ('f', 4), bfloat16 bits ('u', 2). (A dtype's identity says nothing:
// a float32 descriptor with metadata is another object.)
bool has_element_type(const ArrayView& a, char kind, std::int64_t size);

// Returns: whether the kernel can read `a` in place: native byte order, element-aligned strides,
// the last axis contiguous, no negative stride.
bool kernel_readable(const ArrayView& a);

// Returns: `a` (kernel_readable) read with `axes`; head_dim: the width a model or dim fixes (0:
// the last axis; needed by sd only). Throws InputError naming `parameter` as rope_tensor_shape does.
BatchedTensor batched(const ArrayView& a, TensorAxes axes, std::int64_t head_dim, const std::string& parameter);

// Returns: the kernel view of batch slice b of `a` (dim = shape.head_dim).
template <typename T>
kernel::TensorView<T> slice_view(T* data, const BatchedTensor& t, std::size_t b) {
  return kernel::TensorView<T>{data + t.slice_offsets[b], t.shape.tokens, t.shape.heads, t.token_stride, t.head_stride};
}

}  // namespace ropecheck::python

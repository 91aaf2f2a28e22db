#include "python/tensor_views.h"

#include "io/input_error.h"

namespace ropecheck::python {

bool has_element_type(const ArrayView& a, char kind, std::int64_t size) {
  return a.kind() == kind && a.itemsize() == size && a.native_order();
}

bool kernel_readable(const ArrayView& a) {
  const std::int64_t item = a.itemsize();
  if (a.ndim() < 1 || !a.aligned() || !a.native_order()) return false;
  if (a.shape(a.ndim() - 1) > 1 && a.strides(a.ndim() - 1) != item) return false;
  for (std::int64_t i = 0; i < a.ndim(); ++i)
    if (a.strides(i) < 0 || a.strides(i) % item != 0) return false;
  return true;
}

BatchedTensor batched(const ArrayView& a, TensorAxes axes, std::int64_t head_dim, const std::string& parameter) {
  std::vector<std::int64_t> shape = a.shape(), strides(shape.size());
  for (std::size_t i = 0; i < shape.size(); ++i) strides[i] = a.strides()[i] / a.itemsize();
  BatchedTensor t;
  t.shape = rope_tensor_shape(shape, axes, head_dim, parameter);
  const auto r = static_cast<std::ptrdiff_t>(shape.size());
  // The token and head axes, and how many leading axes are the batch.
  std::ptrdiff_t token_axis = r - 3, head_axis = r - 2, batch_axes = r - 3;
  switch (axes) {
    case TensorAxes::automatic:
      if (r == 2) token_axis = 0, head_axis = -1, batch_axes = 0;
      break;
    case TensorAxes::bshd: break;
    case TensorAxes::bhsd: token_axis = 2, head_axis = 1, batch_axes = 1; break;
    case TensorAxes::shd: break;
    case TensorAxes::hsd: token_axis = 1, head_axis = 0, batch_axes = 0; break;
    case TensorAxes::sd: token_axis = 0, head_axis = -1, batch_axes = 0; break;
  }
  t.token_stride = strides[static_cast<std::size_t>(token_axis)];
  // sd: the heads are consecutive head_dim runs of the contiguous last axis.
  t.head_stride = head_axis >= 0 ? strides[static_cast<std::size_t>(head_axis)] : t.shape.head_dim;
  t.slice_offsets.assign(1, 0);
  for (std::ptrdiff_t i = 0; i < batch_axes; ++i) {
    std::vector<std::int64_t> next;
    next.reserve(t.slice_offsets.size() * static_cast<std::size_t>(shape[static_cast<std::size_t>(i)]));
    for (std::int64_t o : t.slice_offsets)
      for (std::int64_t j = 0; j < shape[static_cast<std::size_t>(i)]; ++j) next.push_back(o + j * strides[static_cast<std::size_t>(i)]);
    t.slice_offsets = std::move(next);
  }
  return t;
}

}  // namespace ropecheck::python

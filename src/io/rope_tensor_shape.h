// File: rope_tensor_shape.h
// How a .npy tensor's shape maps onto the kernel's [tokens][heads][head_dim] views: the shapes
// that `ropecheck apply` and `ropecheck audit` accept, read the same way by both.
//
// Without an axis order (TensorAxes::automatic, today's default):
//   [tokens, head_dim]                     one head (heads = 1), batch 1
//   [..., tokens, heads, head_dim]         the leading dimensions are a batch: every batch slice is
//                                          a dense [tokens][heads][head_dim] tensor rotated at the
//                                          same positions (one position per token).
// With an axis order (--axes), the rank must match it exactly; letters b (batch), s (sequence:
// tokens), h (heads), d (head_dim):
//   bshd   [batch, seq, heads, head_dim]   the kernel's own order (Hugging Face before transpose(1, 2))
//   bhsd   [batch, heads, seq, head_dim]   Hugging Face's q and k as apply_rotary_pos_emb sees them
//   shd    [num_tokens, heads, head_dim]   vLLM's q/k viewed per head (query.view(num_tokens, -1, head_size))
//   hsd    [heads, seq, head_dim]          one Hugging Face sequence without its batch axis
//   sd     [num_tokens, heads * head_dim]  vLLM's flattened q/k as the attention layer passes them to
//                                          the rotary embedding; heads = last dimension / head_dim
// The orders with h before s are not the kernel's memory order: to_token_major copies them into
// it (and from_token_major back), so that every consumer reads one [batch][tokens][heads][head_dim]
// layout.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace ropecheck {

enum class TensorAxes { automatic, bshd, bhsd, shd, hsd, sd };

struct TensorAxesInfo {
  TensorAxes value;
  std::string_view name;   // --axes and Python's axes= spelling
  std::string_view shape;  // what the tensor's dimensions are
};
// The one list of axis orders (the table above): parsing, messages and Python's axes= read it.
inline constexpr TensorAxesInfo kTensorAxes[] = {
    {TensorAxes::automatic, "auto", "[..., tokens, heads, head_dim] or [tokens, head_dim]"},
    {TensorAxes::bshd, "bshd", "[batch, seq, heads, head_dim]"},
    {TensorAxes::bhsd, "bhsd", "[batch, heads, seq, head_dim] (Hugging Face)"},
    {TensorAxes::shd, "shd", "[num_tokens, heads, head_dim] (vLLM)"},
    {TensorAxes::hsd, "hsd", "[heads, seq, head_dim]"},
    {TensorAxes::sd, "sd", "[num_tokens, heads*head_dim] (vLLM)"},
};

// Returns: the axes a --axes value names (every kTensorAxes name but "auto", which a caller
// accepts itself where it means something). Throws InputError(flag, the accepted values, text)
// for anything else.
TensorAxes parse_axes(const std::string& text, const std::string& flag);
// Returns: "bshd", ..., or "auto" for TensorAxes::automatic.
std::string axes_name(TensorAxes axes);

struct RopeTensorShape {
  std::int64_t batch = 1;     // product of the leading dimensions (1 when there are none)
  std::int64_t tokens = 0;
  std::int64_t heads = 1;
  std::int64_t head_dim = 0;  // even, >= 2
  bool heads_outer = false;   // bhsd / hsd: the file holds [batch][heads][tokens][head_dim]

  // Elements of one batch slice: tokens * heads * head_dim.
  std::int64_t slice_elements() const { return tokens * heads * head_dim; }
};

// Returns: the shape read as above. Throws InputError naming `input`: fewer than 2 dimensions, or
// a last dimension (head_dim) that is odd or below 2.
RopeTensorShape rope_tensor_shape(const std::vector<std::int64_t>& shape, const std::string& input);

// Returns: the shape read with `axes`. head_dim: the head width the caller expects (a model's
// head_dim, --dim), or 0 when it does not know one; only `sd` needs it (0: one head of the whole
// last dimension). Throws InputError naming `input`: a rank other than the axes', an odd or tiny
// head_dim, or (sd) a last dimension that is not a multiple of head_dim.
RopeTensorShape rope_tensor_shape(const std::vector<std::int64_t>& shape, TensorAxes axes, std::int64_t head_dim,
                                  const std::string& input);

// Returns: whether `count` positions are one per (batch row, token) ([batch, seq]: Hugging Face's
// position_ids) rather than one per token shared by the batch ([seq]: vLLM's positions). Throws
// InputError naming `positions` for any other count; `tensor` names the tensor in the message, and
// `got` is what the message says was given.
bool positions_per_row(const RopeTensorShape& shape, std::int64_t count, const std::string& tensor, const std::string& positions,
                       const std::string& got);

namespace rope_tensor_detail {

// Copies every head_dim row between the [batch][heads][tokens] order (heads_outer) and the
// kernel's [batch][tokens][heads]: to_tokens chooses the direction.
template <typename T>
std::vector<T> permute_rows(const RopeTensorShape& shape, const std::vector<T>& data, bool to_tokens) {
  std::vector<T> out(data.size());
  const auto d = static_cast<std::size_t>(shape.head_dim);
  for (std::int64_t b = 0; b < shape.batch; ++b)
    for (std::int64_t h = 0; h < shape.heads; ++h)
      for (std::int64_t t = 0; t < shape.tokens; ++t) {
        const auto heads_major = static_cast<std::size_t>(((b * shape.heads + h) * shape.tokens + t) * shape.head_dim);
        const auto tokens_major = static_cast<std::size_t>(((b * shape.tokens + t) * shape.heads + h) * shape.head_dim);
        std::memcpy(out.data() + (to_tokens ? tokens_major : heads_major), data.data() + (to_tokens ? heads_major : tokens_major),
                    d * sizeof(T));
      }
  return out;
}

}  // namespace rope_tensor_detail

// Returns: the elements of `data` (held as `shape` says, heads_outer or not) in the kernel's
// [batch][tokens][heads][head_dim] order: a copy, permuted only when heads_outer.
template <typename T>
std::vector<T> to_token_major(const RopeTensorShape& shape, const std::vector<T>& data) {
  return shape.heads_outer ? rope_tensor_detail::permute_rows(shape, data, true) : data;
}

// Returns: the inverse of to_token_major.
template <typename T>
std::vector<T> from_token_major(const RopeTensorShape& shape, const std::vector<T>& data) {
  return shape.heads_outer ? rope_tensor_detail::permute_rows(shape, data, false) : data;
}

}  // namespace ropecheck

// File: limits.h
// The largest sizes ropecheck accepts, from any input (a flag, a config.json, a file, the C ABI,
// Python): each is checked once where its input is read, so no command reaches an allocation or a
// loop sized by an absurd number. Each is far beyond what shipped models use (in parentheses).
#pragma once

namespace ropecheck {

// A length: context, sequence length, max_n, a distance, a window: 2^40 tokens (models: <= 2^24),
// where every check stays within its proved ranges.
inline constexpr long long kMaxLengthArgument = 1LL << 40;
// A head's width, and so a spectrum's dim: the kernel's row buffers are sized by it (models: <= 576).
inline constexpr int kMaxHeadDim = 65536;
// num_hidden_layers (models: <= 128); a list with one item per layer is as long.
inline constexpr int kMaxLayers = 65536;
// num_attention_heads and num_key_value_heads (models: <= 128).
inline constexpr int kMaxHeads = 65536;

}  // namespace ropecheck

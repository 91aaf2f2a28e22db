// File: layout.h
// Which channels of a rotary part form a pair: half = (i, i + r/2) (rotate_half: GPT-NeoX, HF's
// Llama-family checkpoints, Gemma, Qwen); interleaved = (2i, 2i+1) (GPT-J, Meta's complex form,
// Cohere, GLM, DeepSeek's rope_interleave). It never changes an activation, only where the kernel
// reads a pair.
#pragma once

#include <string>
#include <string_view>

namespace ropecheck {

enum class Layout { interleaved, half };

struct LayoutInfo {
  Layout value;
  std::string_view name;
};
// The one list of layouts: parsing, messages and Python's layout= read it.
inline constexpr LayoutInfo kLayouts[] = {{Layout::interleaved, "interleaved"}, {Layout::half, "half"}};

// Returns: "interleaved" or "half".
std::string layout_name(Layout layout);
// Returns: the layout `name` names. Throws InputError(input, "interleaved or half", name).
Layout parse_layout(const std::string& name, const std::string& input);

}  // namespace ropecheck

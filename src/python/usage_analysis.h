// File: usage_analysis.h
// ropecheck.usage from NumPy arrays: the library's usage analysis (usage/usage.h) on a capture held
// in memory, returned as the ropecheck-usage/1 JSON text the CLI writes.
#pragma once

#include <pybind11/numpy.h>

#include <string>

namespace ropecheck::python {

// q: float32 or float16 [sequences, layers, heads, tokens, head_dim], k: [..., kv_heads, ...];
// positions: integers, [tokens] or [sequences, tokens] (the package makes all three C-contiguous).
// Throws InputError naming "q", "k", "positions", "model" or an option.
std::string usage(const pybind11::array& q, const pybind11::array& k, const pybind11::array& positions, const std::string& model,
                  int threads, long long content_distance, long long break_limit, bool certify_breaks);

}  // namespace ropecheck::python

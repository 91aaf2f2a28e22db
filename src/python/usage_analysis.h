// File: usage_analysis.h
// ropecheck.usage, ropecheck.attention and capture.save's check from NumPy arrays: the library's
// usage analysis and attention maps (usage/usage.h) on a capture held in memory
// (usage/capture.h's memory_capture), and the checks open_capture applies to a capture file.
#pragma once

#include <pybind11/pybind11.h>

#include <optional>
#include <utility>
#include <vector>
#include <string>
#include <tuple>

namespace ropecheck::python {

// q: float32 or float16 [sequences, layers, heads, tokens, head_dim], k: [..., kv_heads, ...];
// positions: integers, [tokens] or [sequences, tokens] (the package makes all three C-contiguous).
// Arrays are read through the buffer protocol (python/array_view.h).
// token_ids: none, or integers shaped as positions (induction scores). options: usage::UsageOptions'
// fields by name (threads, content_distance, strong_match, break_rows, certify_breaks, break_limit,
// max_offset, lift, min_mass, alpha, null_sequences, null_repeats, null_seed), each optional.
// Returns: (the ropecheck-usage/2 JSON text the CLI writes, the CLI's table: usage/usage_text.h).
// Throws InputError naming "q", "k", "positions", "token_ids", "model" or the option.
std::pair<std::string, std::string> usage(const pybind11::object& q, const pybind11::object& k, const pybind11::object& positions,
                                          const std::optional<pybind11::object>& token_ids, const std::string& model,
                                          const pybind11::dict& options);

// One layer of a usage result: (q_norm, k_norm, the heads' kind names), as the usage JSON holds them.
using UsageLayerSummary = std::tuple<std::vector<double>, std::vector<double>, std::vector<std::string>>;

// Returns: the JSON of usage::compare_usage (correlation, per_layer, max_difference, points,
// kinds_agree or null, statement). Throws InputError naming "b" when the layers or pair counts
// differ, "a" or "b" for an unknown kind name.
std::string compare_usage(const std::vector<UsageLayerSummary>& a, const std::vector<UsageLayerSummary>& b);

// Returns: usage::attention_map of (layer, head, sequence) over the first `limit` tokens, float64
// [limit, limit] (limit clipped to the capture's tokens). Arguments as usage's; throws InputError
// naming "layer", "head" or "sequence" out of range. The GIL is released while it computes.
pybind11::object attention(const pybind11::object& q, const pybind11::object& k, const pybind11::object& positions,
                           const std::string& model, int layer, int head, long long sequence, long long limit);

// Returns: usage::attention_maps, every head of the layer, float64 [heads, limit, limit].
pybind11::object attention_layer(const pybind11::object& q, const pybind11::object& k, const pybind11::object& positions,
                                 const std::string& model, int layer, long long sequence, long long limit);

// Checks arrays as open_capture and the capture's blocks check a capture file holding them (the
// arrays' .npy descr, shapes, geometry, positions in [0, 2^40), token_ids' dtype and shape, the
// source text, every q and k value finite): q, k C-contiguous, descr '<f4' or '<f2'; positions and
// token_ids '<i8' or '<i4'; source a 0-d '<U<n>' array. Throws InputError naming "q", "k",
// "positions", "token_ids" or "source" (a NaN by its element: "q[0, 3, 1, 17, 5] = nan").
void check_capture(const pybind11::object& q, const pybind11::object& k, const pybind11::object& positions,
                   const std::optional<pybind11::object>& token_ids, const std::optional<pybind11::object>& source);

}  // namespace ropecheck::python

// File: detail/capture_checks.h
// The checks behind open_capture and memory_capture (usage/capture.h), shared by the file and the
// memory source. Private to src/usage.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "io/npz.h"
#include "usage/capture.h"

namespace ropecheck::usage {

// How errors and describe() name a capture's parts.
struct CaptureNames {
  std::string label;  // describe()'s start: the path, or "memory"
  std::string input;  // the flag ("--capture"); empty for memory
  std::string got;    // the start of an error's "got" part: "<path>: ", or empty

  // Returns: an InputError's input for `member`: "--capture: member 'q'", or "q" in memory.
  std::string of(const std::string& member) const { return input.empty() ? member : input + ": member '" + member + "'"; }
  static CaptureNames memory() { return {"memory", "", ""}; }
};

// A capture file's checked members, everything but q's and k's data.
struct CaptureMembers {
  CaptureGeometry geometry;
  Dtype q_dtype = Dtype::f32, k_dtype = Dtype::f32;
  CaptureNames names;
  std::vector<std::vector<long long>> positions;  // one entry (shape [tokens]) or one per sequence
  std::optional<std::string> source;
  std::vector<std::vector<long long>> token_ids;  // as positions; empty when absent
};

// Returns: the archive's members checked as usage/capture.h states (q and k by their headers and
// sizes only). Throws InputError naming the archive's input or the member.
CaptureMembers read_capture_members(const NpzArchive& archive);

// Checks a memory capture's geometry (each dimension >= 1, heads a multiple of kv_heads, head_dim
// even, sizes below 2^62 bytes) and pointers. Throws InputError naming "q", "k" or "positions".
void check_memory_capture(const CaptureGeometry& g, const void* q, const void* k);

// Returns: `positions` (tokens or sequences*tokens entries, sequence-major) as one list, or one per
// sequence. Throws InputError naming names.of("positions"): another count, or an entry outside
// [0, 2^40).
std::vector<std::vector<long long>> split_positions(const std::vector<long long>& positions, const CaptureGeometry& g,
                                                    const CaptureNames& names);

// Returns: token ids (tokens or sequences*tokens entries, already shape-checked) as one list or one
// per sequence, as split_positions does (any values).
std::vector<std::vector<long long>> split_tokens(const std::vector<long long>& values, const CaptureGeometry& g);
// Returns: the values of an '<i8' or '<i4' array.
std::vector<long long> integer_values(const NpyArray& a);

// Throws InputError naming names.of(which) and the element ("q[0, 3, 1, 17, 5] = nan") for the
// first NaN or infinite element of the block's q ("q") or k ("k").
void check_finite(const CaptureBlock& block, const std::string& which, const CaptureNames& names);

// Returns: "<label>: 4 sequences x 3 layers x 4/2 heads x 256 tokens x 32, float32" (with
// "q float32, k float16" when the dtypes differ).
std::string describe_capture(const std::string& label, const CaptureGeometry& g, Dtype q_dtype, Dtype k_dtype);

}  // namespace ropecheck::usage

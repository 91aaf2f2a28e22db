// File: capture.h
// Captures (issue 31): a trained model's pre-rotation queries and keys, as a NumPy .npz file
// (np.savez or np.savez_compressed) or as arrays in memory (Python). Members:
//   q          '<f4' or '<f2', shape [sequences, layers, heads, tokens, head_dim], C order
//   k          '<f4' or '<f2' (may differ from q's), shape [sequences, layers, kv_heads, tokens, head_dim]
//   positions  '<i8' or '<i4', shape [sequences, tokens] or [tokens] (the same for every sequence),
//              each in [0, 2^40) (not required to increase)
//   token_ids  optional, '<i8' or '<i4', shape [sequences, tokens] or [tokens]
//   source     optional, a 0-d '<U<n>' string array: free text (provenance)
// Every dimension is at least 1, heads a multiple of kv_heads, head_dim even. Any other member,
// and every violation, is an InputError naming the input and the member ("--capture: member 'k'").
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "numeric/dtype.h"

namespace ropecheck::usage {

// The dtypes a capture's q and k may have, in the order errors list them: each is read by its
// kDtypes entry (numeric/dtype.h): its .npy descr, its long name (describe()'s "float32") and its
// width. bfloat16 is not one: NumPy has no bfloat16, and '<u2' bits would be ambiguous.
inline constexpr Dtype kCaptureDtypes[] = {Dtype::f32, Dtype::f16};

// Throws std::invalid_argument("<who>: bf16 is not a capture dtype (float32 or float16)") unless t is
// one of kCaptureDtypes: a programming error (every reader maps its input to one of them first).
void require_capture_dtype(Dtype t, const char* who);

struct CaptureGeometry {
  long long sequences = 0, layers = 0, heads = 0, kv_heads = 0, tokens = 0, head_dim = 0;
};

// One (sequence, layer): q [heads][tokens][head_dim] and k [kv_heads][tokens][head_dim] as raw
// little-endian elements of their dtype (so a block costs what the file stores, not binary64).
struct CaptureBlock {
  long long sequence = 0, layer = 0;
  long long heads = 0, kv_heads = 0, tokens = 0, head_dim = 0;
  Dtype q_dtype = Dtype::f32, k_dtype = Dtype::f32;  // among kCaptureDtypes
  std::vector<unsigned char> q_bytes, k_bytes;

  // Writes q[head][t][c] for t < tokens, c < head_dim as binary64 (exact for f16 and f32) to
  // out[t*head_dim + c] (tokens*head_dim doubles). Throws std::out_of_range unless 0 <= head < heads.
  void q_head(long long head, double* out) const;
  // The same for k[kv_head]; throws std::out_of_range unless 0 <= kv_head < kv_heads.
  void k_head(long long kv_head, double* out) const;
};

class CaptureSource {
 public:
  virtual ~CaptureSource() = default;
  virtual const CaptureGeometry& geometry() const = 0;
  virtual Dtype q_dtype() const = 0;  // among kCaptureDtypes
  virtual Dtype k_dtype() const = 0;
  // Returns: the positions of `sequence`'s tokens (tokens entries). Throws std::out_of_range
  // unless 0 <= sequence < sequences.
  virtual const std::vector<long long>& positions(long long sequence) const = 0;
  virtual std::optional<std::string> source() const = 0;  // the `source` text, UTF-8
  virtual bool has_token_ids() const = 0;
  // Returns: `sequence`'s token ids (tokens entries), or nullptr without a token_ids member. Throws
  // std::out_of_range unless 0 <= sequence < sequences.
  virtual const std::vector<long long>* token_ids(long long sequence) const = 0;
  // The next block, sequence-major: (s0,l0), (s0,l1), ..., (s1,l0), ...; false after the last.
  // Reuses block's buffers. Throws InputError for a NaN/inf value (naming the element, e.g.
  // "q[0, 3, 1, 17, 5]") or a read error (a CRC mismatch surfaces with the last block).
  virtual bool next(CaptureBlock& block) = 0;
  // e.g. "toy.npz: 4 sequences x 3 layers x 4/2 heads x 256 tokens x 32, float32": the path as
  // given to open_capture ("memory" for memory_capture), with "q float32, k float16" when the
  // dtypes differ.
  virtual std::string describe() const = 0;
};

// Opens and validates a capture file; reads q and k lazily, one block at a time, from two libzip
// streams (peak memory: one block of q and k, plus positions), never the whole member. Throws
// InputError naming `input` (the archive) or "<input>: member '<name>'": not a zip, corrupt or
// truncated, a missing or unknown member, a wrong ndim, dtype or dimension, q and k disagreeing,
// heads not a multiple of kv_heads, an odd head_dim, positions of the wrong length or outside
// [0, 2^40), a member's data size not its header's, a source that is not a 0-d '<U<n>' string.
std::unique_ptr<CaptureSource> open_capture(const std::string& path, const std::string& input = "--capture");

// A capture in memory (Python: NumPy arrays), non-owning: q and k point to C-order arrays of the
// geometry's shapes in their dtypes (among kCaptureDtypes), and must outlive the source; positions has tokens or
// sequences*tokens entries. Validates like open_capture, naming "q", "k" and "positions" (the
// geometry's fields by the array they shape); NaN/inf values are found by next(), as for a file.
// token_ids, when given, has tokens or sequences*tokens entries (InputError "token_ids" otherwise).
std::unique_ptr<CaptureSource> memory_capture(const CaptureGeometry& g, Dtype q_dtype, const void* q, Dtype k_dtype,
                                              const void* k, const std::vector<long long>& positions,
                                              std::optional<std::string> source = std::nullopt,
                                              const std::vector<long long>* token_ids = nullptr);

// The member checks open_capture applies, for arrays held in memory before they are written
// (Python's capture.save): each throws InputError naming `member` ("q", "token_ids", ...) as
// open_capture names "<input>: member '<member>'". `descr` is the array's .npy descr ("<f4").
// Returns: the dtype of q or k: the kCaptureDtypes entry whose .npy descr is `descr` ('<f4' or '<f2').
Dtype capture_float_dtype(const std::string& descr, const std::string& member);
// positions or token_ids: descr '<i8' or '<i4', shape [tokens] or [sequences, tokens] (no value is
// checked here: memory_capture checks the positions' values).
void check_token_member(const std::string& descr, const std::vector<std::int64_t>& shape, const CaptureGeometry& g,
                        const std::string& member);
// Returns: the UTF-8 text of source, a 0-d '<U<n>' array (its bytes: UTF-32LE code points, NUL
// padded); throws for another dtype or shape, or a code point that is not Unicode text.
std::string capture_source_text(const std::string& descr, const std::vector<std::int64_t>& shape,
                                const std::vector<unsigned char>& bytes, const std::string& member);

}  // namespace ropecheck::usage

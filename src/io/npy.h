// File: npy.h
// NumPy .npy files (format versions 1.0, 2.0 and 3.0), read and written without NumPy: the
// tensors `ropecheck apply` and `ropecheck audit` exchange with PyTorch, vLLM or llama.cpp dumps.
// Accepted dtypes: '<f4' (float32), '<u2' (bfloat16 bit patterns), '<i8' and '<i4' (positions),
// '<f8' and '<f4' positions that are integers; the header parser also reads '<f2' (float16) and
// '<U<n>' (UTF-32LE strings of n code points) for .npz members (io/npz.h). C order only
// (fortran_order False).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ropecheck {

// The dtype and shape a .npy header states.
struct NpyHeader {
  std::string dtype;                 // as in the header descr: "<f4", "<f2", "<U12", ...
  std::vector<std::int64_t> shape;   // () for a scalar
};

struct NpyArray {
  std::string dtype;                 // as in the header descr: "<f4", "<u2", "<i8", ...
  std::vector<std::int64_t> shape;   // () for a scalar
  std::vector<unsigned char> bytes;  // the raw little-endian data, element count * item size

  std::int64_t elements() const;
};

// Reads a .npy file. Throws InputError naming `input` (the flag, e.g. "--input") with the reason:
// unreadable file, bad magic, unsupported version, a header it cannot parse, fortran order, a
// dtype outside `accepted_dtypes` (listing them), or a data section shorter or longer than the
// shape says (truncated file).
NpyArray read_npy(const std::string& path, const std::string& input, const std::vector<std::string>& accepted_dtypes);

// The header of a .npy file held in memory or read from a stream, in two steps: the prefix size
// from the first bytes, then the header from the whole prefix. `where` names the file (or archive
// member) in messages, e.g. "caps.npz: member 'q'".
//
// Returns: the size of the magic, version, header length and header together (the offset of the
// data section), from `start`, the first min(12, file size) bytes. Throws InputError naming
// `input`: bad magic, unsupported version, too few bytes.
std::size_t npy_prefix_size(const unsigned char* start, std::size_t size, const std::string& input, const std::string& where);

// Returns: the header parsed from `prefix`, the file's first npy_prefix_size(...) bytes. Throws
// InputError naming `input`, as read_npy does: a header it cannot parse, fortran order, a
// big-endian or unknown dtype, a dtype outside `accepted_dtypes` (listing them; empty: any
// little-endian numeric dtype), a shape of 2^62 bytes or more.
NpyHeader parse_npy_header(const unsigned char* prefix, std::size_t size, const std::string& input, const std::string& where,
                           const std::vector<std::string>& accepted_dtypes);

// Returns: the item size of a simple dtype descr ("<f4": 4, "<f2": 2, "<U5": 20); 0 for any other
// (structured, object, or unknown kinds).
std::size_t npy_item_size(const std::string& dtype);

// Returns: the size of the data section `header` describes (elements * item size; the header was
// checked by parse_npy_header, so it is below 2^62).
std::uint64_t npy_data_size(const NpyHeader& header);

// Writes `array` as a version 1.0 .npy file atomically (io/atomic_write.h). Throws InputError
// naming `input` when the target cannot be written.
void write_npy(const std::string& path, const NpyArray& array, const std::string& input);

// Returns: Python's repr of a shape tuple: (), (n,), (a, b), as NumPy writes it in a header.
std::string shape_repr(const std::vector<std::int64_t>& shape);

// Returns: positions as int64 from an '<i8', '<i4', '<f8' or '<f4' array of `expected` elements.
// Throws InputError naming `input`: count mismatch, NaN or infinite or non-integer float positions,
// or a float position outside [-2^63, 2^63); an '<f4' position beyond +-2^24, where float32 no
// longer holds every integer (the stored value may be a rounding of the intended position).
std::vector<std::int64_t> positions_from_npy(const NpyArray& array, std::int64_t expected, const std::string& input);

}  // namespace ropecheck

#include "io/npy.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

#include "io/atomic_write.h"
#include "io/file_bytes.h"
#include "io/input_error.h"

namespace ropecheck {

// The data bytes are handed over as they are in the file: only a little-endian host reads
// little-endian data without swapping.
static_assert(std::endian::native == std::endian::little, "ropecheck's .npy I/O assumes a little-endian host");

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLen = 6;
// NumPy aligns the data section to 64 bytes (numpy.lib.format.ARRAY_ALIGN) so that it can be
// memory-mapped for any dtype; its readers do not require it, but we write it the same way.
constexpr std::size_t kArrayAlign = 64;
// NumPy >= 1.20 leaves room to rewrite the header in place when the first axis grows
// (numpy.lib.format.GROWTH_AXIS_MAX_DIGITS): it pads by 21 - len(repr(shape[0])) spaces.
constexpr std::size_t kGrowthAxisMaxDigits = 21;

std::string quoted_list(std::vector<std::string> items) {
  for (std::string& item : items) item = "'" + item + "'";
  return or_list(items);
}

// Returns: the item size of a simple dtype descr such as "<f4", "|u1", "<i8", "<U5" (4 bytes per
// code point); 0 when `descr` is not a byte order character, a kind among b i u f U, and a count.
std::size_t item_size(const std::string& descr) {
  if (descr.size() < 3) return 0;
  if (descr[0] != '<' && descr[0] != '>' && descr[0] != '|' && descr[0] != '=') return 0;
  if (std::string("biufU").find(descr[1]) == std::string::npos) return 0;
  std::size_t n = 0;
  for (std::size_t i = 2; i < descr.size(); ++i) {
    if (descr[i] < '0' || descr[i] > '9' || n > 1000000) return 0;
    n = n * 10 + static_cast<std::size_t>(descr[i] - '0');
  }
  return descr[1] == 'U' ? 4 * n : n;
}

// A parser for the one Python literal NumPy writes as the header: a dict of 'descr' (a string),
// 'fortran_order' (True/False) and 'shape' (a tuple of non-negative ints). NumPy reads it with
// ast.literal_eval; anything else a real NumPy file never contains, so it is rejected.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& input, const std::string& path)
      : s_(text), input_(input), path_(path) {}

  void parse(std::string& descr, bool& fortran, std::vector<std::int64_t>& shape) {
    bool have_descr = false, have_fortran = false, have_shape = false;
    skip_space();
    expect('{');
    for (;;) {
      skip_space();
      if (peek() == '}') {
        ++i_;
        break;
      }
      const std::string key = parse_string();
      skip_space();
      expect(':');
      skip_space();
      if (key == "descr") {
        if (peek() != '\'' && peek() != '"')
          fail("'descr' a simple dtype string such as '<f4' (structured dtypes are not supported)");
        descr = parse_string();
        have_descr = true;
      } else if (key == "fortran_order") {
        fortran = parse_bool();
        have_fortran = true;
      } else if (key == "shape") {
        shape = parse_shape();
        have_shape = true;
      } else {
        fail("only the keys 'descr', 'fortran_order', 'shape' (found key '" + key + "')");
      }
      skip_space();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      skip_space();
      expect('}');
      break;
    }
    skip_space();
    if (i_ != s_.size()) fail("nothing after the closing brace but spaces and a newline");
    if (!have_descr || !have_fortran || !have_shape) fail("all three keys 'descr', 'fortran_order' and 'shape'");
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(input_, "a .npy file whose header dict has " + what,
                     path_ + ": header " + excerpt() + " at character " + std::to_string(i_));
  }
  std::string excerpt() const {
    std::string e = s_.substr(0, 120);
    while (!e.empty() && (e.back() == ' ' || e.back() == '\n')) e.pop_back();
    for (char& c : e)
      if (c == '\n' || c == '\r') c = ' ';
    return "\"" + e + (s_.size() > 120 ? "...\"" : "\"");
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void skip_space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("Python dict syntax ('") + c + "' expected)");
    ++i_;
  }
  std::string parse_string() {
    const char q = peek();
    if (q != '\'' && q != '"') fail("quoted string keys");
    ++i_;
    std::string out;
    while (i_ < s_.size() && s_[i_] != q) {
      if (s_[i_] == '\\') fail("strings without escapes");
      out += s_[i_++];
    }
    expect(q);
    return out;
  }
  bool parse_bool() {
    if (s_.compare(i_, 4, "True") == 0) {
      i_ += 4;
      return true;
    }
    if (s_.compare(i_, 5, "False") == 0) {
      i_ += 5;
      return false;
    }
    fail("'fortran_order' True or False");
  }
  std::vector<std::int64_t> parse_shape() {
    expect('(');
    std::vector<std::int64_t> shape;
    for (;;) {
      skip_space();
      if (peek() == ')') {
        ++i_;
        break;
      }
      if (peek() < '0' || peek() > '9') fail("'shape' a tuple of non-negative integers");
      std::int64_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        if (v > (std::numeric_limits<std::int64_t>::max() - 9) / 10) fail("'shape' dimensions below 2^63");
        v = v * 10 + (s_[i_++] - '0');
      }
      if (peek() == 'L') ++i_;  // Python 2 long literal, as NumPy's own reader tolerates
      shape.push_back(v);
      skip_space();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      expect(')');
      break;
    }
    return shape;
  }

  const std::string& s_;
  const std::string& input_;
  const std::string& path_;
  std::size_t i_ = 0;
};

}  // namespace

std::string shape_repr(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

std::int64_t NpyArray::elements() const {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

std::size_t npy_item_size(const std::string& dtype) { return item_size(dtype); }

std::uint64_t npy_data_size(const NpyHeader& header) {
  std::uint64_t n = item_size(header.dtype);
  for (std::int64_t d : header.shape) n *= static_cast<std::uint64_t>(d);
  return n;
}

std::size_t npy_prefix_size(const unsigned char* start, std::size_t size, const std::string& input, const std::string& where) {
  const std::string complete = "a complete .npy file";
  if (size < kMagicLen || std::memcmp(start, kMagic, kMagicLen) != 0)
    throw InputError(input, "a NumPy .npy file (starting with \\x93NUMPY)", where + ": not a .npy file");
  if (size < kMagicLen + 2) throw InputError(input, complete, where + ": file is truncated inside the version bytes");
  const int major = start[6];
  const int minor = start[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    throw InputError(input, "a .npy file of format version 1.0, 2.0 or 3.0",
                     where + ": version " + std::to_string(major) + "." + std::to_string(minor));
  // Version 1.0 stores the header length in 2 bytes, 2.0 and 3.0 in 4 (3.0 only changes the
  // header's encoding from latin-1 to UTF-8, which the ASCII keys and values do not see).
  const std::size_t len_bytes = major == 1 ? 2 : 4;
  const std::size_t prefix = kMagicLen + 2 + len_bytes;
  if (size < prefix) throw InputError(input, complete, where + ": file is truncated inside the header length");
  std::size_t header_len = 0;
  for (std::size_t i = 0; i < len_bytes; ++i) header_len |= static_cast<std::size_t>(start[kMagicLen + 2 + i]) << (8 * i);
  return prefix + header_len;
}

namespace {

// parse_npy_header, and read_npy's stricter reading of an empty `accepted_dtypes` (numeric only).
NpyHeader parse_header(const unsigned char* bytes, std::size_t size, const std::string& input, const std::string& where,
                       const std::vector<std::string>& accepted_dtypes, bool numeric_only) {
  const std::size_t total = npy_prefix_size(bytes, std::min<std::size_t>(size, 12), input, where);
  const std::size_t prefix = bytes[6] == 1 ? kMagicLen + 4 : kMagicLen + 6;
  if (size < total)
    throw InputError(input, "a complete .npy file",
                     where + ": file is truncated: the header needs " + std::to_string(total - prefix) + " bytes, found " +
                         std::to_string(size - prefix));
  const std::string text(reinterpret_cast<const char*>(bytes) + prefix, total - prefix);

  NpyHeader h;
  bool fortran = false;
  HeaderParser(text, input, where).parse(h.dtype, fortran, h.shape);

  if (fortran)
    throw InputError(input, "a .npy file in C order (fortran_order False; save np.ascontiguousarray(x))",
                     where + ": fortran_order True");
  const std::size_t size_of_item = item_size(h.dtype);
  bool accepted = size_of_item > 0 && h.dtype[0] != '>' && !(numeric_only && accepted_dtypes.empty() && h.dtype[1] == 'U');
  if (accepted && !accepted_dtypes.empty()) {
    accepted = false;
    for (const std::string& d : accepted_dtypes) accepted = accepted || d == h.dtype;
  }
  if (!accepted) {
    const std::string what = !accepted_dtypes.empty() ? "dtype " + quoted_list(accepted_dtypes)
                             : numeric_only          ? "a little-endian numeric dtype such as '<f4'"
                                                     : "a little-endian numeric or '<U<n>' string dtype such as '<f4'";
    std::string got = where + ": dtype '" + h.dtype + "'";
    if (!h.dtype.empty() && h.dtype[0] == '>') got += " (big-endian: save x.astype('<" + h.dtype.substr(1) + "') instead)";
    throw InputError(input, "a little-endian .npy file of " + what, got);
  }

  // Elements and bytes, refusing sizes no file can have (and whose product would overflow): the
  // data section, elements * item size, must stay below kMaxBytes, i.e. at most kMaxBytes - 1.
  constexpr std::int64_t kMaxBytes = std::int64_t{1} << 62;
  std::int64_t elements = 1;
  for (std::int64_t d : h.shape) {
    if (d != 0 && elements > (kMaxBytes - 1) / static_cast<std::int64_t>(size_of_item) / d)
      throw InputError(input, "a .npy file of fewer than 2^62 bytes", where + ": shape " + shape_repr(h.shape));
    elements *= d;
  }
  return h;
}

}  // namespace

NpyHeader parse_npy_header(const unsigned char* prefix, std::size_t size, const std::string& input, const std::string& where,
                           const std::vector<std::string>& accepted_dtypes) {
  return parse_header(prefix, size, input, where, accepted_dtypes, false);
}

NpyArray read_npy(const std::string& path, const std::string& input, const std::vector<std::string>& accepted_dtypes) {
  const std::string file = read_file_bytes(path, input, "a readable .npy file");
  const auto* bytes = reinterpret_cast<const unsigned char*>(file.data());
  NpyHeader h = parse_header(bytes, file.size(), input, path, accepted_dtypes, true);
  const std::size_t data_offset = npy_prefix_size(bytes, std::min<std::size_t>(file.size(), 12), input, path);
  const std::size_t needed = static_cast<std::size_t>(npy_data_size(h));
  const std::size_t found = file.size() - data_offset;
  if (found != needed)
    throw InputError(input, "a complete .npy file",
                     path + ": file " + (found < needed ? "is truncated" : "has trailing bytes") + ": shape " +
                         shape_repr(h.shape) + " needs " + std::to_string(needed) + " bytes of data, found " +
                         std::to_string(found));
  NpyArray a;
  a.dtype = std::move(h.dtype);
  a.shape = std::move(h.shape);
  a.bytes.assign(file.begin() + static_cast<std::ptrdiff_t>(data_offset), file.end());
  return a;
}

void write_npy(const std::string& path, const NpyArray& array, const std::string& input) {
  const std::size_t size = item_size(array.dtype);
  if (size == 0 || array.dtype[0] == '>') throw std::logic_error("write_npy: unsupported dtype '" + array.dtype + "'");
  for (std::int64_t d : array.shape)
    if (d < 0) throw std::logic_error("write_npy: negative dimension in shape " + shape_repr(array.shape));
  if (array.bytes.size() != static_cast<std::size_t>(array.elements()) * size)
    throw std::logic_error("write_npy: " + std::to_string(array.bytes.size()) + " bytes for shape " +
                           shape_repr(array.shape) + " of dtype '" + array.dtype + "'");
  // Byte for byte what NumPy 1.24's np.save writes (format.py, _write_array_header and
  // _wrap_header): the dict with sorted keys and a trailing ", ", the growth-axis spaces, then
  // 1..64 spaces and a newline so that the data starts at a multiple of 64.
  std::string header = "{'descr': '" + array.dtype + "', 'fortran_order': False, 'shape': " + shape_repr(array.shape) + ", }";
  if (!array.shape.empty()) header += std::string(kGrowthAxisMaxDigits - std::to_string(array.shape[0]).size(), ' ');
  const std::size_t hlen = header.size() + 1;
  const std::size_t padlen = kArrayAlign - ((kMagicLen + 4 + hlen) % kArrayAlign);
  const std::size_t total_header = hlen + padlen;
  if (total_header > 0xFFFF) throw std::logic_error("write_npy: header too long for format 1.0");
  std::string out(kMagic, kMagicLen);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(total_header & 0xFF);
  out += static_cast<char>(total_header >> 8);
  out += header;
  out += std::string(padlen, ' ');
  out += '\n';
  out.append(reinterpret_cast<const char*>(array.bytes.data()), array.bytes.size());
  atomic_write(path, out, input);
}

std::vector<std::int64_t> positions_from_npy(const NpyArray& array, std::int64_t expected, const std::string& input) {
  const std::int64_t n = array.elements();
  if (n != expected)
    throw InputError(input, std::to_string(expected) + " positions (one per token of the input)",
                     std::to_string(n) + " positions, shape " + shape_repr(array.shape));
  std::vector<std::int64_t> out(static_cast<std::size_t>(n));
  const unsigned char* p = array.bytes.data();
  auto check_size = [&](std::size_t item) {
    if (array.bytes.size() != static_cast<std::size_t>(n) * item)
      throw std::logic_error("positions_from_npy: byte count disagrees with the shape");
  };
  // A float position must name an integer exactly: the rotation is defined at integer positions,
  // and silently rounding 2.5 or NaN would rotate by an angle nobody asked for.
  auto from_float = [&](double v, std::size_t i) {
    if (std::isnan(v) || std::isinf(v) || v != std::floor(v) || v < -0x1p63 || v >= 0x1p63) {
      std::ostringstream got;
      got << v << " at index " << i;
      throw InputError(input, "integer positions in [-2^63, 2^63) (negative positions are allowed)", got.str());
    }
    return static_cast<std::int64_t>(v);
  };
  if (array.dtype == "<i8") {
    check_size(8);
    if (!out.empty()) std::memcpy(out.data(), p, out.size() * 8);  // no positions: data() may be null
  } else if (array.dtype == "<i4") {
    check_size(4);
    for (std::size_t i = 0; i < out.size(); ++i) {
      std::int32_t v;
      std::memcpy(&v, p + 4 * i, 4);
      out[i] = v;
    }
  } else if (array.dtype == "<f8") {
    check_size(8);
    for (std::size_t i = 0; i < out.size(); ++i) {
      double v;
      std::memcpy(&v, p + 8 * i, 8);
      out[i] = from_float(v, i);
    }
  } else if (array.dtype == "<f4") {
    check_size(4);
    for (std::size_t i = 0; i < out.size(); ++i) {
      float v;
      std::memcpy(&v, p + 4 * i, 4);
      // Above 2^24 a float32 cannot hold every integer: 16777217 is stored as 16777216, so the
      // value may be another position than the one the writer meant. Refused, never rounded.
      if (std::fabs(v) > 0x1p24f) {
        std::ostringstream got;
        got << std::setprecision(9) << v << " at index " << i;
        throw InputError(input, "'<f4' positions within [-2^24, 2^24] (float32 holds every integer only there; store larger ones as '<i8')",
                         got.str());
      }
      out[i] = from_float(v, i);
    }
  } else {
    throw InputError(input, "positions of dtype '<i8', '<i4', '<f8' or '<f4'", "dtype '" + array.dtype + "'");
  }
  return out;
}

}  // namespace ropecheck

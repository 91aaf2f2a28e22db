#include "usage/detail/capture_checks.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>

#include "io/input_error.h"
#include "io/npy.h"
#include "numeric/small_floats.h"

namespace ropecheck::usage {

namespace {

constexpr long long kPositionLimit = 1LL << 40;
const std::vector<std::string> kMembers = {"q", "k", "positions", "token_ids", "source"};
const std::vector<std::string> kIntDtypes = {"<i8", "<i4"};
const char* const kQShape = "[sequences, layers, heads, tokens, head_dim]";
const char* const kKShape = "[sequences, layers, kv_heads, tokens, head_dim]";

std::string index_text(const std::string& name, const std::vector<long long>& index) {
  std::string s = name + "[";
  for (std::size_t i = 0; i < index.size(); ++i) s += (i == 0 ? "" : ", ") + std::to_string(index[i]);
  return s + "]";
}

std::string comma_list(const std::vector<std::string>& items) {
  std::string s;
  for (std::size_t i = 0; i < items.size(); ++i) s += (i == 0 ? "" : ", ") + items[i];
  return s;
}

std::string quoted(const std::vector<std::string>& items) {
  std::vector<std::string> q;
  for (const std::string& i : items) q.push_back("'" + i + "'");
  return or_list(q);
}

Dtype float_dtype(const NpyHeader& h, const std::string& member, const CaptureNames& names) {
  std::vector<std::string> descrs, long_names;
  for (Dtype t : kCaptureDtypes) {
    if (h.dtype == dtype_info(t).npy) return t;
    descrs.emplace_back(dtype_info(t).npy);
    long_names.push_back(dtype_long_name(t));
  }
  throw InputError(names.of(member), "an array of dtype " + quoted(descrs) + " (" + or_list(long_names) + ")",
                   names.got + "dtype '" + h.dtype + "'");
}

void check_int_member(const NpyHeader& h, const std::string& member, const CaptureNames& names) {
  if (std::find(kIntDtypes.begin(), kIntDtypes.end(), h.dtype) == kIntDtypes.end())
    throw InputError(names.of(member), "an array of dtype " + quoted(kIntDtypes), names.got + "dtype '" + h.dtype + "'");
}

// Positions and token_ids: shape [tokens] or [sequences, tokens].
void check_token_shape(const std::vector<std::int64_t>& shape, const CaptureGeometry& g, const std::string& member,
                       const CaptureNames& names) {
  const bool ok = (shape.size() == 1 && shape[0] == g.tokens) ||
                  (shape.size() == 2 && shape[0] == g.sequences && shape[1] == g.tokens);
  if (!ok)
    throw InputError(names.of(member),
                     "an array of shape [tokens] = (" + std::to_string(g.tokens) + ",) or [sequences, tokens] = (" +
                         std::to_string(g.sequences) + ", " + std::to_string(g.tokens) + ")",
                     names.got + "shape " + shape_repr(shape));
}

// The UTF-8 text of a 0-d '<U<n>' array (NumPy pads shorter strings with NUL code points).
std::string source_text(const NpyArray& a, const CaptureNames& names, const std::string& member = "source") {
  if (a.dtype.size() < 3 || a.dtype.compare(0, 2, "<U") != 0 || !a.shape.empty())
    throw InputError(names.of(member), "a 0-d string array (np.array(\"text\"), dtype '<U<n>')",
                     names.got + "dtype '" + a.dtype + "', shape " + shape_repr(a.shape));
  std::vector<std::uint32_t> points(a.bytes.size() / 4);
  std::memcpy(points.data(), a.bytes.data(), points.size() * 4);
  while (!points.empty() && points.back() == 0) points.pop_back();
  std::string out;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::uint32_t c = points[i];
    if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
      throw InputError(names.of(member), "Unicode text (code points up to U+10FFFF, no surrogates)",
                       names.got + "code point " + std::to_string(c) + " at index " + std::to_string(i));
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

// Each dimension >= 1, heads a multiple of kv_heads, head_dim even: q's dimensions named by q,
// kv_heads by k. `q_shape` and `k_shape` are the arrays' shapes for the message.
void check_dimensions(const CaptureGeometry& g, const std::string& q_shape, const std::string& k_shape, const CaptureNames& names) {
  auto positive = [&](long long v, const char* what, const std::string& member, const std::string& shape) {
    if (v < 1)
      throw InputError(names.of(member), std::string("an array with ") + what + " >= 1 (shape " + (member == "q" ? kQShape : kKShape) + ")",
                       names.got + "shape " + shape);
  };
  positive(g.sequences, "sequences", "q", q_shape);
  positive(g.layers, "layers", "q", q_shape);
  positive(g.heads, "heads", "q", q_shape);
  positive(g.tokens, "tokens", "q", q_shape);
  positive(g.kv_heads, "kv_heads", "k", k_shape);
  if (g.head_dim < 2 || g.head_dim % 2 != 0)
    throw InputError(names.of("q"), std::string("an array whose head_dim (last axis) is even and >= 2 (shape ") + kQShape + ")",
                     names.got + "shape " + q_shape);
  if (g.heads % g.kv_heads != 0)
    throw InputError(names.of("k"), "an array whose kv_heads divides q's heads (" + std::to_string(g.heads) + ")",
                     names.got + "shape " + k_shape + ", kv_heads " + std::to_string(g.kv_heads));
}

std::string shape_text(const std::vector<long long>& dims) {
  return shape_repr(std::vector<std::int64_t>(dims.begin(), dims.end()));
}

}  // namespace

std::vector<std::vector<long long>> split_tokens(const std::vector<long long>& values, const CaptureGeometry& g) {
  const auto tokens = static_cast<std::size_t>(g.tokens);
  std::vector<std::vector<long long>> out(values.size() == tokens ? 1 : static_cast<std::size_t>(g.sequences));
  for (std::size_t s = 0; s < out.size(); ++s)
    out[s].assign(values.begin() + static_cast<std::ptrdiff_t>(s * tokens), values.begin() + static_cast<std::ptrdiff_t>((s + 1) * tokens));
  return out;
}

std::vector<long long> integer_values(const NpyArray& a) {
  std::vector<long long> values(static_cast<std::size_t>(a.elements()));
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (a.dtype == "<i8") {
      std::int64_t v;
      std::memcpy(&v, a.bytes.data() + 8 * i, 8);
      values[i] = v;
    } else {
      std::int32_t v;
      std::memcpy(&v, a.bytes.data() + 4 * i, 4);
      values[i] = v;
    }
  }
  return values;
}

CaptureMembers read_capture_members(const NpzArchive& archive) {
  CaptureMembers m;
  m.names = CaptureNames{archive.path(), archive.input(), archive.path() + ": "};
  const CaptureNames& names = m.names;
  const std::vector<std::string> present = archive.members();
  for (const std::string& name : present)
    if (std::find(kMembers.begin(), kMembers.end(), name) == kMembers.end())
      throw InputError(names.of(name), "one of a capture's members q, k, positions, token_ids or source",
                       names.got + "member '" + name + "'");
  for (const char* required : {"q", "k", "positions"})
    if (!archive.has(required))
      throw InputError(names.of(required), "present: a capture has members q, k and positions (token_ids and source optional)",
                       names.got + "members " + (present.empty() ? std::string("none") : comma_list(present)));

  const NpyHeader q = archive.header("q");
  const NpyHeader k = archive.header("k");
  m.q_dtype = float_dtype(q, "q", names);
  m.k_dtype = float_dtype(k, "k", names);
  if (q.shape.size() != 5)
    throw InputError(names.of("q"), std::string("an array of shape ") + kQShape + " (5 dimensions)", names.got + "shape " + shape_repr(q.shape));
  if (k.shape.size() != 5)
    throw InputError(names.of("k"), std::string("an array of shape ") + kKShape + " (5 dimensions)", names.got + "shape " + shape_repr(k.shape));
  CaptureGeometry& g = m.geometry;
  g = {q.shape[0], q.shape[1], q.shape[2], k.shape[2], q.shape[3], q.shape[4]};
  const char* axes[] = {"sequences", "layers", "", "tokens", "head_dim"};
  for (int axis : {0, 1, 3, 4})
    if (k.shape[axis] != q.shape[axis])
      throw InputError(names.of("k"), std::string("an array of shape ") + kKShape + " agreeing with q's shape " + shape_repr(q.shape) +
                                          " on sequences, layers, tokens and head_dim",
                       names.got + "shape " + shape_repr(k.shape) + ": " + axes[axis] + " " + std::to_string(k.shape[axis]));
  check_dimensions(g, shape_repr(q.shape), shape_repr(k.shape), names);

  const NpyHeader p = archive.header("positions");
  check_int_member(p, "positions", names);
  check_token_shape(p.shape, g, "positions", names);
  m.positions = split_positions(integer_values(archive.read("positions", kIntDtypes)), g, names);

  if (archive.has("token_ids")) {
    const NpyHeader t = archive.header("token_ids");
    check_int_member(t, "token_ids", names);
    check_token_shape(t.shape, g, "token_ids", names);
    m.token_ids = split_tokens(integer_values(archive.read("token_ids", kIntDtypes)), g);
  }
  if (archive.has("source")) {
    const NpyHeader s = archive.header("source");
    m.source = source_text(archive.read("source", {s.dtype}), names);
  }
  return m;
}

void check_memory_capture(const CaptureGeometry& g, const void* q, const void* k) {
  const CaptureNames names = CaptureNames::memory();
  const std::string q_shape = shape_text({g.sequences, g.layers, g.heads, g.tokens, g.head_dim});
  const std::string k_shape = shape_text({g.sequences, g.layers, g.kv_heads, g.tokens, g.head_dim});
  check_dimensions(g, q_shape, k_shape, names);
  // Elements below 2^62 / 4 bytes, the product checked factor by factor.
  constexpr long long kMaxElements = (1LL << 62) / 4;
  long long elements = 1;
  for (long long d : {g.sequences, g.layers, std::max(g.heads, g.kv_heads), g.tokens, g.head_dim}) {
    if (elements > kMaxElements / d)
      throw InputError(names.of("q"), "an array of fewer than 2^62 bytes", "shape " + q_shape + ", k " + k_shape);
    elements *= d;
  }
  if (q == nullptr) throw InputError("q", "an array of shape " + q_shape, "a null pointer");
  if (k == nullptr) throw InputError("k", "an array of shape " + k_shape, "a null pointer");
}

std::vector<std::vector<long long>> split_positions(const std::vector<long long>& positions, const CaptureGeometry& g,
                                                    const CaptureNames& names) {
  const auto tokens = static_cast<std::size_t>(g.tokens);
  const bool shared = positions.size() == tokens;
  if (!shared && positions.size() != tokens * static_cast<std::size_t>(g.sequences))
    throw InputError(names.of("positions"),
                     std::to_string(g.tokens) + " or " + std::to_string(g.sequences) + " x " + std::to_string(g.tokens) +
                         " positions (tokens, or sequences x tokens)",
                     names.got + std::to_string(positions.size()) + " positions");
  std::vector<std::vector<long long>> out(shared ? 1 : static_cast<std::size_t>(g.sequences));
  for (std::size_t s = 0; s < out.size(); ++s) {
    out[s].assign(positions.begin() + static_cast<std::ptrdiff_t>(s * tokens),
                  positions.begin() + static_cast<std::ptrdiff_t>((s + 1) * tokens));
    for (std::size_t t = 0; t < tokens; ++t) {
      const long long v = out[s][t];
      if (v < 0 || v >= kPositionLimit) {
        const std::vector<long long> index = shared ? std::vector<long long>{static_cast<long long>(t)}
                                                    : std::vector<long long>{static_cast<long long>(s), static_cast<long long>(t)};
        throw InputError(names.of("positions"), "positions in [0, 2^40) (any order)",
                         names.got + index_text("positions", index) + " = " + std::to_string(v));
      }
    }
  }
  return out;
}

void check_finite(const CaptureBlock& block, const std::string& which, const CaptureNames& names) {
  const bool is_q = which == "q";
  const Dtype dtype = is_q ? block.q_dtype : block.k_dtype;
  const std::vector<unsigned char>& bytes = is_q ? block.q_bytes : block.k_bytes;
  // Every element widened exactly (with_storage: one loop per kernel dtype; f64 is refused); the
  // first non-finite one with its value.
  struct Bad {
    std::size_t i;
    double value;
  };
  const std::optional<Bad> bad = with_storage(dtype, [&](auto e) -> std::optional<Bad> {
    using E = decltype(e);
    const std::size_t n = bytes.size() / sizeof(E);
    for (std::size_t i = 0; i < n; ++i) {
      std::memcpy(&e, bytes.data() + sizeof(E) * i, sizeof(E));
      if (const double v = widen(e); !std::isfinite(v)) return Bad{i, v};
    }
    return std::nullopt;
  });
  if (!bad) return;
  const std::size_t i = bad->i;
  const double value = bad->value;
  const auto per_head = static_cast<std::size_t>(block.tokens * block.head_dim);
  const auto head_dim = static_cast<std::size_t>(block.head_dim);
  const std::vector<long long> index = {block.sequence, block.layer, static_cast<long long>(i / per_head),
                                        static_cast<long long>(i % per_head / head_dim), static_cast<long long>(i % head_dim)};
  const std::string text = value != value ? "nan" : value > 0 ? "inf" : "-inf";
  throw InputError(names.of(which), "finite values (no NaN or infinity)", names.got + index_text(which, index) + " = " + text);
}

Dtype capture_float_dtype(const std::string& descr, const std::string& member) {
  NpyHeader h;
  h.dtype = descr;
  return float_dtype(h, member, CaptureNames::memory());
}

void check_token_member(const std::string& descr, const std::vector<std::int64_t>& shape, const CaptureGeometry& g,
                        const std::string& member) {
  NpyHeader h;
  h.dtype = descr;
  h.shape = shape;
  check_int_member(h, member, CaptureNames::memory());
  check_token_shape(h.shape, g, member, CaptureNames::memory());
}

std::string capture_source_text(const std::string& descr, const std::vector<std::int64_t>& shape,
                                const std::vector<unsigned char>& bytes, const std::string& member) {
  NpyArray a;
  a.dtype = descr;
  a.shape = shape;
  a.bytes = bytes;
  return source_text(a, CaptureNames::memory(), member);
}

std::string describe_capture(const std::string& label, const CaptureGeometry& g, Dtype q_dtype, Dtype k_dtype) {
  std::string s = label + ": " + std::to_string(g.sequences) + " sequences x " + std::to_string(g.layers) + " layers x " +
                  std::to_string(g.heads) + "/" + std::to_string(g.kv_heads) + " heads x " + std::to_string(g.tokens) +
                  " tokens x " + std::to_string(g.head_dim) + ", ";
  if (q_dtype == k_dtype) return s + dtype_long_name(q_dtype);
  return s + "q " + dtype_long_name(q_dtype) + ", k " + dtype_long_name(k_dtype);
}

}  // namespace ropecheck::usage

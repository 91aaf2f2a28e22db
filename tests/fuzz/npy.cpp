// Fuzz target npy: a .npy file's bytes (io/npy.h), through
//   - npy_prefix_size and parse_npy_header in memory (how .npz members are read);
//   - read_npy from a file (how `apply` and `audit` read tensors and positions), then the shapes
//     apply and audit accept (rope_tensor_shape, every axis order) and positions_from_npy;
//   - the round trip: an accepted array written by write_npy reads back with the same dtype, shape
//     and bytes.
#include <algorithm>
#include <cstring>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "io/npy.h"
#include "io/rope_tensor_shape.h"

namespace {

using namespace ropecheck;

void in_memory(const std::uint8_t* data, std::size_t size) {
  fuzz::accepted([&] {
    const std::size_t prefix = npy_prefix_size(data, std::min<std::size_t>(size, 12), "member", "fuzz.npz: member 'x'");
    if (prefix > size) return;
    const NpyHeader h = parse_npy_header(data, prefix, "member", "fuzz.npz: member 'x'", {});
    fuzz::check(npy_item_size(h.dtype) > 0, [&] { return "parse_npy_header accepted dtype '" + h.dtype + "' without an item size"; });
    fuzz::check(npy_data_size(h) < (std::uint64_t{1} << 62), [&] { return "parse_npy_header accepted shape " + shape_repr(h.shape) + " of 2^62 bytes or more"; });
  });
}

void shapes(const NpyArray& a) {
  fuzz::accepted([&] { rope_tensor_shape(a.shape, "--input"); });
  for (const TensorAxesInfo& axes : kTensorAxes)
    for (std::int64_t head_dim : {std::int64_t{0}, std::int64_t{2}, std::int64_t{4}})
      fuzz::accepted([&] {
        const RopeTensorShape s = rope_tensor_shape(a.shape, axes.value, head_dim, "--input");
        fuzz::check(s.head_dim >= 2 && s.head_dim % 2 == 0, [&] { return "rope_tensor_shape accepted head_dim " + std::to_string(s.head_dim); });
        fuzz::check(s.batch >= 0 && s.tokens >= 0 && s.heads >= 0, [&] { return "rope_tensor_shape gave a negative dimension for " + shape_repr(a.shape); });
        if (a.dtype != "<f4" || a.bytes.empty() || static_cast<std::int64_t>(a.bytes.size()) != s.batch * s.slice_elements() * 4) return;
        std::vector<float> x(a.bytes.size() / 4);
        std::memcpy(x.data(), a.bytes.data(), a.bytes.size());
        const std::vector<float> y = from_token_major(s, to_token_major(s, x));
        fuzz::check(std::memcmp(x.data(), y.data(), a.bytes.size()) == 0, [&] { return "from_token_major(to_token_major(x)) != x for " + shape_repr(a.shape); });
      });
}

void round_trip(const NpyArray& a) {
  // NumPy's own arrays have at most 64 dimensions; a header for thousands of them no longer fits
  // the 1.0 format write_npy writes (which it refuses, as a logic error of its caller).
  if (a.shape.size() > 64) return;
  const std::string again = (fuzz::ScratchDir::path() / "again.npy").string();
  write_npy(again, a, "--output");
  const NpyArray b = read_npy(again, "--output", {a.dtype});
  fuzz::check(b.dtype == a.dtype && b.shape == a.shape && b.bytes == a.bytes, [&] { return "write_npy then read_npy changed dtype '" + a.dtype + "' shape " + shape_repr(a.shape); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  in_memory(data, size);
  const std::string path = fuzz::scratch_file("input.npy", std::string_view(reinterpret_cast<const char*>(data), size));
  NpyArray a;
  if (!fuzz::accepted([&] { a = read_npy(path, "--input", {}); })) return 0;
  fuzz::check(static_cast<std::uint64_t>(a.bytes.size()) == npy_data_size(NpyHeader{a.dtype, a.shape}), [&] { return "read_npy returned " + std::to_string(a.bytes.size()) + " bytes for shape " + shape_repr(a.shape); });
  shapes(a);
  fuzz::accepted([&] { positions_from_npy(a, a.elements(), "--positions"); });
  round_trip(a);
  return 0;
}

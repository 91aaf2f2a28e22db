// Fuzz target npz: a .npz archive's bytes, written to a scratch file (libzip reads paths), through
//   - NpzArchive (io/npz.h): every member's name, header, whole read, and stream read to its end;
//   - open_capture (usage/capture.h), the reader of `ropecheck usage --capture`: its geometry,
//     positions, source text and description, then every block in order with every head of q and
//     k converted to binary64.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "io/npz.h"
#include "usage/capture.h"

namespace {

using namespace ropecheck;

void archive(const std::string& path) {
  std::unique_ptr<NpzArchive> a;
  if (!fuzz::accepted([&] { a = std::make_unique<NpzArchive>(path, "--capture"); })) return;
  for (const std::string& name : a->members()) {
    fuzz::accepted([&] { a->header(name); });
    fuzz::accepted([&] {
      const NpyArray x = a->read(name, {});
      fuzz::check(x.bytes.size() == npy_data_size(NpyHeader{x.dtype, x.shape}), "NpzArchive::read: data size differs from the header's");
    });
    fuzz::accepted([&] {
      NpzArchive::Stream s = a->open(name);
      std::vector<unsigned char> buffer(4096);
      while (s.remaining() > 0) {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(s.remaining(), buffer.size()));
        s.read(buffer.data(), n);
      }
      s.finish();
    });
  }
}

void capture(const std::string& path) {
  std::unique_ptr<usage::CaptureSource> c;
  if (!fuzz::accepted([&] { c = usage::open_capture(path); })) return;
  const usage::CaptureGeometry& g = c->geometry();
  fuzz::check(g.sequences >= 1 && g.layers >= 1 && g.heads >= 1 && g.kv_heads >= 1 && g.tokens >= 1 && g.head_dim >= 2 &&
                  g.head_dim % 2 == 0 && g.heads % g.kv_heads == 0, [&] { return "open_capture accepted the geometry " + c->describe(); });
  for (long long s = 0; s < g.sequences; ++s) {
    const std::vector<long long>& p = c->positions(s);
    fuzz::check(static_cast<long long>(p.size()) == g.tokens, [&] { return "positions(" + std::to_string(s) + ") has " + std::to_string(p.size()) + " entries"; });
    for (long long x : p) fuzz::check(x >= 0 && x < (1LL << 40), [&] { return "a position outside [0, 2^40): " + std::to_string(x); });
  }
  c->source();
  c->has_token_ids();
  fuzz::accepted([&] {
    usage::CaptureBlock block;
    std::vector<double> row(static_cast<std::size_t>(g.tokens * g.head_dim));
    long long blocks = 0;
    while (c->next(block)) {
      fuzz::check(block.sequence == blocks / g.layers && block.layer == blocks % g.layers, "blocks out of order");
      for (long long h = 0; h < block.heads; ++h) block.q_head(h, row.data());
      for (long long h = 0; h < block.kv_heads; ++h) block.k_head(h, row.data());
      ++blocks;
    }
    fuzz::check(blocks == g.sequences * g.layers, [&] { return "next() gave " + std::to_string(blocks) + " blocks"; });
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::scratch_file("input.npz", std::string_view(reinterpret_cast<const char*>(data), size));
  archive(path);
  capture(path);
  return 0;
}

#include "usage/capture.h"

#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>
#include <stdexcept>
#include <utility>

#include "io/input_error.h"
#include "io/npz.h"
#include "numeric/small_floats.h"
#include "usage/detail/capture_checks.h"
#include "usage/detail/capture_source.h"

namespace ropecheck::usage {

void require_capture_dtype(Dtype t, const char* who) {
  for (Dtype c : kCaptureDtypes)
    if (c == t) return;
  std::string accepted;
  for (std::size_t i = 0; i < std::size(kCaptureDtypes); ++i)
    accepted += (i == 0 ? "" : i + 1 == std::size(kCaptureDtypes) ? " or " : ", ") + dtype_long_name(kCaptureDtypes[i]);
  throw std::invalid_argument(std::string(who) + ": " + dtype_name(t) + " is not a capture dtype (" + accepted + ")");
}

namespace {

void decode(const std::vector<unsigned char>& bytes, Dtype dtype, std::size_t first, std::size_t count, double* out) {
  const auto size = static_cast<std::size_t>(dtype_info(dtype).bytes);
  if ((first + count) * size > bytes.size()) throw std::logic_error("CaptureBlock: the block's bytes are shorter than its shape");
  const unsigned char* p = bytes.data() + first * size;
  if (dtype != Dtype::f16) {
    // Any other kernel dtype by its exact widening (with_storage refuses f64).
    with_storage(dtype, [&](auto e) {
      for (std::size_t i = 0; i < count; ++i) {
        decltype(e) v;
        std::memcpy(&v, p + sizeof v * i, sizeof v);
        out[i] = widen(v);
      }
    });
  } else {
    // Every binary16 pattern decoded once (to_double, exact): a block is ~10^7 values.
    static const std::vector<double> table = [] {
      std::vector<double> t(65536);
      for (std::uint32_t b = 0; b < 65536; ++b) t[b] = to_double(F16Bits{static_cast<std::uint16_t>(b)});
      return t;
    }();
    for (std::size_t i = 0; i < count; ++i) {
      std::uint16_t v;
      std::memcpy(&v, p + 2 * i, 2);
      out[i] = table[v];
    }
  }
}

}  // namespace

void CaptureBlock::q_head(long long head, double* out) const {
  if (head < 0 || head >= heads) throw std::out_of_range("CaptureBlock::q_head: head " + std::to_string(head) + " of " + std::to_string(heads));
  const auto n = static_cast<std::size_t>(tokens * head_dim);
  decode(q_bytes, q_dtype, static_cast<std::size_t>(head) * n, n, out);
}

void CaptureBlock::k_head(long long kv_head, double* out) const {
  if (kv_head < 0 || kv_head >= kv_heads)
    throw std::out_of_range("CaptureBlock::k_head: kv_head " + std::to_string(kv_head) + " of " + std::to_string(kv_heads));
  const auto n = static_cast<std::size_t>(tokens * head_dim);
  decode(k_bytes, k_dtype, static_cast<std::size_t>(kv_head) * n, n, out);
}

const std::vector<long long>& SourceBase::positions(long long sequence) const {
  if (sequence < 0 || sequence >= p_.geometry.sequences)
    throw std::out_of_range("CaptureSource::positions: sequence " + std::to_string(sequence) + " of " + std::to_string(p_.geometry.sequences));
  return p_.positions.size() == 1 ? p_.positions[0] : p_.positions[static_cast<std::size_t>(sequence)];
}

const std::vector<long long>* SourceBase::token_ids(long long sequence) const {
  if (sequence < 0 || sequence >= p_.geometry.sequences)
    throw std::out_of_range("CaptureSource::token_ids: sequence " + std::to_string(sequence) + " of " + std::to_string(p_.geometry.sequences));
  if (p_.token_ids.empty()) return nullptr;
  return p_.token_ids.size() == 1 ? &p_.token_ids[0] : &p_.token_ids[static_cast<std::size_t>(sequence)];
}

bool SourceBase::next(CaptureBlock& block) {
  const CaptureGeometry& g = p_.geometry;
  if (sequence_ >= g.sequences) return false;
  block.sequence = sequence_;
  block.layer = layer_;
  block.heads = g.heads;
  block.kv_heads = g.kv_heads;
  block.tokens = g.tokens;
  block.head_dim = g.head_dim;
  block.q_dtype = p_.q_dtype;
  block.k_dtype = p_.k_dtype;
  const auto per_head = static_cast<std::size_t>(g.tokens * g.head_dim);
  block.q_bytes.resize(static_cast<std::size_t>(g.heads) * per_head * static_cast<std::size_t>(dtype_info(p_.q_dtype).bytes));
  block.k_bytes.resize(static_cast<std::size_t>(g.kv_heads) * per_head * static_cast<std::size_t>(dtype_info(p_.k_dtype).bytes));
  const bool last = sequence_ + 1 == g.sequences && layer_ + 1 == g.layers;
  read_block(block, last);
  check_finite(block, "q", p_.names);
  check_finite(block, "k", p_.names);
  if (++layer_ == g.layers) {
    layer_ = 0;
    ++sequence_;
  }
  return true;
}

namespace {

class FileSource final : public SourceBase {
 public:
  FileSource(NpzArchive archive, const CaptureMembers& m)
      : SourceBase({m.geometry, m.q_dtype, m.k_dtype, m.names, m.positions, m.source, m.token_ids}),
        archive_(std::move(archive)),
        q_(archive_.open("q")),
        k_(archive_.open("k")) {}

 private:
  void read_block(CaptureBlock& block, bool last) override {
    q_.read(block.q_bytes.data(), block.q_bytes.size());
    k_.read(block.k_bytes.data(), block.k_bytes.size());
    if (last) {
      q_.finish();
      k_.finish();
    }
  }

  NpzArchive archive_;  // declared before the streams, which it must outlive
  NpzArchive::Stream q_, k_;
};

class MemorySource final : public SourceBase {
 public:
  MemorySource(const CaptureGeometry& g, Dtype qd, const void* q, Dtype kd, const void* k,
               std::vector<std::vector<long long>> positions, std::optional<std::string> source, std::vector<std::vector<long long>> tokens)
      : SourceBase({g, qd, kd, CaptureNames::memory(), std::move(positions), std::move(source), std::move(tokens)}),
        q_(static_cast<const unsigned char*>(q)),
        k_(static_cast<const unsigned char*>(k)) {}

 private:
  void read_block(CaptureBlock& block, bool) override {
    std::memcpy(block.q_bytes.data(), q_ + q_offset_, block.q_bytes.size());
    std::memcpy(block.k_bytes.data(), k_ + k_offset_, block.k_bytes.size());
    q_offset_ += block.q_bytes.size();
    k_offset_ += block.k_bytes.size();
  }

  const unsigned char* q_;
  const unsigned char* k_;
  std::size_t q_offset_ = 0, k_offset_ = 0;
};

}  // namespace

std::unique_ptr<CaptureSource> open_capture(const std::string& path, const std::string& input) {
  NpzArchive archive(path, input);
  const CaptureMembers members = read_capture_members(archive);
  return std::make_unique<FileSource>(std::move(archive), members);
}

std::unique_ptr<CaptureSource> memory_capture(const CaptureGeometry& g, Dtype q_dtype, const void* q, Dtype k_dtype,
                                              const void* k, const std::vector<long long>& positions,
                                              std::optional<std::string> source, const std::vector<long long>* token_ids) {
  require_capture_dtype(q_dtype, "memory_capture");
  require_capture_dtype(k_dtype, "memory_capture");
  check_memory_capture(g, q, k);
  std::vector<std::vector<long long>> split = split_positions(positions, g, CaptureNames::memory());
  std::vector<std::vector<long long>> tokens;
  if (token_ids) {
    if (token_ids->size() != static_cast<std::size_t>(g.tokens) && token_ids->size() != static_cast<std::size_t>(g.tokens * g.sequences))
      throw InputError("token_ids", std::to_string(g.tokens) + " or " + std::to_string(g.sequences) + " x " + std::to_string(g.tokens) + " token ids",
                       std::to_string(token_ids->size()) + " token ids");
    tokens = split_tokens(*token_ids, g);
  }
  return std::make_unique<MemorySource>(g, q_dtype, q, k_dtype, k, std::move(split), std::move(source), std::move(tokens));
}

}  // namespace ropecheck::usage

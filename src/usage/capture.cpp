#include "usage/capture.h"

#include <cstdint>
#include <cstring>
#include <vector>
#include <stdexcept>
#include <utility>

#include "io/input_error.h"
#include "io/npz.h"
#include "numeric/small_floats.h"
#include "usage/detail/capture_checks.h"

namespace ropecheck::usage {

const char* capture_dtype_name(CaptureDtype dtype) {
  switch (dtype) {
    case CaptureDtype::f32:
      return "float32";
    case CaptureDtype::f16:
      return "float16";
  }
  throw std::logic_error("capture_dtype_name: unknown dtype");
}

std::size_t capture_dtype_size(CaptureDtype dtype) {
  switch (dtype) {
    case CaptureDtype::f32:
      return 4;
    case CaptureDtype::f16:
      return 2;
  }
  throw std::logic_error("capture_dtype_size: unknown dtype");
}

namespace {

void decode(const std::vector<unsigned char>& bytes, CaptureDtype dtype, std::size_t first, std::size_t count, double* out) {
  const std::size_t size = capture_dtype_size(dtype);
  if ((first + count) * size > bytes.size()) throw std::logic_error("CaptureBlock: the block's bytes are shorter than its shape");
  const unsigned char* p = bytes.data() + first * size;
  if (dtype == CaptureDtype::f32) {
    for (std::size_t i = 0; i < count; ++i) {
      float v;
      std::memcpy(&v, p + 4 * i, 4);
      out[i] = v;
    }
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

namespace {

// What both sources share: the geometry, positions, and the block loop; a source supplies the
// bytes of the next block.
class SourceBase : public CaptureSource {
 public:
  SourceBase(CaptureGeometry g, CaptureDtype qd, CaptureDtype kd, CaptureNames names)
      : g_(g), q_dtype_(qd), k_dtype_(kd), names_(std::move(names)) {}

  const CaptureGeometry& geometry() const override { return g_; }
  CaptureDtype q_dtype() const override { return q_dtype_; }
  CaptureDtype k_dtype() const override { return k_dtype_; }
  const std::vector<long long>& positions(long long sequence) const override {
    if (sequence < 0 || sequence >= g_.sequences)
      throw std::out_of_range("CaptureSource::positions: sequence " + std::to_string(sequence) + " of " + std::to_string(g_.sequences));
    return positions_.size() == 1 ? positions_[0] : positions_[static_cast<std::size_t>(sequence)];
  }
  std::optional<std::string> source() const override { return source_; }
  bool has_token_ids() const override { return has_token_ids_; }
  const std::vector<long long>* token_ids(long long sequence) const override {
    if (sequence < 0 || sequence >= g_.sequences)
      throw std::out_of_range("CaptureSource::token_ids: sequence " + std::to_string(sequence) + " of " + std::to_string(g_.sequences));
    if (token_ids_.empty()) return nullptr;
    return token_ids_.size() == 1 ? &token_ids_[0] : &token_ids_[static_cast<std::size_t>(sequence)];
  }
  std::string describe() const override { return describe_capture(names_.label, g_, q_dtype_, k_dtype_); }

  bool next(CaptureBlock& block) override {
    if (sequence_ >= g_.sequences) return false;
    block.sequence = sequence_;
    block.layer = layer_;
    block.heads = g_.heads;
    block.kv_heads = g_.kv_heads;
    block.tokens = g_.tokens;
    block.head_dim = g_.head_dim;
    block.q_dtype = q_dtype_;
    block.k_dtype = k_dtype_;
    const auto per_head = static_cast<std::size_t>(g_.tokens * g_.head_dim);
    block.q_bytes.resize(static_cast<std::size_t>(g_.heads) * per_head * capture_dtype_size(q_dtype_));
    block.k_bytes.resize(static_cast<std::size_t>(g_.kv_heads) * per_head * capture_dtype_size(k_dtype_));
    const bool last = sequence_ + 1 == g_.sequences && layer_ + 1 == g_.layers;
    read_block(block, last);
    check_finite(block, "q", names_);
    check_finite(block, "k", names_);
    if (++layer_ == g_.layers) {
      layer_ = 0;
      ++sequence_;
    }
    return true;
  }

 protected:
  // Fills block.q_bytes and block.k_bytes (sized) with the block's data; `last`: no block follows.
  virtual void read_block(CaptureBlock& block, bool last) = 0;

  CaptureGeometry g_;
  CaptureDtype q_dtype_, k_dtype_;
  CaptureNames names_;
  std::vector<std::vector<long long>> positions_;  // one entry (every sequence) or one per sequence
  std::optional<std::string> source_;
  bool has_token_ids_ = false;
  std::vector<std::vector<long long>> token_ids_;  // as positions_; empty without token ids

 private:
  long long sequence_ = 0, layer_ = 0;
};

class FileSource final : public SourceBase {
 public:
  FileSource(NpzArchive archive, const CaptureMembers& m)
      : SourceBase(m.geometry, m.q_dtype, m.k_dtype, m.names),
        archive_(std::move(archive)),
        q_(archive_.open("q")),
        k_(archive_.open("k")) {
    positions_ = m.positions;
    source_ = m.source;
    has_token_ids_ = m.has_token_ids;
    token_ids_ = m.token_ids;
  }

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
  MemorySource(const CaptureGeometry& g, CaptureDtype qd, const void* q, CaptureDtype kd, const void* k,
               std::vector<std::vector<long long>> positions, std::optional<std::string> source, std::vector<std::vector<long long>> tokens)
      : SourceBase(g, qd, kd, CaptureNames::memory()), q_(static_cast<const unsigned char*>(q)), k_(static_cast<const unsigned char*>(k)) {
    positions_ = std::move(positions);
    source_ = std::move(source);
    has_token_ids_ = !tokens.empty();
    token_ids_ = std::move(tokens);
  }

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

std::unique_ptr<CaptureSource> memory_capture(const CaptureGeometry& g, CaptureDtype q_dtype, const void* q, CaptureDtype k_dtype,
                                              const void* k, const std::vector<long long>& positions,
                                              std::optional<std::string> source, const std::vector<long long>* token_ids) {
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

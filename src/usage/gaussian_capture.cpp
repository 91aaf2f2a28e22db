#include "usage/gaussian_capture.h"

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "random/normal_sampler.h"

namespace ropecheck::usage {

namespace {

class GaussianSource final : public CaptureSource {
 public:
  explicit GaussianSource(GaussianCaptureSpec spec) : s_(std::move(spec)) {}
  const CaptureGeometry& geometry() const override { return s_.geometry; }
  CaptureDtype q_dtype() const override { return CaptureDtype::f32; }
  CaptureDtype k_dtype() const override { return CaptureDtype::f32; }
  const std::vector<long long>& positions(long long sequence) const override { return s_.positions.at(static_cast<size_t>(sequence)); }
  std::optional<std::string> source() const override { return std::nullopt; }
  bool has_token_ids() const override { return !s_.token_ids.empty(); }
  const std::vector<long long>* token_ids(long long sequence) const override {
    if (sequence < 0 || sequence >= s_.geometry.sequences) throw std::out_of_range("GaussianSource::token_ids");
    return s_.token_ids.empty() ? nullptr : &s_.token_ids[static_cast<size_t>(sequence)];
  }
  std::string describe() const override {
    const CaptureGeometry& g = s_.geometry;
    return "Gaussian null (seed " + std::to_string(s_.seed) + "): " + std::to_string(g.sequences) + " sequences x " + std::to_string(g.layers) +
           " layers x " + std::to_string(g.heads) + "/" + std::to_string(g.kv_heads) + " heads x " + std::to_string(g.tokens) + " tokens x " +
           std::to_string(g.head_dim) + ", float32";
  }

  bool next(CaptureBlock& block) override {
    const CaptureGeometry& g = s_.geometry;
    if (sequence_ >= g.sequences) return false;
    block.sequence = sequence_;
    block.layer = layer_;
    block.heads = g.heads;
    block.kv_heads = g.kv_heads;
    block.tokens = g.tokens;
    block.head_dim = g.head_dim;
    block.q_dtype = block.k_dtype = CaptureDtype::f32;
    const auto per_head = static_cast<size_t>(g.tokens * g.head_dim);
    block.q_bytes.resize(static_cast<size_t>(g.heads) * per_head * 4);
    block.k_bytes.resize(static_cast<size_t>(g.kv_heads) * per_head * 4);
    z_.resize(per_head);
    const std::uint64_t streams = static_cast<std::uint64_t>(g.heads + g.kv_heads);
    const std::uint64_t base = (static_cast<std::uint64_t>(sequence_) * static_cast<std::uint64_t>(g.layers) + static_cast<std::uint64_t>(layer_)) * streams;
    auto fill = [&](std::vector<unsigned char>& bytes, long long head, std::uint64_t stream, double rms) {
      normal_fill(s_.seed, stream, 0, z_);
      for (size_t i = 0; i < per_head; ++i) {
        const float v = static_cast<float>(rms * z_[i]);
        std::memcpy(bytes.data() + (static_cast<size_t>(head) * per_head + i) * 4, &v, 4);
      }
    };
    for (long long h = 0; h < g.heads; ++h)
      fill(block.q_bytes, h, base + static_cast<std::uint64_t>(h), s_.q_rms[static_cast<size_t>(layer_ * g.heads + h)]);
    for (long long h = 0; h < g.kv_heads; ++h)
      fill(block.k_bytes, h, base + static_cast<std::uint64_t>(g.heads + h), s_.k_rms[static_cast<size_t>(layer_ * g.kv_heads + h)]);
    if (++layer_ == g.layers) {
      layer_ = 0;
      ++sequence_;
    }
    return true;
  }

 private:
  GaussianCaptureSpec s_;
  std::vector<double> z_;
  long long sequence_ = 0, layer_ = 0;
};

}  // namespace

std::unique_ptr<CaptureSource> gaussian_capture(GaussianCaptureSpec spec) {
  const CaptureGeometry& g = spec.geometry;
  if (spec.q_rms.size() != static_cast<size_t>(g.layers * g.heads) || spec.k_rms.size() != static_cast<size_t>(g.layers * g.kv_heads))
    throw std::invalid_argument("gaussian_capture: rms sizes");
  if (spec.positions.size() != static_cast<size_t>(g.sequences) || (!spec.token_ids.empty() && spec.token_ids.size() != spec.positions.size()))
    throw std::invalid_argument("gaussian_capture: positions or token ids");
  for (const std::vector<double>* v : {&spec.q_rms, &spec.k_rms})
    for (double x : *v)
      if (!(x >= 0) || !std::isfinite(x)) throw std::invalid_argument("gaussian_capture: rms must be finite and >= 0");
  return std::make_unique<GaussianSource>(std::move(spec));
}

}  // namespace ropecheck::usage

#include "usage/gaussian_capture.h"

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "random/normal_sampler.h"
#include "usage/detail/capture_source.h"

namespace ropecheck::usage {

namespace {

class GaussianSource final : public SourceBase {
 public:
  explicit GaussianSource(GaussianCaptureSpec spec)
      : SourceBase({spec.geometry, Dtype::f32, Dtype::f32, CaptureNames{"Gaussian null (seed " + std::to_string(spec.seed) + ")", "", ""},
                    spec.positions, std::nullopt, spec.token_ids}),
        s_(std::move(spec)) {}

 private:
  void read_block(CaptureBlock& block, bool) override {
    const CaptureGeometry& g = s_.geometry;
    const auto per_head = static_cast<size_t>(g.tokens * g.head_dim);
    z_.resize(per_head);
    const std::uint64_t streams = static_cast<std::uint64_t>(g.heads + g.kv_heads);
    const std::uint64_t base =
        (static_cast<std::uint64_t>(block.sequence) * static_cast<std::uint64_t>(g.layers) + static_cast<std::uint64_t>(block.layer)) * streams;
    auto fill = [&](std::vector<unsigned char>& bytes, long long head, std::uint64_t stream, double rms) {
      normal_fill(s_.seed, stream, 0, z_);
      for (size_t i = 0; i < per_head; ++i) {
        const float v = static_cast<float>(rms * z_[i]);
        std::memcpy(bytes.data() + (static_cast<size_t>(head) * per_head + i) * 4, &v, 4);
      }
    };
    for (long long h = 0; h < g.heads; ++h)
      fill(block.q_bytes, h, base + static_cast<std::uint64_t>(h), s_.q_rms[static_cast<size_t>(block.layer * g.heads + h)]);
    for (long long h = 0; h < g.kv_heads; ++h)
      fill(block.k_bytes, h, base + static_cast<std::uint64_t>(g.heads + h), s_.k_rms[static_cast<size_t>(block.layer * g.kv_heads + h)]);
  }

  GaussianCaptureSpec s_;
  std::vector<double> z_;
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

// The attention maps of usage.h (attention_map, attention_maps): one (sequence, layer) block of a
// capture, the model's exact RoPE, for figures and for Python's ropecheck.attention.
#include <memory>
#include <span>

#include "io/input_error.h"
#include "usage/detail/layer_settings.h"
#include "usage/usage.h"

namespace ropecheck::usage {

namespace {

// The base attention of the query heads [first, last) of (layer, sequence): the block read once,
// each kv head rotated once (heads in order, so a head's matrix does not depend on the range).
// cell > 0: pooled over the whole sequence in cells of that many tokens (limit unused).
std::vector<RowMatrix> attention_of_heads(const ModelDescription& model, CaptureSource& capture, int layer, int first, int last,
                                          long long sequence, long long limit, long long cell = 0) {
  const CaptureGeometry& g = capture.geometry();
  const std::vector<const LayerType*> type_of = detail::layer_types_of(model, g);
  if (layer < 0 || layer >= g.layers) throw InputError("layer", "an integer in [0, " + std::to_string(g.layers - 1) + "]", std::to_string(layer));
  if (sequence < 0 || sequence >= g.sequences)
    throw InputError("sequence", "an integer in [0, " + std::to_string(g.sequences - 1) + "]", std::to_string(sequence));
  const LayerType* lt = type_of[static_cast<size_t>(layer)];
  const LayerPairs lp = layer_pairs(*lt);
  const int D = static_cast<int>(g.head_dim);
  const long long T = g.tokens;
  const int group = static_cast<int>(g.heads / g.kv_heads);
  const AttentionSettings st = detail::settings_of(model, *lt, UsageOptions{});
  CaptureBlock block;
  while (capture.next(block)) {
    if (block.sequence != sequence || block.layer != layer) continue;
    const std::vector<long long>& positions = capture.positions(sequence);
    const std::vector<std::int64_t> pos(positions.begin(), positions.end());
    std::unique_ptr<kernel::SinCosTable> table;
    if (lp.plan) table = std::make_unique<kernel::SinCosTable>(*lp.plan, std::span<const std::int64_t>(pos));
    std::vector<double> x(static_cast<size_t>(T * D));
    std::vector<RowMatrix> out;
    out.reserve(static_cast<size_t>(last - first));
    int kv_rotated = -1;
    RotatedHead k, q;
    for (int head = first; head < last; ++head) {
      if (head / group != kv_rotated) {
        kv_rotated = head / group;
        block.k_head(kv_rotated, x.data());
        rotate_head(lp, table.get(), x.data(), T, D, k);
      }
      block.q_head(head, x.data());
      rotate_head(lp, table.get(), x.data(), T, D, q);
      out.push_back(cell > 0 ? pooled_attention_rows(q, k, st, cell) : attention_rows(q, k, st, limit));
    }
    return out;
  }
  throw InputError("sequence", "a block present in the capture", std::to_string(sequence));
}

}  // namespace

RowMatrix attention_map(const ModelDescription& model, CaptureSource& capture, int layer, int head, long long sequence, long long limit) {
  const CaptureGeometry& g = capture.geometry();
  detail::layer_types_of(model, g);  // the capture's fit to the model, then layer, head, sequence
  if (layer < 0 || layer >= g.layers) throw InputError("layer", "an integer in [0, " + std::to_string(g.layers - 1) + "]", std::to_string(layer));
  if (head < 0 || head >= g.heads) throw InputError("head", "an integer in [0, " + std::to_string(g.heads - 1) + "]", std::to_string(head));
  return std::move(attention_of_heads(model, capture, layer, head, head + 1, sequence, limit).front());
}

RowMatrix pooled_attention_map(const ModelDescription& model, CaptureSource& capture, int layer, int head, long long sequence, long long cell) {
  const CaptureGeometry& g = capture.geometry();
  detail::layer_types_of(model, g);
  if (head < 0 || head >= g.heads) throw InputError("head", "an integer in [0, " + std::to_string(g.heads - 1) + "]", std::to_string(head));
  if (cell < 1 || cell > g.tokens) throw InputError("cell", "an integer in [1, " + std::to_string(g.tokens) + "]", std::to_string(cell));
  return std::move(attention_of_heads(model, capture, layer, head, head + 1, sequence, 0, cell).front());
}

std::vector<RowMatrix> attention_maps(const ModelDescription& model, CaptureSource& capture, int layer, long long sequence,
                                      long long limit) {
  return attention_of_heads(model, capture, layer, 0, static_cast<int>(capture.geometry().heads), sequence, limit);
}

}  // namespace ropecheck::usage

// File: usage_figures.h
// The usage analysis's figures, like the paper's (report/figure.h renders them; CSV beside each):
//   usage-q-layers, usage-k-layers   layer x pair heat maps of the mean chunk norm (Figs. 3, 10), one
//                                    colour scale; band edges, frequencies and the span's pair marked
//   usage-heads-layer-<L>            head x pair query usage for one layer (Fig. 4): the layer with
//                                    the most positional heads (the first on a tie), rows named by kind
//   usage-kv-heads-layer-<L>         the same layer's keys per kv head, on the queries' colour scale
//   usage-attention-<kind>           the attention map of the strongest diagonal and previous-token
//                                    head on sequence 0, its whole length pooled into <= 256 cells a
//                                    side, log colour scale (Fig. 5) ...
//   usage-attention-<kind>-pairs     ... and that head's query and key usage per pair (Fig. 6)
//   usage-ablations                  per head, the mean TV distance of both ablations
//   usage-compare                    two captures' per-pair usage shares side by side (Fig. 19),
//                                    layer x pair, A left of B (usage/usage_compare.h)
// Every figure is a measurement on the capture; its caption says so and gives the sample size.
#pragma once

#include <string>
#include <vector>

#include "report/section.h"
#include "usage/usage.h"
#include "usage/usage_compare.h"

namespace ropecheck::report {

struct AttentionPanel {
  int layer = 0, head = 0;
  std::string kind;  // "diagonal" or "previous-token"
  long long sequence = 0;
  long long cell = 1;    // tokens per cell of `map` (usage::pooled_attention_map)
  usage::RowMatrix map;
};

// Fills every panel's map: the whole of sequence 0 of the capture at `path`, pooled into at most
// kAttentionCells cells a side. `what` names the capture in an InputError.
inline constexpr long long kAttentionCells = 256;
void draw_panels(const ModelDescription& model, const std::string& path, const std::string& what, std::vector<AttentionPanel>& panels);

// Returns: the heads whose attention maps the figures show: the strongest diagonal and the
// strongest previous-token head (by their mean), when the capture has them.
std::vector<AttentionPanel> panels_to_draw(const usage::UsageResult& r);

std::vector<Figure> usage_figures(const usage::UsageResult& r, const std::vector<AttentionPanel>& panels);

// Writes usage.json, the figures (CSV, script, SVG, PNG) and nothing else into `target`, a
// directory that must not exist yet: built in a temporary beside it and renamed into place.
// Throws InputError("--out", ...) for a target that exists or whose parent cannot be written.
// `extra`: more figures written beside them (usage-compare).
void write_usage_directory(const std::string& target, const usage::UsageResult& r, const std::vector<AttentionPanel>& panels,
                           const std::vector<Figure>& extra = {});

// Returns: usage-compare of a and b (same layers and pair counts: usage::compare_usage's check).
Figure comparison_figure(const usage::UsageResult& a, const usage::UsageResult& b, const usage::UsageSimilarity& s, const std::string& a_name,
                         const std::string& b_name);

}  // namespace ropecheck::report

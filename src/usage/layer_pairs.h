// File: layer_pairs.h
// The pairs of one layer type's head, as the usage analyses see them: every rotary block pair of
// the model's plan (kernel/rope_plan.h: which two channels, its exact frequency), then the channels
// the rotation never touches, paired in channel order (c, c + 1) and reported at frequency 0
// (MLA's nope part, GPT-NeoX's rotary_pct rest, every channel of a NoPE layer).
//
// Bands, for the Section 5 share and the ablations: the rotating pairs (frequency > 0) sorted by
// frequency, fastest first (ties in pair order); `fast` is the first quarter of them and `slow` the
// last quarter (floor(rotating / 4) each, as p-RoPE 0.75 drops floor(d/2 / 4) pairs), `middle` the
// rest; `still` holds the zero-frequency pairs (p-RoPE's removed pairs and the pass-through ones).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kernel/rope_plan.h"
#include "spectrum/model.h"

namespace ropecheck::usage {

enum class Band { fast, middle, slow, still };
std::string band_name(Band b);  // "fast", "middle", "slow", "still"


struct HeadPair {
  int first = 0, second = 0;  // channel indices in the head vector
  int block = -1;             // the plan's block pair, -1 for a pass-through pair
  double frequency = 0;       // radians per token, the exact frequency rounded to binary64 (0: still)
  Band band = Band::still;
};

struct LayerPairs {
  std::optional<kernel::RopePlan> plan;  // none for a NoPE layer type
  std::vector<HeadPair> pairs;           // block pairs in block order, then pass-through pairs
  int rotating = 0;                      // pairs with frequency > 0
  int quarter = 0;                       // floor(rotating / 4): the size of `fast` and of `slow`
  double attention_factor = 1;           // a (1 when none): multiplies cos and sin, so a^2 every rotary product

};

// Returns: the pairs of `layer_type`. Throws InputError("head_dim", ...) for an odd count of
// pass-through channels (no model has one).
LayerPairs layer_pairs(const LayerType& layer_type);

}  // namespace ropecheck::usage

// File: presets.h
// Named heads for `ropecheck fuzz --config NAME` and the required cases.
//
//   gemma-7b-apostrophe   gemma-7b (d = 256, theta 10000), pair 119 only (the paper counts from 1:
//                         0-based index 118, g = 10000^(-236/256), as in proofs/semantic-channel.cpp), the Appendix E.1 vectors
//                         as printed (binary64 of the decimals): query q_notBOS = (-4.1, 11.3),
//                         target key k_BOS = (-2.5, 1.3), distractor key k_notBOS = (11.2, -3.5).
//                         The target is the BOS token of the paper's head, modelled as a target
//                         that swaps may move (the thm-6.1 two-type channel); no fixed sink.
//   gemma-7b-band8        the same three 2-vectors in each of the 8 lowest-frequency pairs (0-based 120..127)
//                         with the keys scaled by 1/8 (exact), so the activation at distance 0 equals
//                         the single channel's; the 8 pairs then dephase at their own speeds.
//   llama-3.1-8b-band8    the same over llama-3.1-8b's 8 lowest pairs (56..63, llama3 scaling).
//   NAME-p-rope-0.75      any of the above with the spectrum's variant set to p-rope 0.75: the
//                         same pairs (chosen on the RoPE spectrum) then have g = 0 exactly.
// epsilon 0.1, break_at 1/2, notion attention (the thm-6.1 claim's defaults).
#pragma once

#include <string>
#include <vector>

#include "adversarial/head.h"
#include "spectrum/lowest_pairs.h"

namespace ropecheck::adversarial {

// Appendix E.1, gemma-7b's apostrophe head, pair 119, as printed (one decimal each); the binary64
// nearest each decimal, as proofs/semantic-channel.cpp encloses the same decimals. The band
// presets and model_bands.h spread them over 8 pairs.
inline constexpr double kApostropheQuery[2] = {-4.1, 11.3};        // q_notBOS
inline constexpr double kApostropheTarget[2] = {-2.5, 1.3};        // k_BOS: the target the channel attends to
inline constexpr double kApostropheDistractor[2] = {11.2, -3.5};   // k_notBOS
// A band head's pairs: the spectrum's 8 lowest rotating pairs (presets above, model_bands.h).
inline constexpr int kBandPairs = 8;
// 1/8: a band's keys are the channel's divided by its 8 pairs, exact in binary64 (a power of two,
// and no component comes near the subnormal range), so the pairs together give the single
// channel's activation q.k at distance 0.
inline constexpr double kBandKeyScale = 0.125;

std::vector<std::string> preset_names();

// Returns: the named head. Throws InputError("--config", <the preset list or a head JSON file>, name).
Head preset_head(const std::string& name);

// Returns: a preset by name, or the head in a JSON file ({"head": {...}}, a bare head object, or a
// counterexample file, whose other fields are checked too) when `name_or_file` names an existing
// file. Throws InputError as preset_head for neither, and as read_json_file/head_from_json for a
// bad file.
Head load_head(const std::string& name_or_file);

}  // namespace ropecheck::adversarial

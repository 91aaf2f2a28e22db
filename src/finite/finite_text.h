// File: finite_text.h
// The text tables of `ropecheck finite`: one per construction result (argmax_at_distance.h,
// head_strictness.h, cos_710.h, shift_invariance.h), each starting with a blank line, and the
// preamble that states the kernel path, the layout and what is measured vs certified. The JSON of
// each result is its to_json. Pure formatting: deterministic, nothing thrown.
#pragma once

#include <string>

#include "cpu/path.h"
#include "finite/argmax_at_distance.h"
#include "finite/cos_710.h"
#include "finite/head_strictness.h"
#include "finite/shift_invariance.h"

namespace ropecheck::finite {

// Returns: the two lines printed before any table (the kernel path that ran, the layout, the dot
// product's order; measured vs certified figures).
std::string preamble_text(cpu::Path path);

// Returns: the table of one result, from a blank line to its last line's '\n'.
std::string to_text(const ArgmaxConstruction& c);
std::string to_text(const HeadConstruction& c);
std::string to_text(const Cos710& c);
std::string to_text(const ShiftInvariance& s);

}  // namespace ropecheck::finite

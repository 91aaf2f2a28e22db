// File: sequence.h
// A sequence of token types at positions 0..length-1 (the query is the last token), and attacks on
// it: swaps of two positions. Stored sparsely (a fill type plus the positions that differ), so a
// context of 10^6 tokens with one target is a few bytes, in memory and in JSON.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "adversarial/head.h"

namespace ropecheck::adversarial {

struct Sequence {
  long long length = 0;                // tokens, >= 2; the query is at position length - 1
  TypeId fill = distractor(0);          // the type of every position not listed
  std::map<long long, TypeId> tokens;   // positions whose type differs from `fill`

  TypeId at(long long position) const;
  long long query_position() const { return length - 1; }
  long long context() const { return length - 1; }  // L: the query's distance to position 0
  // Returns: the unique position of the target. Preconditions: validate() passed.
  long long target_position() const;
  // Normalises: drops entries equal to fill.
  void set(long long position, TypeId type);
};

using Swap = std::pair<long long, long long>;

// Throws InputError naming `where` + field: length < 2 or > 2^40, a position outside [0, length),
// a type the head does not have, not exactly one target, the target at the query's position, a
// BOS token anywhere but position 0, or (head has a BOS) position 0 not BOS.
void validate(const Sequence& sequence, const Head& head, const std::string& where = "sequence");

// Throws InputError naming `where`: a swap position outside [0, length), or a swap that moves
// position 0 when it holds the BOS sink, or moves the query (position length - 1).
void validate_swaps(const std::vector<Swap>& swaps, const Sequence& sequence, const std::string& where = "swaps");

// Returns: the sequence after applying the swaps in order.
Sequence apply_swaps(Sequence sequence, const std::vector<Swap>& swaps);

// The fill family the guided search works in (one distractor type): positions 0..L, BOS at 0 when
// the head has one, the target at distance s (position L - s), distractor 0 everywhere else.
Sequence fill_sequence(const Head& head, long long context, long long target_distance);

}  // namespace ropecheck::adversarial

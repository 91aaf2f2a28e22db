// File: uniform_below.h
// Unbiased uniform integers in [0, s) from random words: Lemire's nearly-divisionless
// multiply-and-reject ("Fast random integer generation in an interval", ACM TOMACS 2019).
//
// A w-bit word x maps to floor(x s / 2^w); the low w bits l = x s mod 2^w decide acceptance: x is
// rejected when l < 2^w mod s. Exactly floor(2^w / s) accepted words then map to each value in
// [0, s), so the result is exactly uniform (tests/random/uniform_below_test.cpp checks this
// exhaustively at w = 8 and w = 16). No modulo bias; the one division happens only when l < s,
// i.e. with probability s / 2^w. The word type is a template parameter only so that the exactness
// can be checked exhaustively on narrow words; production uses 64-bit words.
#pragma once

#include <cstdint>
#include <limits>

namespace ropecheck {

// Returns: a uniform integer in [0, s), calling next_word() once per candidate (rejections
// included), so the number of words consumed is 1 + the number of rejections.
// Preconditions: s >= 1; Wide holds Word * Word exactly.
template <class Word, class Wide, class NextWord>
Word uniform_below(Word s, NextWord&& next_word) {
  static_assert(std::numeric_limits<Word>::is_integer && !std::numeric_limits<Word>::is_signed);
  constexpr int kBits = std::numeric_limits<Word>::digits;
  Word x = next_word();
  Wide m = static_cast<Wide>(x) * static_cast<Wide>(s);
  Word low = static_cast<Word>(m);
  if (low < s) {
    // 2^w mod s, computed as (2^w - s) mod s in w-bit arithmetic.
    const Word threshold = static_cast<Word>(static_cast<Word>(Word{0} - s) % s);
    while (low < threshold) {
      x = next_word();
      m = static_cast<Wide>(x) * static_cast<Wide>(s);
      low = static_cast<Word>(m);
    }
  }
  return static_cast<Word>(m >> kBits);
}

// The production form: 64-bit words, 128-bit products.
template <class NextWord>
std::uint64_t uniform_below_u64(std::uint64_t s, NextWord&& next_word) {
  return uniform_below<std::uint64_t, unsigned __int128>(s, next_word);
}

}  // namespace ropecheck

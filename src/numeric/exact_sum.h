// File: exact_sum.h
// Exact summation of binary64 numbers (a "superaccumulator", after Neal 2015): the sum of any
// multiset of finite doubles is held exactly, so adding and merging are associative and
// commutative in fact, not just in exact arithmetic. This is what makes Monte Carlo results
// bit-identical for every thread count and shard split: the order in which samples arrive cannot
// change a single bit of a sum, a mean or a variance computed from it.
//
// Representation: fixed-point digits covering every double (2^-1074 .. 2^1024), with lazy carries;
// the canonical form (carries propagated, value as a signed integer times 2^-1074) is what
// to_text() writes and operator== compares.
// Const members (value, text, ==) canonicalise the digits in place: one object must not be read from
// two threads at once (distinct objects are independent).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "numeric/scalar.h"

namespace ropecheck {

class ExactSum {
 public:
  ExactSum();

  // Adds x exactly. A NaN or infinity is not added: it is counted (non_finite()), and value()
  // returns NaN from then on.
  void add(double x);
  // Adds every term of `other` (exactly; the counts of non-finite terms add too).
  void add(const ExactSum& other);

  // Returns: the exact sum rounded once to nearest-even binary64 (+-inf on overflow; NaN if a
  // non-finite term was added).
  double value() const;
  // Returns: the exact sum rounded once to the precision of `Real` in effect (ScopedPrecision) --
  // exact when that precision is at least bits_needed().
  Real to_real() const;
  // Returns: the number of bits of the canonical integer (0 for a zero sum), i.e. the precision at
  // which to_real() is exact.
  long bits_needed() const;
  std::uint64_t non_finite() const;
  // Sets `out` to the exact sum rounded once to out's own precision (NaN if a non-finite term was
  // added). Thread-safe for distinct objects: raw MPFR, no Boost default precision involved (this is
  // what statistics/moments.cpp uses inside worker threads; to_real() is the Boost-facing twin).
  void to_mpfr(mpfr_ptr out) const;

  // Returns: a canonical text form that round-trips exactly: "0", or "[-]HEXpE" meaning HEX * 2^E,
  // HEX an odd integer in lower-case hex without leading zeros (the canonical integer with its
  // trailing zero bits moved into E >= -1074): 1.0 is "1p0", -0.75 "-3p-2", 2^-1074 "1p-1074";
  // with ";nf=N" appended when N > 0 non-finite terms were added. Equal sums give equal text.
  std::string to_text() const;
  // Returns: the sum to_text() wrote. Throws InputError naming `input` on malformed text.
  static ExactSum from_text(std::string_view text, const std::string& input);

  friend bool operator==(const ExactSum& a, const ExactSum& b);

 private:
  friend struct ExactSumTestAccess;  // tests/numeric/exact_sum_test.cpp: the carry threshold
  void propagate() const;  // canonicalises the digits (carries), keeping the value
  void integer(mpz_ptr out) const;  // out = the exact sum times 2^1074 (an integer)
  static constexpr int kDigits = 70;  // 32-bit digits in int64 slots, 2^-1074 .. 2^1166
  mutable std::int64_t digit_[kDigits];
  mutable std::uint32_t pending_ = 0;  // adds since the last propagation (<= 2^30 keeps slots safe)
  std::uint64_t non_finite_ = 0;
};

}  // namespace ropecheck

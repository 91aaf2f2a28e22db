// File: exact_sum.cpp
// The superaccumulator. Digit i (an int64 slot) has weight 2^(32 i - 1074). A finite double is
// m * 2^(p - 1074) with m < 2^53 and p = max(biased exponent - 1, 0) in 0..2045, so m shifted by
// p mod 32 spans at most 53 + 31 = 84 bits: three 32-bit digits starting at slot p / 32 (<= 63, so
// slot 65 is the highest an add touches). Each add moves a slot by less than 2^32; after a
// propagation every slot but the top one is in [0, 2^32), so 2^30 adds keep every slot below
// 2^32 + 2^30 (2^32 - 1) < 2^63: carries are propagated every 2^30 adds and before any reading.
#include "numeric/exact_sum.h"
#include "numeric/mp_handles.h"

#include <gmp.h>
#include <mpfr.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "io/input_error.h"

namespace ropecheck {
namespace {

constexpr std::uint32_t kPropagateEvery = std::uint32_t{1} << 30;
constexpr long kUnitExponent = -1074;  // the canonical integer counts units of 2^-1074
// from_text accepts magnitudes below 2^kMaxExponent: far above any reachable sum (2^63 terms of at
// most 2^1024 stay below 2^1087) and still inside the top slot (weight 2^1134, int64).
constexpr long kMaxExponent = 1166;


const char* const kAccepted =
    "canonical exact-sum text: \"0\" or [-]HEXpE (lower-case hex integer without leading zeros, odd, "
    "E a decimal exponent >= -1074 with |value| < 2^1166), optionally followed by \";nf=N\" (N >= 1, "
    "no leading zeros)";

bool is_decimal(std::string_view s) {
  if (s.empty() || s.size() > 20) return false;
  if (s.size() > 1 && s[0] == '0') return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

ExactSum::ExactSum() { std::fill(digit_, digit_ + kDigits, std::int64_t{0}); }

void ExactSum::add(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  const unsigned biased = static_cast<unsigned>(b >> 52) & 0x7ffu;
  if (biased == 0x7ffu) [[unlikely]] {
    ++non_finite_;
    return;
  }
  std::uint64_t m = b & ((std::uint64_t{1} << 52) - 1);
  unsigned p = 0;
  if (biased != 0) {
    m |= std::uint64_t{1} << 52;
    p = biased - 1;
  }
  if (pending_ >= kPropagateEvery) [[unlikely]] propagate();
  ++pending_;
  // The digits of m << sh (sh < 32, at most 84 bits) without 128-bit shifts: the low 32 bits, then
  // m >> (32 - sh) (at most 52 bits) split in two.
  const unsigned sh = p & 31u;
  const std::uint64_t high = m >> (32u - sh);
  const auto d0 = static_cast<std::int64_t>(static_cast<std::uint32_t>(m << sh));
  const auto d1 = static_cast<std::int64_t>(static_cast<std::uint32_t>(high));
  const auto d2 = static_cast<std::int64_t>(high >> 32);
  // Two's-complement negation without a branch: (d ^ s) - s is d for s = 0 and -d for s = -1.
  const std::int64_t s = -static_cast<std::int64_t>(b >> 63);
  std::int64_t* d = digit_ + (p >> 5);
  d[0] += (d0 ^ s) - s;
  d[1] += (d1 ^ s) - s;
  d[2] += (d2 ^ s) - s;
}

void ExactSum::add(const ExactSum& other) {
  other.propagate();  // other's slots are now in [0, 2^32) (top: tiny): like one add
  if (pending_ >= kPropagateEvery) propagate();
  ++pending_;
  for (int i = 0; i < kDigits; ++i) digit_[i] += other.digit_[i];
  non_finite_ += other.non_finite_;
}

void ExactSum::propagate() const {
  for (int i = 0; i + 1 < kDigits; ++i) {
    const std::int64_t carry = digit_[i] >> 32;  // floor division by 2^32 (arithmetic shift)
    digit_[i] &= std::int64_t{0xffffffff};
    digit_[i + 1] += carry;
  }
  pending_ = 0;
}

void ExactSum::integer(mpz_ptr out) const {
  propagate();
  std::uint32_t low[kDigits - 1];
  for (int i = 0; i + 1 < kDigits; ++i) low[i] = static_cast<std::uint32_t>(digit_[i]);
  mpz_import(out, kDigits - 1, -1, sizeof(std::uint32_t), 0, 0, low);
  Mpz top;
  mpz_set_si(top.v, static_cast<long>(digit_[kDigits - 1]));
  mpz_mul_2exp(top.v, top.v, 32 * (kDigits - 1));
  mpz_add(out, out, top.v);
}

long ExactSum::bits_needed() const {
  Mpz z;
  integer(z.v);
  if (mpz_sgn(z.v) == 0) return 0;
  return static_cast<long>(mpz_sizeinbase(z.v, 2));
}

std::uint64_t ExactSum::non_finite() const { return non_finite_; }

void ExactSum::to_mpfr(mpfr_ptr out) const {
  if (non_finite_ > 0) {
    mpfr_set_nan(out);
    return;
  }
  Mpz z;
  integer(z.v);
  mpfr_set_z(out, z.v, MPFR_RNDN);             // the one rounding
  mpfr_mul_2si(out, out, kUnitExponent, MPFR_RNDN);  // exact: MPFR's exponent range is huge
}

double ExactSum::value() const {
  if (non_finite_ > 0) return std::numeric_limits<double>::quiet_NaN();
  // Exact in MPFR first, then mpfr_get_d's single rounding to nearest-even, which honours
  // binary64's subnormal grid and overflows to +-inf (checked in the tests).
  Mpfr r(std::max(bits_needed(), 2L));
  to_mpfr(r.v);
  return mpfr_get_d(r.v, MPFR_RNDN);
}

Real ExactSum::to_real() const {
  Real r;  // the current default precision
  to_mpfr(r.backend().data());
  return r;
}

std::string ExactSum::to_text() const {
  Mpz z;
  integer(z.v);
  std::string text;
  if (mpz_sgn(z.v) == 0) {
    text = "0";
  } else {
    // Strip the trailing zero bits into the exponent: the odd integer and its exponent are unique.
    const mp_bitcnt_t zeros = mpz_scan1(z.v, 0);
    mpz_tdiv_q_2exp(z.v, z.v, zeros);
    const bool negative = mpz_sgn(z.v) < 0;
    mpz_abs(z.v, z.v);
    std::string hex(mpz_sizeinbase(z.v, 16) + 2, '\0');
    mpz_get_str(hex.data(), 16, z.v);
    hex.resize(std::strlen(hex.c_str()));
    text = (negative ? "-" : "") + hex + "p" + std::to_string(kUnitExponent + static_cast<long>(zeros));
  }
  if (non_finite_ > 0) text += ";nf=" + std::to_string(non_finite_);
  return text;
}

ExactSum ExactSum::from_text(std::string_view text, const std::string& input) {
  const auto bad = [&]() { return InputError(input, kAccepted, std::string(text)); };
  ExactSum result;
  std::string_view body = text;
  if (const std::size_t semi = text.find(';'); semi != std::string_view::npos) {
    body = text.substr(0, semi);
    const std::string_view tail = text.substr(semi);
    if (tail.substr(0, 4) != ";nf=") throw bad();
    const std::string_view count = tail.substr(4);
    if (!is_decimal(count) || count == "0") throw bad();
    std::uint64_t n = 0;
    for (char c : count) {
      const auto digit = static_cast<std::uint64_t>(c - '0');
      if (n > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) throw bad();
      n = n * 10 + digit;
    }
    result.non_finite_ = n;
  }
  if (body == "0") return result;
  const bool negative = !body.empty() && body[0] == '-';
  if (negative) body.remove_prefix(1);
  const std::size_t pos = body.find('p');
  if (pos == std::string_view::npos || pos == 0) throw bad();
  const std::string_view hex = body.substr(0, pos);
  std::string_view exponent = body.substr(pos + 1);
  const auto is_hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); };
  if (!std::all_of(hex.begin(), hex.end(), is_hex) || hex[0] == '0') throw bad();
  const char last = hex.back();
  const int last_value = last <= '9' ? last - '0' : last - 'a' + 10;
  if (last_value % 2 == 0) throw bad();  // an even integer is not the canonical (odd) form
  const bool negative_exponent = !exponent.empty() && exponent[0] == '-';
  if (negative_exponent) exponent.remove_prefix(1);
  if (!is_decimal(exponent) || (negative_exponent && exponent == "0") || exponent.size() > 5) throw bad();
  long e = std::stol(std::string(exponent));
  if (negative_exponent) e = -e;
  const long bits = 4 * static_cast<long>(hex.size());  // an upper bound refined below
  if (e < kUnitExponent || e > kMaxExponent || bits > kMaxExponent - kUnitExponent + 4) throw bad();
  Mpz z;
  if (mpz_set_str(z.v, std::string(hex).c_str(), 16) != 0) throw bad();
  if (static_cast<long>(mpz_sizeinbase(z.v, 2)) + e > kMaxExponent) throw bad();
  mpz_mul_2exp(z.v, z.v, static_cast<mp_bitcnt_t>(e - kUnitExponent));
  // Split the magnitude into the digits, then negate digit-wise if needed and canonicalise.
  std::uint32_t words[kDigits] = {};
  std::size_t count = 0;
  mpz_export(words, &count, -1, sizeof(std::uint32_t), 0, 0, z.v);
  for (std::size_t i = 0; i < count; ++i) result.digit_[i] = negative ? -std::int64_t{words[i]} : std::int64_t{words[i]};
  result.propagate();
  return result;
}

bool operator==(const ExactSum& a, const ExactSum& b) {
  a.propagate();
  b.propagate();
  return a.non_finite_ == b.non_finite_ && std::equal(a.digit_, a.digit_ + ExactSum::kDigits, b.digit_);
}

}  // namespace ropecheck

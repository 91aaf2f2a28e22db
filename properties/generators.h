// File: generators.h
// RapidCheck generators shared by ropecheck's properties. Every generator shrinks toward small,
// simple cases: small dimensions, theta 10000, plain RoPE, position 0, components 0 and 1.
//
// Floats are built from bit patterns and chosen edge values, never from RapidCheck's own real
// generator (which never yields subnormals, -0, huge or tiny exponents; see the engineering notes).
#pragma once

#include <rapidcheck.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "spectrum/spectrum.h"

namespace ropecheck::gen {

// Returns: an even dimension in [2, max_dim], shrinking toward 2.
inline rc::Gen<int> dimensions(int max_dim) {
  return rc::gen::map(rc::gen::inRange(1, max_dim / 2 + 1), [](int h) { return 2 * h; });
}

// Returns: theta as a decimal string: the bases models ship, values near the edge 1, and random
// integers; shrinks toward "10000".
inline rc::Gen<std::string> thetas() {
  return rc::gen::weightedOneOf<std::string>({
      {4, rc::gen::element<std::string>("10000", "500000", "1000000", "100", "2", "1.5", "1.000001", "1e9")},
      {1, rc::gen::map(rc::gen::inRange<std::int64_t>(2, 2000000000), [](std::int64_t t) { return std::to_string(t); })},
  });
}

// Returns: a fraction P or F in [0, 1] as a decimal string: sixteenths, the paper's values, and
// 0.58, where the paper's binary64 count differs from the exact one (d = 100: 28, not 29).
inline rc::Gen<std::string> fractions() {
  return rc::gen::weightedOneOf<std::string>({
      {2, rc::gen::element<std::string>("0.75", "0.25", "0.5", "1", "0", "0.3", "0.1", "0.58")},
      {1, rc::gen::map(rc::gen::inRange(0, 17), [](int k) { return std::to_string(k / 16.0); })},
  });
}

inline rc::Gen<Variant> variants() {
  return rc::gen::element(Variant::rope, Variant::p_rope, Variant::reversed, Variant::partial, Variant::nope);
}

inline rc::Gen<Scaling> scalings() {
  return rc::gen::weightedOneOf<Scaling>({
      {3, rc::gen::just(Scaling{})},
      {1, rc::gen::just(Scaling::llama3_1())},
      {1, rc::gen::map(rc::gen::element<std::string>("2", "4", "0.5", "32"), [](const std::string& f) { return Scaling::linear(f); })},
  });
}

// Returns: spectra of any variant and scaling with d <= max_dim.
inline rc::Gen<Spectrum> spectra(int max_dim) {
  return rc::gen::map(rc::gen::tuple(dimensions(max_dim), thetas(), variants(), fractions(), scalings()), [](const auto& t) {
    const auto& [d, theta, variant, fraction, scaling] = t;
    return Spectrum(d, theta, variant, fraction, scaling);
  });
}

// Returns: a token position in [-2^40, 2^40]; edges: 0, +-1, the near-returns of g = 1 (44, 710,
// 103993), powers of two up to 2^40. Shrinks toward 0.
inline rc::Gen<std::int64_t> positions() {
  constexpr std::int64_t kMax = std::int64_t{1} << 40;
  return rc::gen::weightedOneOf<std::int64_t>({
      {2, rc::gen::inRange<std::int64_t>(-kMax, kMax + 1)},
      {1, rc::gen::inRange<std::int64_t>(-5000, 5001)},
      {1, rc::gen::element<std::int64_t>(0, 1, -1, 44, 710, 103993, 4096, 131072, kMax, -kMax, kMax - 1)},
  });
}

// Returns: a finite binary32 value (as the exact float): any bit pattern with a finite value, or
// an edge value. Every float is exact in double and in MPFR/MPFI, so the same input reaches every
// arithmetic. Shrinks toward +0 (bit pattern 0).
inline rc::Gen<float> components() {
  const auto from_bits = rc::gen::map(
      rc::gen::suchThat(rc::gen::arbitrary<std::uint32_t>(), [](std::uint32_t b) { return std::isfinite(std::bit_cast<float>(b)); }),
      [](std::uint32_t b) { return std::bit_cast<float>(b); });
  return rc::gen::weightedOneOf<float>({
      {3, from_bits},
      {2, rc::gen::element<float>(0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 3.0f, 0x1p-20f, -0x1p-20f, 0x1p-149f,
                                  std::numeric_limits<float>::min(), 0x1p20f, 0x1.fffffep+127f)},
      {2, rc::gen::map(rc::gen::inRange(-1024, 1025), [](int k) { return static_cast<float>(k) / 64.0f; })},
  });
}

// Returns: d components.
inline rc::Gen<std::vector<float>> vectors(int d) { return rc::gen::container<std::vector<float>>(static_cast<std::size_t>(d), components()); }

// Returns: +-m * 2^e exactly as a binary64 value, for a normal exponent e and a 52-bit mantissa
// field: the bit pattern itself, never a libm or float-generator value.
inline double binary64_from_fields(bool negative, int exponent, std::uint64_t mantissa) {
  const std::uint64_t biased = static_cast<std::uint64_t>(exponent + 1023);
  return std::bit_cast<double>((negative ? std::uint64_t{1} << 63 : 0) | (biased << 52) | (mantissa & ((std::uint64_t{1} << 52) - 1)));
}

// Returns: an exponent in [min_exp, max_exp] (which contains 0), shrinking toward 0 along 0, 1, -1,
// 2, -2, ...
inline rc::Gen<int> exponents(int min_exp, int max_exp) {
  const int span = max_exp - min_exp;
  return rc::gen::map(rc::gen::suchThat(rc::gen::inRange(0, 2 * span + 1), [=](int k) {
                        const int e = (k % 2 == 1) ? (k + 1) / 2 : -k / 2;
                        return e >= min_exp && e <= max_exp;
                      }),
                      [](int k) { return (k % 2 == 1) ? (k + 1) / 2 : -k / 2; });
}

// Returns: a binary64 value +-(1.f) * 2^e from its bit pattern, e in [min_exp, max_exp] (normal
// exponents containing 0), any 52-bit fraction; shrinks toward +1 (fraction 0, exponent 0).
inline rc::Gen<double> binary64_with_exponents(int min_exp, int max_exp) {
  return rc::gen::map(rc::gen::tuple(rc::gen::arbitrary<bool>(), exponents(min_exp, max_exp), rc::gen::arbitrary<std::uint64_t>()),
                      [](const auto& t) { return binary64_from_fields(std::get<0>(t), std::get<1>(t), std::get<2>(t)); });
}

// Returns: a binary32 value +-(1.f) * 2^e from its bit pattern, e in [min_exp, max_exp] (normal
// exponents containing 0), any 23-bit fraction; shrinks toward +1.
inline rc::Gen<float> binary32_with_exponents(int min_exp, int max_exp) {
  return rc::gen::map(rc::gen::tuple(rc::gen::arbitrary<bool>(), exponents(min_exp, max_exp), rc::gen::arbitrary<std::uint32_t>()),
                      [](const auto& t) {
                        const std::uint32_t biased = static_cast<std::uint32_t>(std::get<1>(t) + 127);
                        return std::bit_cast<float>((std::get<0>(t) ? 0x80000000u : 0u) | (biased << 23) | (std::get<2>(t) & 0x7fffffu));
                      });
}

// Returns: the simple numbers a shrunk case should read like: 0, 1, -1, 1/2, -1/2, 2, -2, ..., and
// quarters k/4 with |k| <= 64. Shrinks toward 0 (then 1, -1, 1/2, ...).
inline rc::Gen<double> simple_doubles() {
  return rc::gen::weightedOneOf<double>({
      {3, rc::gen::element<double>(0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 0.25, -0.25, 3.0, -3.0, 4.0, -4.0)},
      {1, rc::gen::map(rc::gen::inRange(-64, 65), [](int k) { return k / 4.0; })},
  });
}

// Returns: a context length (the query's distance to position 0) in [2, max_context], weighted so
// that most cases are short: 2..64 often, up to 4096 sometimes, the full range rarely, and the two
// ends as edges. Shrinks toward 2. Preconditions: max_context >= 2.
inline rc::Gen<long long> contexts(long long max_context) {
  const long long small = std::min<long long>(64, max_context), medium = std::min<long long>(4096, max_context);
  return rc::gen::weightedOneOf<long long>({
      {6, rc::gen::inRange<long long>(2, small + 1)},
      {3, rc::gen::inRange<long long>(2, medium + 1)},
      {1, rc::gen::element<long long>(2, 3, max_context)},
      {1, rc::gen::inRange<long long>(2, max_context + 1)},
  });
}

}  // namespace ropecheck::gen

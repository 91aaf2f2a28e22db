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
#include <cstdio>
#include <limits>
#include <optional>
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

// Returns: the decimal lo + k (hi - lo) / steps, k in [0, steps], with `digits` digits after the
// point (the text a config would hold); shrinks toward lo.
inline rc::Gen<std::string> decimals(double lo, double hi, int digits, int steps = 1000) {
  return rc::gen::map(rc::gen::inRange(0, steps + 1), [=](int k) {
    char b[64];
    std::snprintf(b, sizeof b, "%.*f", digits, lo + (hi - lo) * k / steps);
    return std::string(b);
  });
}

// Returns: an optional attention factor as a config states it (absent most often); shrinks to absent.
inline rc::Gen<std::optional<std::string>> attention_factors() {
  return rc::gen::weightedOneOf<std::optional<std::string>>({
      {2, rc::gen::just(std::optional<std::string>{})},
      {1, rc::gen::map(decimals(0.5, 2, 4), [](std::string d) { return std::optional<std::string>(std::move(d)); })},
      // Short decimals (exact ties are possible at angle 0) and the factors gpt-oss (0.1 ln 32 + 1) and
      // Phi-3.5-mini (sqrt(1 + ln 32 / ln 4096)) resolve to, to 17 digits.
      {1, rc::gen::element<std::optional<std::string>>("1.5", "0.75", "1.3465735902799727", "1.1902380714238083")},
  });
}

// Returns: a scaling of any kind with parameters drawn as model configs state them (linear, llama3,
// dynamic NTK, YaRN with an explicit attention factor or DeepSeek's mscale ratio, LongRoPE with one
// factor per pair), valid for a spectrum with `pairs` rotating pairs (check_scaling); dynamic only
// when `dynamic_ok` (a rotary width > 2). Shrinks toward no scaling.
inline rc::Gen<Scaling> model_scalings(int pairs, bool dynamic_ok) {
  return rc::gen::exec([=] {
    Scaling s;
    switch (*rc::gen::inRange(0, 6)) {
      case 0: return s;
      case 1: return Scaling::linear(*decimals(0.25, 16, 3));
      case 2:
        return Scaling::llama3(*decimals(1, 32, 2), *decimals(0.5, 1, 2), *decimals(1, 8, 2), *rc::gen::element(1024LL, 4096LL, 8192LL));
      case 3:
        s.kind = Scaling::Kind::yarn;
        s.factor = *decimals(1, 64, 3);
        s.original_context = *rc::gen::element(2048LL, 4096LL, 32768LL, 65536LL);
        s.beta_fast = *decimals(8, 64, 1);
        s.beta_slow = *decimals(0.25, 2, 2);
        s.truncate = *rc::gen::arbitrary<bool>();
        s.attention_factor = *attention_factors();
        if (!s.attention_factor && *rc::gen::arbitrary<bool>()) {  // DeepSeek-V3: mscale / mscale_all_dim
          s.mscale = *decimals(0.5, 1.5, 3);
          s.mscale_all_dim = *decimals(0.5, 1.5, 3);
        }
        return s;
      case 4:
        s.kind = Scaling::Kind::longrope;
        s.original_context = *rc::gen::element(4096LL, 8192LL);
        s.max_position = 131072;
        s.sequence_length = *rc::gen::element(0LL, 2048LL, 65536LL);
        s.short_factor = *rc::gen::container<std::vector<std::string>>(static_cast<size_t>(pairs), decimals(1, 3, 4));
        s.long_factor = *rc::gen::container<std::vector<std::string>>(static_cast<size_t>(pairs), decimals(1, 64, 4));
        if (*rc::gen::arbitrary<bool>()) s.factor = "";  // Phi-3's default M / C
        else s.factor = *decimals(1, 40, 3);
        s.attention_factor = *attention_factors();
        return s;
      default:
        if (!dynamic_ok) return s;
        s.kind = Scaling::Kind::dynamic;
        s.factor = *decimals(0.5, 8, 3);
        s.max_position = *rc::gen::element(2048LL, 4096LL);
        s.sequence_length = *rc::gen::inRange<long long>(0, 200000);
        return s;
    }
  });
}

// Returns: spectra of any variant with a model_scalings() scaling (attention factors included), d
// <= max_dim. The scaling's attention factor scales the output's norm: properties that assume a
// rotation (norm kept, shift-invariance bounds) take spectra() instead.
inline rc::Gen<Spectrum> model_spectra(int max_dim) {
  return rc::gen::exec([=] {
    const Spectrum base(*dimensions(max_dim), *thetas(), *variants(), *fractions());
    if (base.rotated_pairs() == 0) return base;
    return base.with_scaling(*model_scalings(base.rotary_width() / 2, base.rotary_width() > 2));
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

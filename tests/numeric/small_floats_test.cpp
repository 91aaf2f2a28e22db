// Tests for numeric/small_floats.h: the 16-bit kernel formats' exact widening and their roundings,
// against independent definitions (MPFR's rounding through round_to_dtype, and the CPU's own
// F16C conversion where the CPU has it), printing every operand on failure.
#include "numeric/small_floats.h"

#include <gtest/gtest.h>
#include <mpfr.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <type_traits>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "numeric/round_to_binary.h"

namespace ropecheck::small_floats_test {
namespace {

std::string hex(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%a", v);
  return b;
}

// MPFR's correct rounding of v to dtype t (numeric/round_to_binary.h), an independent route.
double mpfr_rounded(double v, Dtype t) {
  mpfr_t m;
  mpfr_init2(m, 64);
  mpfr_set_d(m, v, MPFR_RNDN);
  const double r = round_to_dtype(m, t);
  mpfr_clear(m);
  return r;
}

TEST(Binary16, DecodesKnownValuesExactly) {
  EXPECT_EQ(to_double(F16Bits{0x3C00}), 1.0);
  EXPECT_EQ(to_double(F16Bits{0xC000}), -2.0);
  EXPECT_EQ(to_double(F16Bits{0x3555}), 0x1.554p-2);  // float16(1/3)
  EXPECT_EQ(to_double(F16Bits{0x0001}), 0x1p-24);      // smallest subnormal
  EXPECT_EQ(to_double(F16Bits{0x03FF}), 1023 * 0x1p-24);
  EXPECT_EQ(to_double(F16Bits{0x0400}), 0x1p-14);      // smallest normal
  EXPECT_EQ(to_double(F16Bits{0x7BFF}), 65504.0);
  EXPECT_EQ(to_double(F16Bits{0x0000}), 0.0);
  EXPECT_FALSE(std::signbit(to_double(F16Bits{0x0000})));
  EXPECT_TRUE(std::signbit(to_double(F16Bits{0x8000})));
  EXPECT_EQ(to_double(F16Bits{0x7C00}), INFINITY);
  EXPECT_EQ(to_double(F16Bits{0xFC00}), -INFINITY);
  EXPECT_TRUE(std::isnan(to_double(F16Bits{0x7E00})));
  EXPECT_TRUE(is_finite(F16Bits{0x7BFF}));
  EXPECT_FALSE(is_finite(F16Bits{0x7C00}));
  EXPECT_FALSE(is_finite(F16Bits{0xFE01}));
}

// Every positive finite pattern: strictly increasing, the negative pattern its negation, and the
// gap to the next one the format's spacing (2^-24 below 2^-14, then 2^(e-10)).
TEST(Binary16, EveryFinitePatternInOrder) {
  for (std::uint32_t b = 0; b < 0x7BFF; ++b) {
    const double v = to_double(F16Bits{static_cast<std::uint16_t>(b)});
    const double next = to_double(F16Bits{static_cast<std::uint16_t>(b + 1)});
    ASSERT_EQ(to_double(F16Bits{static_cast<std::uint16_t>(b | 0x8000)}), -v) << b;
    const int e = static_cast<int>(b >> 10);
    ASSERT_EQ(next - v, e == 0 ? 0x1p-24 : std::ldexp(1.0, e - 25)) << b;
  }
}

// f16_from_double at every pattern, every midpoint (ties to even) and just beside each midpoint,
// both signs, and the overflow threshold 65520: against MPFR's rounding.
TEST(Binary16, RoundingFromDoubleIsCorrectAtEveryPatternAndMidpoint) {
  for (std::uint32_t b = 0; b < 0x7C00; ++b) {
    const double v = to_double(F16Bits{static_cast<std::uint16_t>(b)});
    const double next = b + 1 < 0x7C00 ? to_double(F16Bits{static_cast<std::uint16_t>(b + 1)}) : 65536.0;
    const double mid = (v + next) / 2;  // exact in double
    for (double x : {v, mid, std::nextafter(mid, 0.0), std::nextafter(mid, INFINITY)})
      for (double s : {1.0, -1.0}) {
        const F16Bits got = f16_from_double(s * x);
        const double want = mpfr_rounded(s * x, Dtype::f16);
        ASSERT_EQ(std::bit_cast<std::uint64_t>(to_double(got)), std::bit_cast<std::uint64_t>(want))
            << "x=" << hex(s * x) << " ref=" << hex(want) << " got=" << hex(to_double(got)) << " (0x" << std::hex << got.bits << ")";
      }
  }
  EXPECT_EQ(f16_from_double(65519.99).bits, 0x7BFF);
  EXPECT_EQ(f16_from_double(65520.0).bits, 0x7C00);  // the tie above 65504 goes to the even infinity
  EXPECT_EQ(f16_from_double(-1e300).bits, 0xFC00);
  EXPECT_EQ(f16_from_double(std::nan("")).bits, kCanonicalNaNF16.bits);
  EXPECT_EQ(f16_from_double(-0.0).bits, 0x8000);
  EXPECT_EQ(f16_from_double(0x1p-25).bits, 0x0000);                        // half the smallest subnormal: to even 0
  EXPECT_EQ(f16_from_double(std::nextafter(0x1p-25, 1.0)).bits, 0x0001);
}

// bfloat16: bf16_from_float against MPFR's rounding on patterns, midpoints and beside them.
TEST(Bfloat16, RoundingFromFloatIsCorrectAtPatternsAndMidpoints) {
  for (std::uint32_t b = 0; b < 0x7F80; b += 7) {
    const float v = to_float(Bf16Bits{static_cast<std::uint16_t>(b)});
    const float next = to_float(Bf16Bits{static_cast<std::uint16_t>(b + 1)});
    const float mid = std::bit_cast<float>(std::bit_cast<std::uint32_t>(v) + 0x8000u);  // exact midpoint
    for (float x : {v, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY), next})
      for (float s : {1.0f, -1.0f}) {
        const double want = mpfr_rounded(static_cast<double>(s * x), Dtype::bf16);
        const float got = to_float(bf16_from_float(s * x));
        ASSERT_EQ(std::bit_cast<std::uint64_t>(static_cast<double>(got)), std::bit_cast<std::uint64_t>(want))
            << "x=" << hex(s * x) << " ref=" << hex(want) << " got=" << hex(got);
      }
  }
  EXPECT_EQ(bf16_from_float(std::nanf("")).bits, kCanonicalNaNBf16.bits);
}

// bf16_from_double at every finite pattern, every midpoint (ties to even) and the doubles just beside
// each midpoint, which a rounding through binary32 gets wrong (it rounds them onto the midpoint
// first), both signs, the overflow threshold (2 - 2^-8) 2^127 and the underflow to 0: against MPFR.
TEST(Bfloat16, RoundingFromDoubleIsCorrectAtEveryPatternAndMidpoint) {
  for (std::uint32_t b = 0; b < 0x7F80; ++b) {
    const double v = to_float(Bf16Bits{static_cast<std::uint16_t>(b)});
    const double next = b + 1 < 0x7F80 ? static_cast<double>(to_float(Bf16Bits{static_cast<std::uint16_t>(b + 1)})) : 0x1p128;
    const double mid = (v + next) / 2;  // exact in double
    for (double x : {v, mid, std::nextafter(mid, 0.0), std::nextafter(mid, INFINITY)})
      for (double s : {1.0, -1.0}) {
        const Bf16Bits got = bf16_from_double(s * x);
        const double want = mpfr_rounded(s * x, Dtype::bf16);
        ASSERT_EQ(std::bit_cast<std::uint64_t>(static_cast<double>(to_float(got))), std::bit_cast<std::uint64_t>(want))
            << "x=" << hex(s * x) << " ref=" << hex(want) << " got=" << hex(to_float(got)) << " (0x" << std::hex << got.bits << ")";
      }
  }
  // 1 + 2^-8 + 2^-40: binary32 rounds it to the midpoint 1 + 2^-8, which then goes to even (1).
  EXPECT_EQ(bf16_from_double(1 + 0x1p-8 + 0x1p-40).bits, 0x3F81);
  EXPECT_EQ(bf16_from_float(static_cast<float>(1 + 0x1p-8 + 0x1p-40)).bits, 0x3F80);
  EXPECT_EQ(bf16_from_double(-1e300).bits, 0xFF80);
  EXPECT_EQ(bf16_from_double(std::nan("")).bits, kCanonicalNaNBf16.bits);
  EXPECT_EQ(bf16_from_double(-0.0).bits, 0x8000);
  EXPECT_EQ(bf16_from_double(0x1p-134).bits, 0x0000);  // half the smallest subnormal: to even 0
  EXPECT_EQ(bf16_from_double(std::nextafter(0x1p-134, 1.0)).bits, 0x0001);
  EXPECT_EQ(bf16_from_double(1e-300).bits, 0x0000);
}

// The hardware's float -> binary16 rounding, which the scalar f16_from_float must match: x86's
// VCVTPS2PH (imm8 0: round to nearest even), which the avx2 and avx512 paths round with; AArch64's
// FCVT (the default FPCR: round to nearest even, FZ16 off), which a cast to __fp16 compiles to.
#if defined(__x86_64__)
__attribute__((target("f16c"))) std::uint16_t hardware_round(float f) { return static_cast<std::uint16_t>(__builtin_ia32_vcvtps2ph(__extension__(__attribute__((vector_size(16))) float){f, 0, 0, 0}, 0)[0]); }
// F16C (CPUID.1:ECX[29]) with the OS saving the vector state (OSXSAVE, XCR0 SSE and AVX bits), as
// every VEX instruction needs; clang 14 has no "f16c" for __builtin_cpu_supports.
bool hardware_rounds() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d) == 0 || ((c >> 29) & 1u) == 0 || ((c >> 27) & 1u) == 0) return false;
  unsigned lo = 0, hi = 0;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (lo & 6u) == 6u;
}
constexpr const char* kHardware = "F16C";
#elif defined(__aarch64__)
std::uint16_t hardware_round(float f) { return std::bit_cast<std::uint16_t>(static_cast<__fp16>(f)); }
bool hardware_rounds() { return true; }
constexpr const char* kHardware = "FCVT";
#else
std::uint16_t hardware_round(float) { return 0; }
bool hardware_rounds() { return false; }
constexpr const char* kHardware = "none";
#endif

// They must agree on every float whose rounding is not a NaN (NaN outputs are canonicalised by the
// kernel and never kept by a passing rounding test: kernel/detail/ops.h): 2^24 floats, every
// exponent, with subnormal results and overflow included.
TEST(Binary16, TheScalarRoundingIsTheHardwaresRounding) {
  if (!hardware_rounds()) GTEST_SKIP() << "no float16 conversion instruction known on this CPU";
  for (std::uint64_t i = 0; i < (std::uint64_t{1} << 24); ++i) {
    const auto u = static_cast<std::uint32_t>(i * 0x100000001ull % 0xFFFFFFFBull);  // spread over all 2^32 patterns
    const float f = std::bit_cast<float>(u);
    if (std::isnan(f)) continue;
    const std::uint16_t hw = hardware_round(f), sw = f16_from_float(f).bits;
    ASSERT_EQ(hw, sw) << "x=" << hex(f) << " " << kHardware << "=0x" << std::hex << hw << " scalar=0x" << sw;
  }
}

TEST(StorageOf, MapsKernelDtypesBothWays) {
  static_assert(std::is_same_v<Storage<Dtype::f16>, F16Bits> && dtype_of<F16Bits> == Dtype::f16);
  static_assert(std::is_same_v<Storage<Dtype::bf16>, Bf16Bits> && dtype_of<Bf16Bits> == Dtype::bf16);
  static_assert(std::is_same_v<Storage<Dtype::f32>, float> && dtype_of<float> == Dtype::f32);
  for (Dtype t : kKernelDtypes)
    EXPECT_EQ(with_storage(t, [](auto e) { return static_cast<int>(sizeof(e)); }), dtype_info(t).bytes) << dtype_name(t);
  EXPECT_EQ(value_of_bits(Dtype::f16, 0x3C00), 1.0);
  EXPECT_EQ(bits_of_value(Dtype::f16, 1.0), 0x3C00u);
  EXPECT_EQ(bits_of_value(Dtype::bf16, 1.0), 0x3F80u);
  EXPECT_EQ(bits_of_value(Dtype::f32, std::nan("")), kCanonicalNaNF32);
}

// Every kernel dtype's narrowing (narrow_to, the one every layer calls) round-trips its own values:
// every pattern of a 16-bit format, every 2^11th float32 pattern; a NaN gives the format's canonical
// NaN (numeric/dtype.h). It agrees with bits_of_value on float values, and narrow<D> is narrow_to of
// D's storage. A new format whose narrowing is missing or wrong fails here.
TEST(Narrow, EveryKernelDtypeRoundTripsItsValues) {
  for (Dtype t : kKernelDtypes) {
    with_storage(t, [&](auto e) {
      using E = decltype(e);
      const int bits = 8 * static_cast<int>(sizeof(E));
      const std::uint64_t step = bits == 16 ? 1 : std::uint64_t{1} << 11;
      for (std::uint64_t b = 0; b < (std::uint64_t{1} << bits); b += step) {
        E x;
        if constexpr (std::is_same_v<E, float>) x = std::bit_cast<float>(static_cast<std::uint32_t>(b));
        else x = E{static_cast<std::uint16_t>(b)};
        const double v = widen(x);
        const float f = static_cast<float>(v);
        if (!std::isnan(v)) {
          ASSERT_EQ(static_cast<double>(f), v) << dtype_name(t);  // every value is a float
        }
        const std::uint32_t want = std::isnan(v) ? static_cast<std::uint32_t>(dtype_info(t).canonical_nan) : bits_of(x);
        ASSERT_EQ(bits_of(narrow_to<E>(f)), want) << dtype_name(t) << " pattern 0x" << std::hex << b;
        ASSERT_EQ(bits_of(narrow<dtype_of<E>>(f)), want) << dtype_name(t);
        ASSERT_EQ(bits_of_value(t, v), want) << dtype_name(t) << " pattern 0x" << std::hex << b;
        ASSERT_EQ(bits_of(narrow_from_double<dtype_of<E>>(v)), want) << dtype_name(t) << " pattern 0x" << std::hex << b;
      }
      // Between values: the float just above each sampled value rounds as bits_of_value rounds it.
      for (std::uint32_t b = 0; b < 0x7F800000u; b += 0x10001u) {
        const float f = std::bit_cast<float>(b);
        ASSERT_EQ(bits_of(narrow_to<E>(f)), bits_of_value(t, f)) << dtype_name(t) << " x=" << hex(f);
        ASSERT_EQ(bits_of(narrow_to<E>(-f)), bits_of_value(t, -f)) << dtype_name(t) << " x=" << hex(-f);
      }
    });
  }
}

}  // namespace
}  // namespace ropecheck::small_floats_test

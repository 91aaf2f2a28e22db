// apply_rope: every path agrees with the scalar reference bit for bit (all variants, layouts,
// dtypes, strides, in place, threads), the accuracy contract against an MPFR rotation, the
// identity cases bit for bit, layout equivalence, MXCSR independence and input validation.
#include "kernel/apply_rope.h"
#include "numeric/round_to_binary.h"

#include <gtest/gtest.h>

#include <mpfr.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>

#include "io/input_error.h"
#include "numeric/small_floats.h"
#include "numeric/precision.h"
#include "numeric/scalar.h"
#include "random/counter_rng.h"
#include "spectrum/frequencies.h"
#include "spectrum/request.h"
#include "tests/support/flush_to_zero.h"

namespace ropecheck::kernel {
namespace {

constexpr std::uint64_t kApplySeed = 20261121;


// A float32 from random bits: mostly moderate normals, some raw 32-bit patterns (NaN, inf,
// subnormals included when `specials`), some chosen edge values.
float random_f32(const CounterRng& rng, std::uint64_t i, bool specials) {
  const std::uint64_t b = rng.bits(i);
  const unsigned kind = static_cast<unsigned>(b % 16);
  const std::uint32_t u = static_cast<std::uint32_t>(b >> 32);
  if (kind < 11) {
    const std::uint32_t exponent = 100 + static_cast<std::uint32_t>((b >> 8) % 50);  // 2^-27 .. 2^22
    return std::bit_cast<float>((u & 0x807FFFFFu) | (exponent << 23));
  }
  if (kind < 13 && specials) return std::bit_cast<float>(u);
  static const float edges[] = {0.0f, -0.0f, 0x1p-149f, -0x1p-149f, 0x1p-126f, 0x1.fffffcp-127f, 1.0f, -1.0f,
                                0x1p-100f, 0x1.fffffep+100f, -3.5f, 1e-30f};
  static const float special_edges[] = {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                                        std::bit_cast<float>(0x7FC12345u), std::bit_cast<float>(0xFF800001u),
                                        std::numeric_limits<float>::max(), -std::numeric_limits<float>::max()};
  if (specials && kind == 13) return special_edges[(b >> 8) % 6];
  return edges[(b >> 8) % 12];
}

std::vector<std::int64_t> random_positions(std::int64_t n, std::uint64_t stream) {
  const CounterRng rng(kApplySeed, stream);
  std::vector<std::int64_t> p;
  static const std::int64_t edges[] = {0, 1, 710, 1LL << 24, (1LL << 31) + 1, (1LL << 40) - 1, -5, -(1LL << 35)};
  for (std::int64_t t = 0; t < n; ++t) {
    const std::uint64_t b = rng.bits(static_cast<std::uint64_t>(t));
    const int e = static_cast<int>(b % 41);
    if ((b >> 60) == 0) p.push_back(edges[(b >> 8) % 8]);
    else p.push_back(static_cast<std::int64_t>((b >> 20) & ((std::uint64_t{1} << e) - 1)));
  }
  return p;
}

std::vector<Spectrum> variant_spectra(int dim) {
  return {Spectrum(dim, "10000"),
          Spectrum(dim, "10000", Variant::nope),
          Spectrum(dim, "10000", Variant::p_rope, "0.25"),
          Spectrum(dim, "500000", Variant::p_rope, "0.58"),
          Spectrum(dim, "10000", Variant::p_rope, "0"),
          Spectrum(dim, "10000", Variant::reversed, "0.5"),
          Spectrum(dim, "10000", Variant::partial, "0.5")};
}

std::string bits_of(float f) {
  char b[64];
  std::snprintf(b, sizeof b, "%a (0x%08x)", static_cast<double>(f), std::bit_cast<std::uint32_t>(f));
  return b;
}

// A strided tensor buffer: tokens x heads rows of `dim`, with `pad` spare elements after each
// head row and after each token (q inside a fused buffer), so strides differ from dense.
template <typename E>
struct Buffer {
  std::vector<E> data;
  TensorView<E> view;
  Buffer(std::int64_t tokens, std::int64_t heads, int dim, int pad) {
    const std::int64_t hs = dim + pad, ts = heads * hs + 3 * pad;
    data.assign(static_cast<size_t>(tokens * ts + 64), E{});
    view = TensorView<E>{data.data(), tokens, heads, ts, hs};
  }
  TensorView<const E> cview() const { return TensorView<const E>{data.data(), view.tokens, view.heads, view.token_stride, view.head_stride}; }
};

template <typename E>
void fill(Buffer<E>& b, std::uint64_t stream, bool specials) {
  const CounterRng rng(kApplySeed, stream);
  for (size_t i = 0; i < b.data.size(); ++i) {
    const float f = random_f32(rng, i, specials);
    const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
    if constexpr (std::is_same_v<E, float>) b.data[i] = f;
    else if constexpr (std::is_same_v<E, Bf16Bits>) b.data[i] = Bf16Bits{static_cast<std::uint16_t>(u >> 16)};
    // float16: the value rounded (its range is narrow: without specials, beyond it is the largest
    // finite value), NaNs kept as NaNs with a payload of their own.
    else if (std::isnan(f)) b.data[i] = F16Bits{static_cast<std::uint16_t>(((u >> 16) & 0x8000u) | 0x7C00u | ((u >> 13) & 0x3FFu) | 1u)};
    else b.data[i] = specials || is_finite(f16_from_float(f)) ? f16_from_float(f) : f16_from_float(std::copysign(65504.0f, f));
  }
}

template <typename E>
std::uint32_t raw_bits(E e) { return ropecheck::bits_of(e); }

template <typename E>
void expect_paths_agree(const RopePlan& plan, std::int64_t tokens, std::int64_t heads, int pad, std::uint64_t stream) {
  const std::vector<std::int64_t> pos = random_positions(tokens, stream);
  Buffer<E> in(tokens, heads, plan.dim(), pad);
  fill(in, stream, true);
  Buffer<E> reference(tokens, heads, plan.dim(), pad);
  KernelStats reference_stats;
  apply_rope(plan, pos, in.cview(), reference.view, {cpu::Path::scalar, 1, &reference_stats});
  for (cpu::Path path : cpu::available_paths())
    for (int threads : {1, 2, 3}) {
      Buffer<E> out(tokens, heads, plan.dim(), pad);
      KernelStats stats;
      apply_rope(plan, pos, in.cview(), out.view, {path, threads, &stats});
      // The same first test on every path (ops.h): the same outputs redone and sent to level 3.
      EXPECT_EQ(stats.redone, reference_stats.redone) << plan.describe() << " path " << cpu::path_name(path) << " threads " << threads;
      EXPECT_EQ(stats.slow, reference_stats.slow) << plan.describe() << " path " << cpu::path_name(path) << " threads " << threads;
      Buffer<E> inplace = in;
      inplace.view.data = inplace.data.data();
      apply_rope(plan, pos, inplace.cview(), inplace.view, {path, threads});
      for (std::int64_t t = 0; t < tokens; ++t)
        for (std::int64_t h = 0; h < heads; ++h)
          for (int e = 0; e < plan.dim(); ++e) {
            const size_t i = static_cast<size_t>(t * in.view.token_stride + h * in.view.head_stride + e);
            const auto want = reference.data[i];
            ASSERT_EQ(raw_bits(out.data[i]),
                      raw_bits(want))
                << plan.describe() << " path " << cpu::path_name(path) << " threads " << threads << " t=" << t << " p=" << pos[static_cast<size_t>(t)]
                << " h=" << h << " e=" << e << " (out of place)";
            ASSERT_EQ(raw_bits(inplace.data[i]),
                      raw_bits(want))
                << plan.describe() << " path " << cpu::path_name(path) << " threads " << threads << " t=" << t << " h=" << h << " e=" << e << " (in place)";
          }
    }
}

TEST(ApplyRope, EveryPathThreadCountAndPlacementGivesTheScalarBits) {
  for (int dim : {2, 6, 10, 16, 30, 34, 64, 128})
    for (const Spectrum& s : variant_spectra(dim))
      for (Layout layout : {Layout::interleaved, Layout::half}) {
        const RopePlan plan(s, layout);
        expect_paths_agree<float>(plan, 7, 3, dim % 7, 1000 + static_cast<std::uint64_t>(dim));
        expect_paths_agree<Bf16Bits>(plan, 7, 3, dim % 5, 2000 + static_cast<std::uint64_t>(dim));
        expect_paths_agree<F16Bits>(plan, 7, 3, dim % 3, 3000 + static_cast<std::uint64_t>(dim));
      }
}

// Wide heads (up to kMaxHeadDim's scale): the SIMD paths note each step's failed lanes in a scratch
// list sized from the head and redo them after the steps, in place from a copy of the inputs; a
// list too short for the narrowest steps (AVX2's 8 lanes over an interleaved head: R / 4 steps)
// once overwrote that copy, and only wide in-place heads showed it.
TEST(ApplyRope, WideHeadsEveryPathAndPlacementGiveTheScalarBits) {
  for (int dim : {512, 2048, 8192})
    for (Layout layout : {Layout::interleaved, Layout::half}) {
      const RopePlan plan(Spectrum(dim, "10000"), layout);
      expect_paths_agree<float>(plan, 2, 3, 0, 4000 + static_cast<std::uint64_t>(dim));
      expect_paths_agree<Bf16Bits>(plan, 2, 3, 0, 5000 + static_cast<std::uint64_t>(dim));
      expect_paths_agree<F16Bits>(plan, 2, 3, 0, 6000 + static_cast<std::uint64_t>(dim));
    }
}

// ulp of the exact value y in a format with `digits` significand bits and smallest normal
// exponent `emin` (float32: 24, -126; bf16: 8, -126; f16: 11, -14).
Real format_ulp(const Real& y, int digits, int emin) {
  if (y == 0) return Real(ldexp(Real(1), emin - digits + 1));
  const long e = mpfr_get_exp(y.backend().data()) - 1;  // |y| in [2^e, 2^(e+1))
  return Real(ldexp(Real(1), static_cast<int>(std::max<long>(e, emin)) - digits + 1));
}

struct Accuracy {
  double worst = 0;
  long outputs = 0, correctly_rounded = 0;
};

// The contract of apply_rope.h, checked against an exact rotation at 256 bits (g_k from
// frequencies<Real>, MPFR sin/cos): error in ulps floored at floor_scale * ||x||.
template <typename E>
Accuracy measure(const RopePlan& plan, cpu::Path path, std::int64_t tokens, std::int64_t heads, std::uint64_t stream) {
  const std::vector<std::int64_t> pos = random_positions(tokens, stream);
  Buffer<E> in(tokens, heads, plan.dim(), 0), out(tokens, heads, plan.dim(), 0);
  fill(in, stream, false);
  apply_rope(plan, pos, in.cview(), out.view, {path, 1});
  const DtypeInfo& info = dtype_info(dtype_of<E>);
  const int digits = info.precision, emin = info.emin_normal;
  const double floor_scale = std::ldexp(1.0, -digits);
  // The contract: correctly rounded, so at most half an ulp in the floored metric (whose unit is
  // never below the true ulp). err is formed at 256 bits and rounded to double: a true value <= 0.5
  // can exceed it by 2^-255 relative at most, which rounds back to 0.5, so 0.5 is the bound to test.
  const double bound = kernel::kProvedUlpBound;
  ScopedPrecision precision(256);
  const std::vector<Real> g = frequencies<Real>(plan.spectrum());
  auto value = [](E e) { return widen(e); };
  Accuracy acc;
  for (std::int64_t t = 0; t < tokens; ++t)
    for (int k = 0; k < plan.block_pairs(); ++k) {
      if (plan.identity(k)) continue;
      Real s, c;
      sin_cos(Real(Real(static_cast<long long>(pos[static_cast<size_t>(t)])) * g[static_cast<size_t>(k)]), s, c);
      for (std::int64_t h = 0; h < heads; ++h) {
        const size_t base = static_cast<size_t>(t * in.view.token_stride + h * in.view.head_stride);
        const size_t ia = base + static_cast<size_t>(plan.first_element(k)), ib = base + static_cast<size_t>(plan.second_element(k));
        const double xa = value(in.data[ia]), xb = value(in.data[ib]);
        const Real norm = sqrt(Real(Real(xa) * xa + Real(xb) * xb));
        const Real ya = Real(xa * c - xb * s), yb = Real(xa * s + xb * c);
        for (int side = 0; side < 2; ++side) {
          const Real& y = side == 0 ? ya : yb;
          const double got = value(out.data[side == 0 ? ia : ib]);
          // A correctly rounded overflow (|y| beyond the format's largest finite value and half its
          // spacing: float16 reaches it from 65504 inputs) is infinity, half an ulp by ulp_error.h's
          // convention; the metric below has no finite unit for it.
          if (std::isinf(got) && got == round_to_dtype(y.backend().data(), dtype_of<E>)) {
            ++acc.outputs;
            ++acc.correctly_rounded;
            continue;
          }
          const Real unit = max(format_ulp(y, digits, emin), Real(norm * floor_scale));
          const double err = to_double(Real(abs(Real(got) - y) / unit));
          ++acc.outputs;
          // Correctly rounded: the got value is the nearest of the format (err < 1/2 of the true ulp).
          if (to_double(Real(abs(Real(got) - y) / format_ulp(y, digits, emin))) <= 0.5) ++acc.correctly_rounded;
          acc.worst = std::max(acc.worst, err);
          if (!(err <= bound))
            ADD_FAILURE() << plan.describe() << " " << cpu::path_name(path) << " " << dtype_name(dtype_of<E>) << " p=" << pos[static_cast<size_t>(t)]
                          << " k=" << k << " x=(" << bits_of(static_cast<float>(xa)) << ", " << bits_of(static_cast<float>(xb))
                          << ") got " << bits_of(static_cast<float>(got)) << " ref " << std::hexfloat << to_double(y) << std::defaultfloat
                          << " err " << err << " ulp > " << bound;
        }
      }
    }
  return acc;
}

TEST(ApplyRope, WithinTheUlpContractOfTheExactRotationAtAnyPosition) {
  for (const char* config : {"gemma-7b", "llama-3.1-8b"})
    for (Layout layout : {Layout::interleaved, Layout::half}) {
      const RopePlan plan(config_spectrum(config), layout);
      for (cpu::Path path : {cpu::Path::scalar, cpu::available_paths().back()}) {
        const Accuracy f = measure<float>(plan, path, 24, 2, 77);
        const Accuracy b = measure<Bf16Bits>(plan, path, 24, 2, 78);
        const Accuracy h = measure<F16Bits>(plan, path, 24, 2, 79);
        std::printf("[ accuracy ] %s %s %s: f32 max %.9f ulp, %ld/%ld correctly rounded; bf16 max %.9f ulp, %ld/%ld "
                    "correctly rounded; f16 max %.9f ulp, %ld/%ld correctly rounded (ulp floored at 2^-p x pair norm; "
                    "sampled: lower bounds on the max)\n",
                    config, layout_name(layout).c_str(), cpu::path_name(path).c_str(), f.worst, f.correctly_rounded, f.outputs,
                    b.worst, b.correctly_rounded, b.outputs, h.worst, h.correctly_rounded, h.outputs);
      }
    }
}

TEST(ApplyRope, OverflowRoundsToInfinityLikeTheExactRotation) {
  // (FLT_MAX, FLT_MAX) turned by about 45 degrees has a component ~1.41 FLT_MAX, beyond
  // FLT_MAX + ulp/2: its correct rounding is +inf; binary64 arithmetic cannot overflow first.
  const RopePlan plan(Spectrum(2, "10000"), Layout::interleaved);
  // g_1 = 1 rad/token: position 1 rotates by 1 rad, cos 1 + sin 1 = 1.38 > 1.
  const std::vector<std::int64_t> pos{1};
  const float m = std::numeric_limits<float>::max();
  for (cpu::Path path : cpu::available_paths()) {
    float x[2] = {m, m}, y[2];
    apply_rope(plan, pos, dense_view<const float>(x, 1, 1, 2), dense_view<float>(y, 1, 1, 2), {path, 1});
    EXPECT_EQ(y[1], std::numeric_limits<float>::infinity()) << cpu::path_name(path) << " got " << bits_of(y[1]);
    EXPECT_EQ(y[0], static_cast<float>(static_cast<double>(m) * (std::cos(1.0) - std::sin(1.0)))) << cpu::path_name(path);
  }
}

TEST(ApplyRope, NopeAndPRopeZeroAreTheIdentityBitForBit) {
  for (const Spectrum& s : {Spectrum(64, "10000", Variant::nope), Spectrum(64, "10000", Variant::p_rope, "0"),
                            Spectrum(64, "10000", Variant::partial, "0")})
    for (Layout layout : {Layout::interleaved, Layout::half}) {
      const RopePlan plan(s, layout);
      for (cpu::Path path : cpu::available_paths()) {
        Buffer<float> in(9, 4, 64, 3), out(9, 4, 64, 3);
        fill(in, 5, true);
        Buffer<Bf16Bits> inb(9, 4, 64, 3), outb(9, 4, 64, 3);
        fill(inb, 6, true);
        Buffer<F16Bits> inh(9, 4, 64, 3), outh(9, 4, 64, 3);
        fill(inh, 8, true);
        const std::vector<std::int64_t> pos = random_positions(9, 7);
        apply_rope(plan, pos, in.cview(), out.view, {path, 2});
        apply_rope(plan, pos, inb.cview(), outb.view, {path, 2});
        apply_rope(plan, pos, inh.cview(), outh.view, {path, 2});
        for (std::int64_t t = 0; t < 9; ++t)
          for (std::int64_t h = 0; h < 4; ++h)
            for (int e = 0; e < 64; ++e) {
              const size_t i = static_cast<size_t>(t * in.view.token_stride + h * in.view.head_stride + e);
              ASSERT_EQ(std::bit_cast<std::uint32_t>(out.data[i]), std::bit_cast<std::uint32_t>(in.data[i])) << s.describe() << " " << cpu::path_name(path);
              ASSERT_EQ(outb.data[i], inb.data[i]) << s.describe() << " " << cpu::path_name(path);
              ASSERT_EQ(outh.data[i], inh.data[i]) << s.describe() << " " << cpu::path_name(path);
            }
      }
    }
}

TEST(ApplyRope, InterleavedAndHalfAgreeAfterPermutingTheElements) {
  // Pair k is (2k, 2k+1) in one layout and (k, k + R) in the other; the arithmetic per pair is
  // the same, so permuting the input and output gives the same bits.
  for (const Spectrum& s : variant_spectra(48)) {
    const RopePlan inter(s, Layout::interleaved), half(s, Layout::half);
    const int r = inter.block_pairs(), d = 48;
    Buffer<float> a(5, 2, d, 0), b(5, 2, d, 0), ya(5, 2, d, 0), yb(5, 2, d, 0);
    fill(a, 9, true);
    for (std::int64_t row = 0; row < 10; ++row) {
      for (int k = 0; k < r; ++k) {
        b.data[static_cast<size_t>(row * d + k)] = a.data[static_cast<size_t>(row * d + 2 * k)];
        b.data[static_cast<size_t>(row * d + k + r)] = a.data[static_cast<size_t>(row * d + 2 * k + 1)];
      }
      for (int e = 2 * r; e < d; ++e) b.data[static_cast<size_t>(row * d + e)] = a.data[static_cast<size_t>(row * d + e)];
    }
    const std::vector<std::int64_t> pos = random_positions(5, 10);
    apply_rope(inter, pos, a.cview(), ya.view);
    apply_rope(half, pos, b.cview(), yb.view);
    for (std::int64_t row = 0; row < 10; ++row)
      for (int k = 0; k < r; ++k) {
        ASSERT_EQ(std::bit_cast<std::uint32_t>(ya.data[static_cast<size_t>(row * d + 2 * k)]), std::bit_cast<std::uint32_t>(yb.data[static_cast<size_t>(row * d + k)])) << s.describe();
        ASSERT_EQ(std::bit_cast<std::uint32_t>(ya.data[static_cast<size_t>(row * d + 2 * k + 1)]), std::bit_cast<std::uint32_t>(yb.data[static_cast<size_t>(row * d + k + r)])) << s.describe();
      }
  }
}

TEST(ApplyRope, ATableGivesTheSameBitsAsPositions) {
  const RopePlan plan(config_spectrum("gemma-7b"), Layout::half);
  const std::vector<std::int64_t> pos = random_positions(11, 12);
  const SinCosTable table(plan, pos);
  Buffer<float> in(11, 3, 256, 0), a(11, 3, 256, 0), b(11, 3, 256, 0);
  fill(in, 13, true);
  apply_rope(plan, pos, in.cview(), a.view);
  apply_rope(table, in.cview(), b.view, {cpu::default_path(), 2});
  for (size_t i = 0; i < a.data.size(); ++i) ASSERT_EQ(std::bit_cast<std::uint32_t>(a.data[i]), std::bit_cast<std::uint32_t>(b.data[i])) << i;
}

TEST(ApplyRope, TheCallersFlushToZeroModeDoesNotLeakIn) {
  // Subnormal inputs stay subnormal-exact whatever flush-to-zero and rounding mode the caller runs
  // with (x86: MXCSR FTZ + DAZ; AArch64: FPCR.FZ), and the caller's mode is restored.
  if (!test::HostileFloatEnvironment::supported) GTEST_SKIP() << "no known flush-to-zero control on this architecture";
  const RopePlan plan(Spectrum(8, "10000"), Layout::half);
  const std::vector<std::int64_t> pos{0, 3};
  float x[16], want[16], got[16];
  for (int i = 0; i < 16; ++i) x[i] = 0x1p-140f * static_cast<float>(i + 1);
  for (cpu::Path path : cpu::available_paths()) {
    apply_rope(plan, pos, dense_view<const float>(x, 2, 1, 8), dense_view<float>(want, 2, 1, 8), {path, 1});
    unsigned hostile = 0, after = 0;
    {
      const test::HostileFloatEnvironment flush;
      hostile = test::HostileFloatEnvironment::control();
      apply_rope(plan, pos, dense_view<const float>(x, 2, 1, 8), dense_view<float>(got, 2, 1, 8), {path, 1});
      after = test::HostileFloatEnvironment::control();
    }
    EXPECT_EQ(after, hostile) << "the caller's control bits must be restored";
    for (int i = 0; i < 16; ++i) EXPECT_EQ(std::bit_cast<std::uint32_t>(got[i]), std::bit_cast<std::uint32_t>(want[i])) << cpu::path_name(path) << " i=" << i;
    EXPECT_EQ(want[0], x[0]) << "position 0 is the identity, subnormals included";
  }
}

TEST(ApplyRope, RejectsViewsThatDisagree) {
  const RopePlan plan(Spectrum(8, "10000"), Layout::half);
  std::vector<float> a(64), b(64);
  const std::vector<std::int64_t> two{1, 2}, three{1, 2, 3};
  auto in = dense_view<const float>(a.data(), 2, 2, 8);
  auto out = dense_view<float>(b.data(), 2, 2, 8);
  EXPECT_THROW(apply_rope(plan, three, in, out), InputError);                                   // positions count
  EXPECT_THROW(apply_rope(plan, two, in, dense_view<float>(b.data(), 2, 1, 8)), InputError);     // heads differ
  EXPECT_THROW(apply_rope(plan, two, in, dense_view<float>(a.data() + 4, 2, 2, 8)), InputError);  // overlap
  EXPECT_THROW(apply_rope(plan, two, in, TensorView<float>{b.data(), 2, 2, 16, 4}), InputError);  // rows overlap
  EXPECT_THROW(apply_rope(plan, two, in, out, {cpu::Path::scalar, 0}), InputError);                   // threads
  EXPECT_NO_THROW(apply_rope(plan, two, in, out, {cpu::Path::scalar, 1}));
  EXPECT_NO_THROW(apply_rope(plan, two, TensorView<const float>{a.data(), 2, 2, 16, 8}, TensorView<float>{a.data(), 2, 2, 16, 8}));  // in place
}

}  // namespace
}  // namespace ropecheck::kernel

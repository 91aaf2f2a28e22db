// The kernel's contract (apply_rope.h): every output is the correctly rounded value of the exact
// map a (x_a cos(p g_k) - x_b sin(p g_k)), on every path. Checked against an exact value computed
// here (Boost mpfr_float at 640 bits from the spectrum's real frequencies and attention factor:
// no kernel arithmetic), on
//   - generated layer types: random linear / llama3 / yarn / longrope / dynamic parameters,
//     attention factors, rotary widths and offsets (NeoX partial, MLA rope part), both layouts;
//   - inputs on the rounding boundary: the attention factor chosen (a 120-digit decimal) so that
//     the exact output lies 2^-d of its magnitude above or below a midpoint, d = 60, 200, 320 (the
//     accurate path's first, second and recomputed levels);
//   - near-cancellation pairs from the continued fraction of tan(p g_k): outputs down to 2^-60 of
//     the pair's norm.
//   - zero pairs (the sign IEEE arithmetic of the formula gives, no accurate path) and inputs
//     outside the binary32 level's range (tiny, huge, attention factors below 2^-60 and above
//     2^60), which the bfloat16 path must hand to its binary64 level.
// Every path is also run in place and must give the out-of-place bits.
// A failure prints x=%a ref=%a got=%a with the position, pair and path.
#include <gtest/gtest.h>

#include <gmp.h>
#include <mpfr.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "kernel/apply_rope.h"
#include "numeric/small_floats.h"
#include "kernel/exact_rotation.h"
#include "kernel/sincos_table.h"
#include "io/input_error.h"
#include "numeric/precision.h"
#include "numeric/round_to_binary.h"
#include "numeric/scalar.h"
#include "random/counter_rng.h"
#include "spectrum/attention_factor.h"
#include "spectrum/frequencies.h"
#include "spectrum/scaling_registry.h"
#include "tests/support/random_floats.h"

namespace ropecheck::kernel {
namespace {

constexpr std::uint64_t kRoundingSeed = 20261126;
constexpr unsigned kBits = 640;

// The exact map at kBits for one plan and position: g_k, a from the spectrum.
struct Exact {
  std::vector<Real> g;
  Real a;
  explicit Exact(const RopePlan& plan) {
    g = frequencies<Real>(plan.spectrum());
    a = attention_factor<Real>(plan.spectrum().scaling());
  }
  // Returns: component `second` of block pair k at p, exact to ~2^-600 relative to ||x||.
  Real y(const RopePlan& plan, int k, std::int64_t p, double xa, double xb, bool second) const {
    Real s, c;
    if (plan.spectrum().rotated(k) && p != 0) {
      sin_cos(Real(Real(static_cast<long long>(p)) * g[static_cast<size_t>(k)]), s, c);
    } else {
      s = 0;
      c = 1;
    }
    return Real(a * (second ? Real(Real(xa) * s + Real(xb) * c) : Real(Real(xa) * c - Real(xb) * s)));
  }
};

double rounded(const Real& y, Dtype f) { return round_to_dtype(y.backend().data(), f); }

// True when y is within 2^-560 of its magnitude of a rounding boundary of the format (the exact
// value above could round either way: the comparison is inconclusive, never counted as a pass).
bool near_boundary(const Real& y, Dtype f) {
  const Real d = Real(abs(y) * ldexp(Real(1), -560) + ldexp(Real(1), -1000));
  return rounded(Real(y - d), f) != rounded(Real(y + d), f);
}

template <typename E>
double value(E v) { return widen(v); }
// A float that is a value of E's format, stored as E.
template <typename E>
E narrow_to(float v) {
  if constexpr (std::is_same_v<E, float>) return v;
  else if constexpr (std::is_same_v<E, Bf16Bits>) return bf16_from_float(v);
  else return f16_from_float(v);
}
template <typename E>
std::uint32_t bits(E v) { return ropecheck::bits_of(v); }

// Applies `plan` on every path to rows [tokens][1][dim] and checks every output: rotary outputs
// equal the exact value's rounding (decided cases), pass-through elements equal the input bits,
// paths agree bit for bit. Returns the scalar path's stats.
template <typename E>
KernelStats check(const RopePlan& plan, const std::vector<std::int64_t>& pos, const std::vector<E>& in, const std::string& what,
                  long* inconclusive = nullptr) {
  constexpr Dtype f = dtype_of<E>;
  const int dim = plan.dim();
  const auto tokens = static_cast<std::int64_t>(pos.size());
  std::vector<E> first;
  KernelStats scalar_stats;
  ScopedPrecision precision(kBits);
  const Exact exact(plan);
  for (cpu::Path path : cpu::available_paths()) {
    std::vector<E> out(in.size());
    KernelStats stats;
    apply_rope(plan, pos, dense_view<const E>(in.data(), tokens, 1, dim), dense_view<E>(out.data(), tokens, 1, dim), {path, 1, &stats});
    EXPECT_EQ(stats.unresolved, 0) << what;
    {
      // In place: the SIMD paths redo failed lanes after each head from a copy of its inputs.
      std::vector<E> inout = in;
      apply_rope(plan, pos, dense_view<const E>(inout.data(), tokens, 1, dim), dense_view<E>(inout.data(), tokens, 1, dim), {path, 1});
      for (size_t i = 0; i < out.size(); ++i)
        if (bits(inout[i]) != bits(out[i])) {
          ADD_FAILURE() << what << " " << plan.describe() << " path " << cpu::path_name(path) << ": in place differs at element " << i;
          break;
        }
    }
    if (first.empty()) {
      first = out;
      scalar_stats = stats;
      for (std::int64_t t = 0; t < tokens; ++t) {
        const E* x = in.data() + t * dim;
        const E* y = out.data() + t * dim;
        std::vector<bool> rotary(static_cast<size_t>(dim), false);
        for (int k = 0; k < plan.block_pairs(); ++k) {
          const int ia = plan.first_element(k), ib = plan.second_element(k);
          rotary[static_cast<size_t>(ia)] = rotary[static_cast<size_t>(ib)] = !plan.identity(k);
          if (plan.identity(k)) continue;
          const double xa = value(x[ia]), xb = value(x[ib]);
          if (!std::isfinite(xa) || !std::isfinite(xb) || (xa == 0 && xb == 0)) continue;
          for (int side = 0; side < 2; ++side) {
            const Real yv = exact.y(plan, k, pos[static_cast<size_t>(t)], xa, xb, side == 1);
            const double got = value(y[side == 0 ? ia : ib]);
            if (near_boundary(yv, f)) {
              if (inconclusive != nullptr) ++*inconclusive;
              continue;
            }
            const double want = rounded(yv, f);
            if (!(got == want && std::signbit(got) == std::signbit(want)))
              ADD_FAILURE() << what << " " << plan.describe() << " p=" << pos[static_cast<size_t>(t)] << " k=" << k
                            << (side ? " y_b" : " y_a") << " " << dtype_name(f) << ": x=(" << std::hexfloat << xa << ", " << xb
                            << ") ref=" << to_double(yv) << " want=" << want << " got=" << got << std::defaultfloat;
          }
        }
        for (int e = 0; e < dim; ++e)
          if (!rotary[static_cast<size_t>(e)] && bits(y[e]) != bits(x[e]))
            ADD_FAILURE() << what << " " << plan.describe() << " element " << e << " not copied bit for bit";
      }
    } else {
      for (size_t i = 0; i < out.size(); ++i)
        if (bits(out[i]) != bits(first[i])) {
          ADD_FAILURE() << what << " " << plan.describe() << " path " << cpu::path_name(path) << " differs from scalar at element " << i;
          break;
        }
      EXPECT_EQ(stats.slow, scalar_stats.slow) << what << " " << cpu::path_name(path);
      // Every path runs the same first test (ops.h), so the same outputs are redone.
      EXPECT_EQ(stats.redone, scalar_stats.redone) << what << " " << cpu::path_name(path);
    }
  }
  return scalar_stats;
}

std::string decimal(const CounterRng& rng, std::uint64_t i, double lo, double hi, int digits = 3) {
  const double u = static_cast<double>(rng.bits(i) >> 11) * 0x1p-53;
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, lo + (hi - lo) * u);
  return b;
}

// A generated scaling of kind (draw % 6) for `pairs` rotating pairs.
Scaling generated_scaling(const CounterRng& rng, std::uint64_t i, int pairs) {
  Scaling s;
  switch (rng.bits(i) % 6) {
    case 0: return s;
    case 1: return Scaling::linear(decimal(rng, i + 1, 1, 16));
    case 2:
      return Scaling::llama3(decimal(rng, i + 1, 2, 32), decimal(rng, i + 2, 0.5, 2), decimal(rng, i + 3, 2.5, 8),
                             1024 << (rng.bits(i + 4) % 4));
    case 3:
      s.kind = Scaling::Kind::yarn;
      s.factor = decimal(rng, i + 1, 1.5, 40);
      s.original_context = 2048 << (rng.bits(i + 2) % 5);
      s.beta_fast = decimal(rng, i + 3, 16, 64, 1);
      s.beta_slow = decimal(rng, i + 4, 0.5, 2, 2);
      s.truncate = rng.bits(i + 5) % 2 == 0;
      if (rng.bits(i + 6) % 2 == 0) s.attention_factor = decimal(rng, i + 7, 0.7, 1.6, 6);
      return s;
    case 4:
      s.kind = Scaling::Kind::longrope;
      s.original_context = 4096;
      s.max_position = 131072;
      s.sequence_length = rng.bits(i + 1) % 2 == 0 ? 2048 : 65536;
      for (int k = 0; k < pairs; ++k) {
        s.short_factor.push_back(decimal(rng, i + 10 + static_cast<std::uint64_t>(k), 1, 3));
        s.long_factor.push_back(decimal(rng, i + 200 + static_cast<std::uint64_t>(k), 1, 60));
      }
      s.factor = rng.bits(i + 2) % 2 == 0 ? "" : decimal(rng, i + 3, 1, 40);
      if (rng.bits(i + 4) % 3 == 0) s.attention_factor = decimal(rng, i + 5, 1, 1.4, 5);
      return s;
    default:
      s.kind = Scaling::Kind::dynamic;
      s.factor = decimal(rng, i + 1, 1, 8);
      s.max_position = 4096;
      s.sequence_length = 4096 + static_cast<long long>(rng.bits(i + 2) % 100000);
      return s;
  }
}

// A new scaling kind (spectrum/scaling_registry.h) needs its case above, or the kernel is never
// checked under it. The kinds are drawn as bits % 6: 200 draws miss one with probability
// (5/6)^200 < 1e-15, and the counter-based draws are the same every run.
TEST(CorrectRounding, GeneratedScalingsCoverEveryRegisteredKind) {
  const CounterRng rng(kRoundingSeed, 5);
  std::set<Scaling::Kind> drawn;
  for (std::uint64_t i = 0; i < 200; ++i) drawn.insert(generated_scaling(rng, 1000 * i, 4).kind);
  for (const ScalingRuleInfo* rule : scaling_rules()) EXPECT_TRUE(drawn.count(rule->value)) << "generated_scaling never draws " << rule->name;
}

std::int64_t position(const CounterRng& rng, std::uint64_t i) {
  const std::uint64_t b = rng.bits(i);
  static const std::int64_t edges[] = {0, 1, (1LL << 24) + 1, (1LL << 31) + 7, -3, (1LL << 62) + 12345, INT64_MIN, INT64_MAX};
  if (b % 5 == 0) return edges[(b >> 8) % 8];
  return static_cast<std::int64_t>((b >> 16) & ((std::uint64_t{1} << ((b >> 4) % 48)) - 1));
}

TEST(CorrectRounding, GeneratedLayerTypesEveryPathEveryOutput) {
  const CounterRng rng(kRoundingSeed, 1);
  KernelStats total;
  long inconclusive = 0;
  for (std::uint64_t m = 0; m < 24; ++m) {
    const std::uint64_t base = m * 1000;
    const int rotary = 2 * (2 + static_cast<int>(rng.bits(base) % 31));       // 4 .. 64
    const int extra = 2 * static_cast<int>(rng.bits(base + 1) % 9);           // pass-through channels
    const int head = rotary + extra;
    const int offset = rng.bits(base + 2) % 2 == 0 ? 0 : extra;              // NeoX partial or MLA
    const Layout layout = rng.bits(base + 3) % 2 == 0 ? Layout::interleaved : Layout::half;
    const std::string theta = rng.bits(base + 4) % 2 == 0 ? "10000" : "500000";
    const Spectrum s = Spectrum(rotary, theta).with_scaling(generated_scaling(rng, base + 10, rotary / 2));
    const RopePlan plan(s, layout, head, offset);
    std::vector<std::int64_t> pos;
    std::vector<float> in32;
    std::vector<Bf16Bits> in16;
    std::vector<F16Bits> inh;
    const std::int64_t tokens = 6;
    for (std::int64_t t = 0; t < tokens; ++t) pos.push_back(position(rng, base + 500 + static_cast<std::uint64_t>(t)));
    for (std::int64_t i = 0; i < tokens * head; ++i) {
      const float v = moderate_float(rng, base + 600 + static_cast<std::uint64_t>(i));
      in32.push_back(v);
      in16.push_back(bf16_from_float(moderate_float(rng, base + 900 + static_cast<std::uint64_t>(i))));
      inh.push_back(f16_from_float(moderate_float(rng, base + 1200 + static_cast<std::uint64_t>(i))));
    }
    const std::string what = "generated model " + std::to_string(m);
    const KernelStats a = check<float>(plan, pos, in32, what, &inconclusive);
    const KernelStats b = check<Bf16Bits>(plan, pos, in16, what, &inconclusive);
    const KernelStats h = check<F16Bits>(plan, pos, inh, what, &inconclusive);
    total.outputs += a.outputs + b.outputs + h.outputs;
    total.slow += a.slow + b.slow + h.slow;
  }
  std::printf("[ generated ] 24 layer types: %lld outputs per path, %lld took the accurate path, %ld inconclusive comparisons\n",
              static_cast<long long>(total.outputs), static_cast<long long>(total.slow), inconclusive);
  EXPECT_EQ(inconclusive, 0);
}

// The attention factor that puts component y_a of (x_a, x_b) at pair k, position p at m (1 + sign
// 2^-d), m the midpoint above RN(u a0) in the format, u = x_a cos - x_b sin: a 120-digit decimal.
std::string boundary_factor(const RopePlan& plan, int k, std::int64_t p, double xa, double xb, Dtype fmt, int d, int sign, Real& target) {
  ScopedPrecision precision(kBits);
  const Exact exact(plan);  // the plan's own factor is 1 here: exact.y is u
  const Real u = exact.y(plan, k, p, xa, xb, false);
  const Real near = Real(u * Real("1.25"));
  const double f = rounded(near, fmt);
  const int e = std::ilogb(f);
  const double ulp = std::ldexp(1.0, e - (dtype_info(fmt).precision - 1));
  const Real m = Real(Real(f) + Real(f > 0 ? ulp : -ulp) / 2);
  target = Real(m * Real(1 + sign * ldexp(Real(1), -d)));
  const Real a = Real(target / u);
  char buf[200];
  mpfr_snprintf(buf, sizeof buf, "%.120Rf", a.backend().data());
  return buf;
}

TEST(CorrectRounding, OutputsWithin2ToTheMinusDOfAMidpoint) {
  const CounterRng rng(kRoundingSeed, 2);
  const int levels[] = {60, 200, 320};
  constexpr int kFormats = static_cast<int>(kKernelDtypes.size());
  for (int i = 0; i < 12 * kFormats; ++i) {  // every level x above/below x format x small/large position
    const int d = levels[i % 3];
    const int sign = (i / 3) % 2 == 0 ? 1 : -1;
    const Dtype fmt = kKernelDtypes[static_cast<std::size_t>((i / 6) % kFormats)];
    const std::int64_t p = (i / (6 * kFormats)) % 2 == 0 ? (std::int64_t{1} << 40) + i : 1000 + 17 * i;
    const int k = static_cast<int>(rng.bits(static_cast<std::uint64_t>(i)) % 32);
    Scaling yarn;
    yarn.kind = Scaling::Kind::yarn;
    yarn.factor = "4";
    yarn.original_context = 32768;
    yarn.attention_factor = "1";
    const Spectrum base = Spectrum(64, "1000000").with_scaling(yarn);
    const float xa = moderate_float(rng, 100 + static_cast<std::uint64_t>(i)), xb = moderate_float(rng, 200 + static_cast<std::uint64_t>(i));
    const auto to_format = [&](float v) { return static_cast<float>(value_of_bits(fmt, bits_of_value(fmt, v))); };
    const float ya = to_format(xa), yb = to_format(xb);
    Real target;
    Scaling scaled = yarn;
    scaled.attention_factor = boundary_factor(RopePlan(base, Layout::interleaved), k, p, ya, yb, fmt, d, sign, target);
    const RopePlan plan(base.with_scaling(scaled), Layout::interleaved);
    const std::string what = "boundary d=" + std::to_string(d) + " sign " + std::to_string(sign) + " " + dtype_name(fmt);
    long inconclusive = 0;
    const KernelStats st = with_storage(fmt, [&](auto e) {
      using E = decltype(e);
      std::vector<E> in(64, E{});
      in[static_cast<size_t>(2 * k)] = narrow_to<E>(ya);
      in[static_cast<size_t>(2 * k + 1)] = narrow_to<E>(yb);
      return check<E>(plan, {p}, in, what, &inconclusive);
    });
    EXPECT_EQ(inconclusive, 0) << what;
    EXPECT_GE(st.slow, 1) << what << ": an output 2^-" << d << " from a midpoint must fail the fast path's test";
    // The accurate path decides it at the level its working precision allows: double-double (level
    // 1, error ~2^-100 S) for d = 60, MPFR at 256 bits (level 3; level 2's 128 bits cannot) for
    // d = 200, the first recomputation at 512 (level 4) for d = 320.
    const ExactRotation::Rounded r = plan.exact().round(fmt, k, p, ya, yb, false);
    EXPECT_EQ(r.level, d == 60 ? 1 : d == 200 ? 3 : 4) << what;
    EXPECT_TRUE(r.resolved) << what;
    std::printf("[ boundary ] d=%d %s %s p=%lld k=%d: %lld of %lld outputs took the accurate path\n", d, sign > 0 ? "above" : "below",
                dtype_name(fmt).c_str(), static_cast<long long>(p), k, static_cast<long long>(st.slow), static_cast<long long>(st.outputs));
  }
}

// Continued fraction convergents h/k of r (|r| <= 1), k <= 2^24: (x_a, x_b) = (h, k) makes
// x_a - x_b r tiny. Returns the pair whose y_a = cos t (x_a - x_b tan t) is smallest relative to
// the norm, with that ratio's log2.
struct Cancellation {
  float xa = 0, xb = 0;
  double log2_ratio = 0;
};
Cancellation deepest(const Real& c, const Real& s) {
  const bool use_tan = abs(s) <= abs(c);
  const Real r = use_tan ? Real(s / c) : Real(c / s);
  Real x = r;
  long long h0 = 1, h1 = 0, k0 = 0, k1 = 1;  // h_{-1}/k_{-1} = 1/0, h_{-2}/k_{-2} = 0/1
  Cancellation best{0, 0, 1};
  for (int n = 0; n < 60; ++n) {
    const Real fl = floor(x);
    if (abs(fl) > Real(1LL << 40)) break;  // the next convergent's k would exceed 2^24 anyway
    const long long q = static_cast<long long>(to_double(fl));
    const long long h = q * h0 + h1, k = q * k0 + k1;
    if (std::llabs(h) > (1LL << 24) || std::llabs(k) > (1LL << 24)) break;
    h1 = h0;
    h0 = h;
    k1 = k0;
    k0 = k;
    // tan case: x_a / x_b = h / k ~ tan t; cot case: x_b / x_a = h / k ~ cot t... y_a = x_a c - x_b s.
    const float xa = use_tan ? static_cast<float>(h) : static_cast<float>(k);
    const float xb = use_tan ? static_cast<float>(k) : static_cast<float>(h);
    const Real y = Real(Real(xa) * c - Real(xb) * s);
    const double norm = std::sqrt(static_cast<double>(xa) * xa + static_cast<double>(xb) * xb);
    if (y != 0 && norm > 0) {
      const double l = to_double(Real(log2(Real(abs(y) / norm))));
      if (l < best.log2_ratio) best = {xa, xb, l};
    }
    const Real frac = Real(x - fl);
    if (frac == 0) break;
    x = Real(1 / frac);
  }
  return best;
}

TEST(CorrectRounding, NearCancellationDownTo2ToTheMinus60OfTheNorm) {
  const RopePlan plan(Spectrum(64, "10000"), Layout::half);
  std::vector<std::int64_t> pos;
  std::vector<float> in;
  double deepest_found = 0;
  {
    ScopedPrecision precision(256);
    const std::vector<Real> g = frequencies<Real>(plan.spectrum());
    const CounterRng rng(kRoundingSeed, 3);
    for (std::uint64_t i = 0; i < 4000 && (pos.size() < 8 || deepest_found > -60); ++i) {
      const std::int64_t p = static_cast<std::int64_t>(rng.bits(i) >> 24);  // < 2^40
      std::vector<float> row(64, 0.0f);
      bool any = false;
      for (int k = 0; k < 32; ++k) {
        Real sn, cs;
        sin_cos(Real(Real(static_cast<long long>(p)) * g[static_cast<size_t>(k)]), sn, cs);
        const Cancellation cc = deepest(cs, sn);
        if (cc.log2_ratio > -56) continue;
        row[static_cast<size_t>(k)] = std::ldexp(cc.xa, -12);
        row[static_cast<size_t>(k + 32)] = std::ldexp(cc.xb, -12);
        deepest_found = std::min(deepest_found, cc.log2_ratio);
        any = true;
      }
      if (!any) continue;
      pos.push_back(p);
      in.insert(in.end(), row.begin(), row.end());
    }
  }
  std::printf("[ cancellation ] %zu positions with pairs cancelling below 2^-56 of their norm, deepest 2^%.1f\n", pos.size(), deepest_found);
  ASSERT_FALSE(pos.empty());
  EXPECT_LE(deepest_found, -60.0) << "the search should reach 2^-60 of the norm";
  long inconclusive = 0;
  const KernelStats st = check<float>(plan, pos, in, "near cancellation", &inconclusive);
  EXPECT_EQ(inconclusive, 0);
  EXPECT_GE(st.slow, 1);
}

// A yarn plan of head dim 32 whose attention factor is the decimal `factor`.
RopePlan factor_plan(const std::string& factor, Layout layout) {
  Scaling yarn;
  yarn.kind = Scaling::Kind::yarn;
  yarn.factor = "4";
  yarn.original_context = 32768;
  yarn.attention_factor = factor;
  return RopePlan(Spectrum(32, "10000").with_scaling(yarn), layout);
}

TEST(CorrectRounding, ZeroPairsTakeTheFormulasSignWithoutTheAccuratePath) {
  // Padding tokens are all zeros: every zero pair must pass the fast tests (a retry per zero made
  // an all-zero bf16 tensor 40 times slower) with the sign the binary64 formula gives.
  const std::vector<std::int64_t> pos = {0, 1, 7, -7, 1000, -123456789, std::int64_t{1} << 40, INT64_MAX, INT64_MIN};
  const float zeros[4][2] = {{0.0f, 0.0f}, {-0.0f, 0.0f}, {0.0f, -0.0f}, {-0.0f, -0.0f}};
  for (const char* factor : {"1", "1.3466"}) {
    for (Layout layout : {Layout::half, Layout::interleaved}) {
      const RopePlan plan = factor_plan(factor, layout);
      const SinCosTable table(plan, pos, cpu::Path::scalar);
      std::vector<float> in32(pos.size() * 32);
      for (size_t t = 0; t < pos.size(); ++t)
        for (int k = 0; k < 16; ++k) {
          const float* z = zeros[(static_cast<size_t>(k) + t) % 4];
          in32[t * 32 + static_cast<size_t>(plan.first_element(k))] = z[0];
          in32[t * 32 + static_cast<size_t>(plan.second_element(k))] = z[1];
        }
      std::vector<Bf16Bits> in16(in32.size());
      std::vector<F16Bits> inh(in32.size());
      for (size_t i = 0; i < in32.size(); ++i) in16[i] = bf16_from_float(in32[i]), inh[i] = f16_from_float(in32[i]);
      const KernelStats s32 = check<float>(plan, pos, in32, "zero pairs");
      const KernelStats s16 = check<Bf16Bits>(plan, pos, in16, "zero pairs");
      const KernelStats sh = check<F16Bits>(plan, pos, inh, "zero pairs");
      EXPECT_EQ(s32.slow + s16.slow + sh.slow, 0) << factor;
      std::vector<float> out(in32.size());
      std::vector<Bf16Bits> out16(in16.size());
      std::vector<F16Bits> outh(inh.size());
      const auto n = static_cast<std::int64_t>(pos.size());
      apply_rope(plan, pos, dense_view<const float>(in32.data(), n, 1, 32), dense_view<float>(out.data(), n, 1, 32));
      apply_rope(plan, pos, dense_view<const Bf16Bits>(in16.data(), n, 1, 32), dense_view<Bf16Bits>(out16.data(), n, 1, 32));
      apply_rope(plan, pos, dense_view<const F16Bits>(inh.data(), n, 1, 32), dense_view<F16Bits>(outh.data(), n, 1, 32));
      for (size_t t = 0; t < pos.size(); ++t)
        for (int k = 0; k < 16; ++k) {
          const double c = table.cos_row(static_cast<std::int64_t>(t))[k], s = table.sin_row(static_cast<std::int64_t>(t))[k];
          const size_t ia = t * 32 + static_cast<size_t>(plan.first_element(k)), ib = t * 32 + static_cast<size_t>(plan.second_element(k));
          const double xa = in32[ia], xb = in32[ib];
          const double want[2] = {std::fma(xa, c, -(xb * s)), std::fma(xb, c, xa * s)};
          const size_t at[2] = {ia, ib};
          for (int side = 0; side < 2; ++side) {
            EXPECT_EQ(std::bit_cast<std::uint32_t>(out[at[side]]), std::bit_cast<std::uint32_t>(static_cast<float>(want[side])))
                << "f32 p=" << pos[t] << " k=" << k << " x=(" << xa << ", " << xb << ") c=" << std::hexfloat << c << " s=" << s << std::defaultfloat;
            EXPECT_EQ(out16[at[side]].bits, bf16_from_float(static_cast<float>(want[side])).bits) << "bf16 p=" << pos[t] << " k=" << k;
            EXPECT_EQ(outh[at[side]].bits, f16_from_double(want[side]).bits) << "f16 p=" << pos[t] << " k=" << k;
          }
        }
    }
  }
}

TEST(CorrectRounding, SixteenBitInputsOutsideTheBinary32LevelTakeTheBinary64Level) {
  // The binary32 level needs RN32(a) in [2^-60, 2^60] and e = RN32(a) 2^-21 S in [2^-100, 2^100]
  // (ops.h); outside, bfloat16 and float16 outputs come from the binary64 level or the accurate
  // path, and must still be correctly rounded on every path.
  const CounterRng rng(kRoundingSeed, 4);
  const std::vector<std::int64_t> pos = {3, 12345, -(std::int64_t{1} << 35), std::int64_t{1} << 50};
  const double scales[] = {0x1p-130, 0x1p-118, 1.0, 0x1p100, 0x1p120};  // S: subnormal, tiny, moderate, huge
  for (const char* factor : {"1", "1e-19", "3e18"}) {  // 2^-60 = 8.7e-19, 2^60 = 1.15e18
    for (Layout layout : {Layout::half, Layout::interleaved}) {
      const RopePlan plan = factor_plan(factor, layout);
      std::vector<Bf16Bits> in(pos.size() * 32);
      for (size_t i = 0; i < in.size(); ++i) {
        const double scale = scales[(i / 2) % 5];
        in[i] = bf16_from_float(static_cast<float>(moderate_float(rng, i) * scale));
      }
      long inconclusive = 0;
      check<Bf16Bits>(plan, pos, in, std::string("factor ") + factor, &inconclusive);
      // float16 over its own range (subnormals from 2^-24, the largest finite 65504).
      std::vector<F16Bits> inh(pos.size() * 32);
      const double f16_scales[] = {0x1p-20, 0x1p-12, 1.0, 0x1p6, 0x1p7};
      for (size_t i = 0; i < inh.size(); ++i) inh[i] = f16_from_double(moderate_float(rng, 5000 + i) * f16_scales[(i / 2) % 5]);
      check<F16Bits>(plan, pos, inh, std::string("f16 factor ") + factor, &inconclusive);
      EXPECT_EQ(inconclusive, 0);
    }
  }
  // Below 2^-64 the binary64 products could underflow: refused, naming the factor.
  EXPECT_THROW(factor_plan("1e-20", Layout::half), InputError);
  EXPECT_NO_THROW(factor_plan("6e-20", Layout::half));  // 2^-64 = 5.4e-20
}

TEST(CorrectRounding, ExactTiesAtAngleZeroWithAStatedFactorRoundToEven) {
  // At p = 0 (and for a zero-frequency pair at any p) y_a = a x_a. With a stated decimal factor
  // a = 1.43 that can be a tie: 1.43 x 11732500 = 16777475, odd, between the binary32 neighbours
  // 16777474 and 16777476 (spacing 2): RNE gives 16777476 (mantissa 8388738, even). bfloat16: 1.43 x
  // 150 = 214.5 between 214 and 215 (spacing 1): 214. float16: 1.43 x 1050 = 1501.5 between 1501
  // and 1502 (spacing 1): 1502. One step off (11732600 -> 16777618, 151 -> 215.93, 1051 ->
  // 1502.93) is no tie. No enclosure decides a tie: the accurate path must round it exactly, and
  // must not leave it unresolved.
  const std::int64_t far = std::int64_t{1} << 40;
  for (Layout layout : {Layout::interleaved, Layout::half}) {
    Scaling yarn;
    yarn.kind = Scaling::Kind::yarn;
    yarn.attention_factor = "1.43";
    // p-rope 0.5 on d = 8: pairs 2 and 3 have frequency 0 and, with a != 1, are scaled, not copied.
    const RopePlan plan(Spectrum(8, "10000", Variant::p_rope, "0.5").with_scaling(yarn), layout);
    ASSERT_FALSE(plan.identity(3));
    const std::vector<std::int64_t> pos = {0, far};
    for (cpu::Path path : cpu::available_paths()) {
      std::vector<float> in32(16, 0.0f), out32(16);
      std::vector<Bf16Bits> in16(16), out16(16);
      std::vector<F16Bits> inh(16), outh(16);
      for (int t = 0; t < 2; ++t) {
        for (int k : {0, 3}) {
          if (t == 1 && k == 0) continue;  // a rotating pair at p != 0: no tie
          const int a = t * 8 + plan.first_element(k), b = t * 8 + plan.second_element(k);
          in32[a] = 11732500.0f, in32[b] = -11732600.0f;
          in16[a] = bf16_from_float(150.0f), in16[b] = bf16_from_float(-151.0f);
          inh[a] = f16_from_float(1050.0f), inh[b] = f16_from_float(-1051.0f);
        }
      }
      KernelStats s32, s16, sh;
      apply_rope(plan, pos, dense_view<const float>(in32.data(), 2, 1, 8), dense_view<float>(out32.data(), 2, 1, 8), {path, 1, &s32});
      apply_rope(plan, pos, dense_view<const Bf16Bits>(in16.data(), 2, 1, 8), dense_view<Bf16Bits>(out16.data(), 2, 1, 8),
                 {path, 1, &s16});
      apply_rope(plan, pos, dense_view<const F16Bits>(inh.data(), 2, 1, 8), dense_view<F16Bits>(outh.data(), 2, 1, 8), {path, 1, &sh});
      EXPECT_EQ(s32.unresolved + s16.unresolved + sh.unresolved, 0) << cpu::path_name(path);
      for (int t = 0; t < 2; ++t)
        for (int k : {0, 3}) {
          if (t == 1 && k == 0) continue;
          const int a = t * 8 + plan.first_element(k), b = t * 8 + plan.second_element(k);
          EXPECT_EQ(out32[a], 16777476.0f) << cpu::path_name(path) << " p=" << pos[t] << " k=" << k << std::hexfloat << " got=" << out32[a];
          EXPECT_EQ(out32[b], -16777618.0f) << cpu::path_name(path) << " p=" << pos[t] << " k=" << k;
          EXPECT_EQ(to_float(out16[a]), 214.0f) << cpu::path_name(path) << " p=" << pos[t] << " k=" << k << " got=" << to_float(out16[a]);
          EXPECT_EQ(to_float(out16[b]), -216.0f) << cpu::path_name(path) << " p=" << pos[t] << " k=" << k;
          EXPECT_EQ(to_float(outh[a]), 1502.0f) << cpu::path_name(path) << " p=" << pos[t] << " k=" << k << " got=" << to_float(outh[a]);
          EXPECT_EQ(to_float(outh[b]), -1503.0f) << cpu::path_name(path) << " p=" << pos[t] << " k=" << k;
        }
    }
  }
}

TEST(CorrectRounding, TheAccuratePathsAngleCacheNeverMixesRotationsOrPositions) {
  // exact_rotation.cpp keeps, per thread and pair, the last angle it computed. Rounding on one
  // thread in an interleaved order (two rotations, two positions, a rotation destroyed and another
  // made, perhaps at the same address) must give what a fresh thread, with an empty cache, gives.
  const double xa = 0x1.234568p-3, xb = -0x1.fedcbap-2;
  auto fresh = [&](const RopePlan& plan, int k, std::int64_t p, bool second) {
    double v = 0;
    std::thread([&] { v = plan.exact().round(Dtype::f32, k, p, xa, xb, second).value; }).join();
    return v;
  };
  auto plan_a = std::make_unique<RopePlan>(Spectrum(32, "10000"), Layout::half);
  const RopePlan plan_b(Spectrum(32, "500000"), Layout::half);
  const std::int64_t positions[] = {12345, 12346, std::int64_t{1} << 40};
  for (int round = 0; round < 2; ++round) {
    for (std::int64_t p : positions)
      for (int k : {0, 5, 15})
        for (const RopePlan* plan : {static_cast<const RopePlan*>(plan_a.get()), &plan_b})
          for (bool second : {false, true}) {
            const double here = plan->exact().round(Dtype::f32, k, p, xa, xb, second).value;
            EXPECT_EQ(here, fresh(*plan, k, p, second)) << "round " << round << " p=" << p << " k=" << k << " theta "
                                                        << plan->spectrum().theta();
          }
    plan_a = std::make_unique<RopePlan>(Spectrum(32, "20000"), Layout::half);  // a new rotation
  }
}

}  // namespace
}  // namespace ropecheck::kernel

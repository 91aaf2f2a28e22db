// Properties of the production kernel (kernel/apply_rope.h) over generated spectra (every variant
// and scaling), layouts, shapes, positions up to 2^40 and inputs built from bit patterns and edge
// values (generators.h), each checked on every path this CPU has:
//   - every output within the documented ulp bound of the MPFR reference (rope_reference.h);
//   - identity pairs, pass-through elements, nope and p-rope 0 are copies, bit for bit;
//   - interleaved and half layouts agree after permuting the elements, bit for bit;
//   - every path agrees with the scalar path bit for bit;
//   - relative-position invariance and norm preservation within the bounds derived from the ulp
//     contract (accuracy/shift_invariance_bound.h; the norm bound is derived below).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "generators.h"
#include "io/printf_string.h"
#include "kernel/apply_rope.h"
#include "kernel/bf16.h"
#include "finite/finite_arithmetic.h"
#include "accuracy/rope_reference.h"
#include "accuracy/shift_invariance_bound.h"
#include "accuracy/ulp_error.h"
#include "numeric/float32_dot.h"
#include "tests/support/show.h"

namespace ropecheck {
namespace {

using kernel::Layout;
using cpu::Path;
using kernel::RopePlan;

rc::Gen<Layout> layouts() { return rc::gen::element(Layout::interleaved, Layout::half); }

std::uint32_t bits_of(float x) { return std::bit_cast<std::uint32_t>(x); }

// Rotates a dense [tokens][heads][dim] float32 tensor on `path`.
std::vector<float> run_f32(const RopePlan& plan, const std::vector<std::int64_t>& pos, const std::vector<float>& in,
                           std::int64_t heads, Path path) {
  std::vector<float> out(in.size());
  const auto t = static_cast<std::int64_t>(pos.size());
  kernel::apply_rope(plan, pos, kernel::dense_view(in.data(), t, heads, plan.dim()), kernel::dense_view(out.data(), t, heads, plan.dim()),
                     kernel::KernelOptions{path, 1});
  return out;
}

std::vector<std::uint16_t> run_bf16(const RopePlan& plan, const std::vector<std::int64_t>& pos, const std::vector<std::uint16_t>& in,
                                    std::int64_t heads, Path path) {
  std::vector<std::uint16_t> out(in.size());
  const auto t = static_cast<std::int64_t>(pos.size());
  kernel::apply_rope(plan, pos, kernel::dense_view(in.data(), t, heads, plan.dim()), kernel::dense_view(out.data(), t, heads, plan.dim()),
                     kernel::KernelOptions{path, 1});
  return out;
}

// A finite input tensor and its shape.
struct Case {
  Spectrum spectrum{2, "10000"};
  Layout layout = Layout::interleaved;
  std::int64_t heads = 1;
  std::vector<std::int64_t> positions;
  std::vector<float> x;
};

rc::Gen<Case> cases(int max_dim) {
  return rc::gen::mapcat(rc::gen::tuple(gen::spectra(max_dim), layouts(), rc::gen::inRange<std::int64_t>(1, 3),
                                        rc::gen::inRange<std::int64_t>(1, 4)),
                         [](const auto& t) {
                           const Spectrum spectrum = std::get<0>(t);
                           const Layout layout = std::get<1>(t);
                           const std::int64_t heads = std::get<2>(t), tokens = std::get<3>(t);
                           const auto n = static_cast<int>(tokens * heads * spectrum.dim());
                           return rc::gen::map(rc::gen::tuple(rc::gen::container<std::vector<std::int64_t>>(static_cast<size_t>(tokens), gen::positions()),
                                                              gen::vectors(n)),
                                               [=](const auto& u) {
                                                 Case c;
                                                 c.spectrum = spectrum;
                                                 c.layout = layout;
                                                 c.heads = heads;
                                                 c.positions = std::get<0>(u);
                                                 c.x = std::get<1>(u);
                                                 return c;
                                               });
                         });
}

// The contract (apply_rope.h): 1/2 + 2^-25 (f32) or 1/2 + 2^-14 (bf16) floored ulps. The metric is
// computed in double from the reference rounded to double, exact to ~2^-28 ulp (ulp_error.h):
// 2^-26 of slack covers it and nothing else.
constexpr double kF32Bound = 0.5 + 0x1p-25 + 0x1p-26;
constexpr double kBf16Bound = 0.5 + 0x1p-14 + 0x1p-26;

RC_GTEST_PROP(KernelProperties, WithinTheUlpBoundOfTheReferenceOnEveryPath, ()) {
  const Case c = *cases(16);
  const RopePlan plan(c.spectrum, c.layout);
  const int d = plan.dim();
  std::vector<std::uint16_t> xb(c.x.size());
  for (size_t i = 0; i < c.x.size(); ++i) {
    xb[i] = kernel::f32_to_bf16_rne(c.x[i]);
    if (!std::isfinite(kernel::bf16_to_f32(xb[i]))) xb[i] = 0;  // the exact rotation needs finite inputs
  }
  const std::vector<float> y = run_f32(plan, c.positions, c.x, c.heads, Path::scalar);
  const std::vector<std::uint16_t> yb = run_bf16(plan, c.positions, xb, c.heads, Path::scalar);
  for (Path p : cpu::available_paths()) {
    const std::vector<float> yp = run_f32(plan, c.positions, c.x, c.heads, p);
    const std::vector<std::uint16_t> ybp = run_bf16(plan, c.positions, xb, c.heads, p);
    for (size_t i = 0; i < y.size(); ++i) {
      if (bits_of(yp[i]) != bits_of(y[i])) RC_FAIL(cpu::path_name(p) + " f32 element " + std::to_string(i) + ": " + hex_float(yp[i]) + " vs scalar " + hex_float(y[i]));
      if (ybp[i] != yb[i]) RC_FAIL(cpu::path_name(p) + " bf16 element " + std::to_string(i) + ": " + std::to_string(ybp[i]) + " vs scalar " + std::to_string(yb[i]));
    }
  }
  accuracy::RopeReference ref(plan);
  for (size_t t = 0; t < c.positions.size(); ++t) {
    ref.set_position(c.positions[t]);
    for (std::int64_t h = 0; h < c.heads; ++h) {
      const size_t base = (t * static_cast<size_t>(c.heads) + static_cast<size_t>(h)) * static_cast<size_t>(d);
      for (int e = 2 * plan.block_pairs(); e < d; ++e)
        RC_ASSERT(bits_of(y[base + e]) == bits_of(c.x[base + e]));  // pass-through
      for (int k = 0; k < plan.block_pairs(); ++k) {
        const size_t ia = base + static_cast<size_t>(plan.first_element(k)), ib = base + static_cast<size_t>(plan.second_element(k));
        if (plan.identity(k)) {
          RC_ASSERT(bits_of(y[ia]) == bits_of(c.x[ia]) && bits_of(y[ib]) == bits_of(c.x[ib]));
          RC_ASSERT(yb[ia] == xb[ia] && yb[ib] == xb[ib]);
          continue;
        }
        const accuracy::ExactPair ex = ref.rotate(k, c.x[ia], c.x[ib]);
        const std::pair<size_t, const accuracy::ExactComponent*> comps[] = {{ia, &ex.a}, {ib, &ex.b}};
        for (const auto& [i, comp] : comps) {
          if (!comp->f32_decided) continue;
          const accuracy::ComponentError err = accuracy::component_error(y[i], comp->value, comp->f32, ex.norm, Dtype::f32);
          if (!(err.ulps <= kF32Bound))
            RC_FAIL("f32 pair " + std::to_string(k) + " at p=" + std::to_string(c.positions[t]) + " of " + plan.describe() +
                    ": in (" + hex_float(c.x[ia]) + ", " + hex_float(c.x[ib]) + ") out " + hex_float(y[i]) +
                    " correctly rounded " + hex_float(comp->f32) + ": " + show(err.ulps) + " ulp");
        }
        const accuracy::ExactPair eb = ref.rotate(k, kernel::bf16_to_f32(xb[ia]), kernel::bf16_to_f32(xb[ib]));
        const std::pair<size_t, const accuracy::ExactComponent*> bcomps[] = {{ia, &eb.a}, {ib, &eb.b}};
        for (const auto& [i, comp] : bcomps) {
          if (!comp->bf16_decided) continue;
          const accuracy::ComponentError err = accuracy::component_error(kernel::bf16_to_f32(yb[i]), comp->value,
                                                                     kernel::bf16_to_f32(comp->bf16), eb.norm, Dtype::bf16);
          if (!(err.ulps <= kBf16Bound))
            RC_FAIL("bf16 pair " + std::to_string(k) + " at p=" + std::to_string(c.positions[t]) + " of " + plan.describe() +
                    ": in (" + hex_float(kernel::bf16_to_f32(xb[ia])) + ", " + hex_float(kernel::bf16_to_f32(xb[ib])) +
                    ") out " + hex_float(kernel::bf16_to_f32(yb[i])) + ": " + show(err.ulps) + " bf16-ulp");
        }
      }
    }
  }
}

// nope and p-rope 0 rotate nothing: the output is the input, bit for bit, whatever it holds (NaN
// payloads, infinities, -0, subnormals).
RC_GTEST_PROP(KernelProperties, NopeAndPRopeZeroAreTheIdentity, ()) {
  const int d = *gen::dimensions(32);
  const bool nope = *rc::gen::arbitrary<bool>();
  const Spectrum s(d, *gen::thetas(), nope ? Variant::nope : Variant::p_rope, "0");
  const RopePlan plan(s, *layouts());
  const std::vector<std::int64_t> pos{*gen::positions()};
  const auto raw = *rc::gen::container<std::vector<std::uint32_t>>(static_cast<size_t>(d), rc::gen::arbitrary<std::uint32_t>());
  std::vector<float> x(raw.size());
  std::vector<std::uint16_t> xb(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) x[i] = std::bit_cast<float>(raw[i]), xb[i] = static_cast<std::uint16_t>(raw[i] >> 16);
  for (Path p : cpu::available_paths()) {
    const std::vector<float> y = run_f32(plan, pos, x, 1, p);
    const std::vector<std::uint16_t> yb = run_bf16(plan, pos, xb, 1, p);
    for (size_t i = 0; i < x.size(); ++i) {
      RC_ASSERT(bits_of(y[i]) == raw[i]);
      RC_ASSERT(yb[i] == xb[i]);
    }
  }
}

// The same pairs laid out interleaved (2k, 2k+1) or half (k, k + R) rotate to the same values.
RC_GTEST_PROP(KernelProperties, InterleavedAndHalfAgreeAfterPermuting, ()) {
  const Case c = *cases(32);
  const RopePlan inter(c.spectrum, Layout::interleaved), half(c.spectrum, Layout::half);
  const int d = inter.dim(), R = inter.block_pairs();
  RC_ASSERT(half.block_pairs() == R);
  // perm[i]: where element i of the interleaved vector sits in the half vector.
  std::vector<int> perm(static_cast<size_t>(d));
  for (int k = 0; k < R; ++k) perm[static_cast<size_t>(2 * k)] = k, perm[static_cast<size_t>(2 * k + 1)] = k + R;
  for (int e = 2 * R; e < d; ++e) perm[static_cast<size_t>(e)] = e;
  std::vector<float> xh(c.x.size());
  const size_t rows = c.x.size() / static_cast<size_t>(d);
  for (size_t r = 0; r < rows; ++r)
    for (int i = 0; i < d; ++i) xh[r * d + static_cast<size_t>(perm[static_cast<size_t>(i)])] = c.x[r * d + static_cast<size_t>(i)];
  const std::vector<float> yi = run_f32(inter, c.positions, c.x, c.heads, cpu::default_path());
  const std::vector<float> yh = run_f32(half, c.positions, xh, c.heads, cpu::default_path());
  for (size_t r = 0; r < rows; ++r)
    for (int i = 0; i < d; ++i) {
      const float a = yi[r * d + static_cast<size_t>(i)], b = yh[r * d + static_cast<size_t>(perm[static_cast<size_t>(i)])];
      if (bits_of(a) != bits_of(b)) RC_FAIL("element " + std::to_string(i) + " of row " + std::to_string(r) + ": interleaved " + hex_float(a) + ", half " + hex_float(b));
    }
}

// Components of moderate size (|x| in [2^-30, 2^30] or 0), so that pair norms are far from the
// subnormal range and no product or sum overflows: the hypotheses of the derived bounds.
rc::Gen<float> moderate() {
  return rc::gen::weightedOneOf<float>({
      {4, rc::gen::map(rc::gen::tuple(rc::gen::inRange(-30, 31), rc::gen::inRange<std::uint32_t>(0, 1u << 23), rc::gen::arbitrary<bool>()),
                       [](const auto& t) {
                         const auto& [e, m, neg] = t;
                         const float v = std::ldexp(1.0f + static_cast<float>(m) * 0x1p-23f, e);
                         return neg ? -v : v;
                       })},
      {1, rc::gen::element(0.0f, 1.0f, -1.0f, 0.5f)},
  });
}

// |a(m + s, n + s) - a(m, n)| <= shift_invariance_bound (accuracy/shift_invariance_bound.h) for every shift.
RC_GTEST_PROP(KernelProperties, RelativePositionInvarianceWithinTheBound, ()) {
  const Spectrum s = *gen::spectra(16);
  const RopePlan plan(s, Layout::interleaved);
  const int d = plan.dim();
  const auto q = *rc::gen::container<std::vector<float>>(static_cast<size_t>(d), moderate());
  const auto k = *rc::gen::container<std::vector<float>>(static_cast<size_t>(d), moderate());
  const std::int64_t m = *gen::positions(), n = *gen::positions(), sh = *gen::positions();
  for (Dtype t : {Dtype::f32, Dtype::bf16}) {
    std::vector<float> qt(q), kt(k);
    for (size_t i = 0; i < q.size(); ++i) qt[i] = finite::round_to(t, q[i]), kt[i] = finite::round_to(t, k[i]);
    const std::vector<std::int64_t> pq{m, m + sh}, pk{n, n + sh};
    std::vector<float> q2(qt), k2(kt);
    q2.insert(q2.end(), qt.begin(), qt.end());
    k2.insert(k2.end(), kt.begin(), kt.end());
    const std::vector<float> rq = finite::rotate(finite::Rotator::kernel, t, plan, pq, q2, 1, cpu::default_path());
    const std::vector<float> rk = finite::rotate(finite::Rotator::kernel, t, plan, pk, k2, 1, cpu::default_path());
    const float a0 = dot_f32_sequential(rq.data(), rk.data(), d), a1 = dot_f32_sequential(rq.data() + d, rk.data() + d, d);
    const double bound = accuracy::shift_invariance_bound(t, qt, kt);
    if (!(std::abs(static_cast<double>(a1) - a0) <= bound))
      RC_FAIL(dtype_name(t) + ": a(m,n) = " + hex_float(a0) + ", a(m+s,n+s) = " + hex_float(a1) + ", bound " + show(bound));
  }
}

// Each pair keeps its norm: |y~ - y| <= eps ||P|| per component (accuracy/shift_invariance_bound.h:
// eps from the ulp contract), so | ||Y~|| - ||P|| | <= ||Y~ - Y|| <= sqrt2 eps ||P||; the double hypots add
// < 2 * 2^-52 relative, covered by 2^-48 ||P||.
RC_GTEST_PROP(KernelProperties, NormPreservedWithinTheBound, ()) {
  const Spectrum s = *gen::spectra(16);
  const RopePlan plan(s, *layouts());
  const int d = plan.dim();
  const auto x = *rc::gen::container<std::vector<float>>(static_cast<size_t>(d), moderate());
  const std::vector<std::int64_t> pos{*gen::positions()};
  for (Dtype t : {Dtype::f32, Dtype::bf16}) {
    std::vector<float> xt(x);
    for (float& v : xt) v = finite::round_to(t, v);
    const double c = t == Dtype::f32 ? (0.5 + 0x1p-25) * 0x1p-23 : (0.5 + 0x1p-14) * 0x1p-7;
    const double eps = c / (1 - c);
    const std::vector<float> y = finite::rotate(finite::Rotator::kernel, t, plan, pos, xt, 1, cpu::default_path());
    for (int k = 0; k < plan.block_pairs(); ++k) {
      const int a = plan.first_element(k), b = plan.second_element(k);
      const double before = std::hypot(static_cast<double>(xt[static_cast<size_t>(a)]), static_cast<double>(xt[static_cast<size_t>(b)]));
      const double after = std::hypot(static_cast<double>(y[static_cast<size_t>(a)]), static_cast<double>(y[static_cast<size_t>(b)]));
      if (!(std::abs(after - before) <= (std::sqrt(2.0) * eps + 0x1p-48) * before))
        RC_FAIL(dtype_name(t) + " pair " + std::to_string(k) + " at p=" + std::to_string(pos[0]) + ": (" +
                hex_float(xt[static_cast<size_t>(a)]) + ", " + hex_float(xt[static_cast<size_t>(b)]) + ") -> (" +
                hex_float(y[static_cast<size_t>(a)]) + ", " + hex_float(y[static_cast<size_t>(b)]) + ")");
    }
  }
}

}  // namespace
}  // namespace ropecheck

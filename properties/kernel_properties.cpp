// Properties of the production kernel (kernel/apply_rope.h) over generated spectra (every variant
// and scaling), layouts, shapes, positions up to 2^40 and inputs built from bit patterns and edge
// values (generators.h), each checked on every path this CPU has:
//   - every output the correctly rounded value of the MPFR reference (rope_reference.h), for
//     layers of generated models (any scaling, attention factors, NeoX partial and MLA rope parts)
//     and near-cancelling pairs;
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
#include <type_traits>
#include <vector>

#include "generators.h"
#include "io/printf_string.h"
#include "kernel/apply_rope.h"
#include "numeric/small_floats.h"
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

// Rotates a dense [tokens][heads][dim] tensor of kernel element type E (float, Bf16Bits, F16Bits)
// on `path`.
template <typename E>
std::vector<E> run(const RopePlan& plan, const std::vector<std::int64_t>& pos, const std::vector<E>& in, std::int64_t heads, Path path,
                   kernel::KernelStats* stats = nullptr) {
  std::vector<E> out(in.size());
  const auto t = static_cast<std::int64_t>(pos.size());
  kernel::apply_rope(plan, pos, kernel::dense_view(in.data(), t, heads, plan.dim()), kernel::dense_view(out.data(), t, heads, plan.dim()),
                     kernel::KernelOptions{path, 1, stats});
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

// A model's layer as the kernel sees it: a model_spectra() spectrum (any scaling, attention
// factors) rotating `rotary` channels of a head of `head` channels from `offset` (NeoX partial:
// offset 0; an MLA rope part: the rotary channels last), the rest passed through.
struct ModelCase {
  Spectrum spectrum{2, "10000"};
  Layout layout = Layout::interleaved;
  int head = 2, offset = 0;
  std::int64_t heads = 1;
  std::vector<std::int64_t> positions;
  std::vector<float> x;
  std::vector<int> cancel;  // per element: 0, or j + 3 for j in [-2, 2]: made a near-cancelling pair (below)
};

rc::Gen<ModelCase> model_cases(int max_rotary) {
  return rc::gen::exec([=] {
    ModelCase c;
    c.spectrum = *gen::model_spectra(max_rotary);
    c.layout = *layouts();
    // A partial spectrum fixes its own rotary width inside the head (RopePlan): no extra channels.
    const int extra = c.spectrum.variant() == Variant::partial ? 0 : 2 * *rc::gen::inRange(0, 4);
    c.head = c.spectrum.dim() + extra;
    c.offset = *rc::gen::element(0, extra);
    c.heads = *rc::gen::inRange<std::int64_t>(1, 3);
    const std::int64_t tokens = *rc::gen::inRange<std::int64_t>(1, 4);
    c.positions = *rc::gen::container<std::vector<std::int64_t>>(static_cast<size_t>(tokens), gen::positions());
    const auto n = static_cast<size_t>(tokens * c.heads * c.head);
    c.x = *gen::vectors(static_cast<int>(n));
    c.cancel = *rc::gen::container<std::vector<int>>(n, rc::gen::weightedOneOf<int>({{3, rc::gen::just(0)}, {1, rc::gen::inRange(1, 6)}}));
    return c;
  });
}

void showValue(const ModelCase& c, std::ostream& os) {
  os << c.spectrum.describe() << ", layout " << layout_name(c.layout) << ", head " << c.head << ", rotary offset " << c.offset << ", "
     << c.heads << " heads, positions";
  for (std::int64_t p : c.positions) os << ' ' << p;
  os << "; inputs";
  for (size_t i = 0; i < c.x.size(); ++i) os << ' ' << hex_float(c.x[i]) << (c.cancel[i] != 0 ? "~" + std::to_string(c.cancel[i] - 3) : "");
}

// v moved j units in the last place of element type E (a 16-bit format: sign-magnitude bits).
template <typename E>
float step_ulps(float v, int j) {
  for (int i = 0; i < std::abs(j); ++i) {
    if constexpr (std::is_same_v<E, float>) {
      v = std::nextafter(v, j > 0 ? INFINITY : -INFINITY);
    } else {
      std::uint16_t b = narrow_to<E>(v).bits;
      b = static_cast<std::uint16_t>((v >= 0) == (j > 0) ? b + 1 : (b & 0x7fff) == 0 ? (b ^ 0x8000) + 1 : b - 1);
      v = static_cast<float>(widen(E{b}));
    }
  }
  return v;
}

// Makes (x_a, x_b) near-cancelling for y_a: x_a = the format's rounding of x_b tan(p g_k), moved j
// units in the last place, so y_a = a (x_a cos - x_b sin) is ~2^-p of the pair's norm (p the
// format's precision), where the fast path's rounding test fails most. tan from the reference's
// cos and sin rounded to double: relative error ~2^-52, far below the format's ulp. Leaves x_a
// alone when x_b is 0 or the result would not be finite.
template <typename E>
E near_cancelling(E xa, E xb, double c, double s, int j) {
  const double b = widen(xb);
  if (b == 0 || c == 0) return xa;
  const double t = b * (s / c);
  if (!(std::abs(t) < 0x1p127)) return xa;
  const float v = step_ulps<E>(static_cast<float>(widen(narrow_to<E>(static_cast<float>(t)))), j);
  const E out = narrow_to<E>(v);
  return std::isfinite(widen(out)) ? out : xa;
}

// One kernel dtype of CorrectlyRoundedOnEveryPathForGeneratedModels (below): the case's inputs
// rounded to E (non-finite ones zeroed: the reference takes finite inputs), its near-cancelling
// pairs made in E, then every path in and out of place against the scalar path bit for bit, and
// the scalar path against the reference's correct rounding in E.
template <typename E>
void check_correctly_rounded(const ModelCase& c, const RopePlan& plan, int& undecided, int& cancelling) {
  const Dtype f = dtype_of<E>;
  const int d = plan.dim();
  std::vector<E> x(c.x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = narrow_to<E>(c.x[i]);
    if (!std::isfinite(widen(x[i]))) x[i] = E{};
  }
  accuracy::RopeReference ref(plan);
  auto element = [&](size_t t, std::int64_t h, int e) { return (t * static_cast<size_t>(c.heads) + static_cast<size_t>(h)) * static_cast<size_t>(d) + static_cast<size_t>(e); };
  for (size_t t = 0; t < c.positions.size(); ++t) {
    ref.set_position(c.positions[t]);
    for (std::int64_t h = 0; h < c.heads; ++h)
      for (int k = 0; k < plan.block_pairs(); ++k) {
        const size_t ia = element(t, h, plan.first_element(k)), ib = element(t, h, plan.second_element(k));
        if (plan.identity(k) || c.cancel[ia] == 0) continue;
        double co = 0, si = 0;
        ref.cos_sin_double(k, co, si);
        x[ia] = near_cancelling(x[ia], x[ib], co, si, c.cancel[ia] - 3);
      }
  }
  const std::string name = dtype_name(f);
  const auto hex = [&](E v) { return hex_float(widen(v)); };
  // Every path, out of place and in place, gives the scalar path's bits.
  kernel::KernelStats stats;
  const std::vector<E> y = run(plan, c.positions, x, c.heads, Path::scalar, &stats);
  if (stats.unresolved != 0)  // the accurate path gave up: its value is a guess
    RC_FAIL(std::to_string(stats.unresolved) + " " + name + " outputs unresolved of " + plan.describe());
  const auto tokens = static_cast<std::int64_t>(c.positions.size());
  for (Path p : cpu::available_paths()) {
    std::vector<E> yp = run(plan, c.positions, x, c.heads, p), ip = x;
    kernel::apply_rope(plan, c.positions, kernel::dense_view<const E>(ip.data(), tokens, c.heads, d),
                       kernel::dense_view(ip.data(), tokens, c.heads, d), kernel::KernelOptions{p, 1});
    for (size_t i = 0; i < y.size(); ++i)
      if (bits_of(yp[i]) != bits_of(y[i]) || bits_of(ip[i]) != bits_of(y[i]))
        RC_FAIL(cpu::path_name(p) + " " + name + " element " + std::to_string(i) + ": " + hex(yp[i]) + " (in place " + hex(ip[i]) +
                ") vs scalar " + hex(y[i]) + " of " + plan.describe());
  }
  for (size_t t = 0; t < c.positions.size(); ++t) {
    ref.set_position(c.positions[t]);
    const std::string at = " at p=" + std::to_string(c.positions[t]) + " of " + plan.describe();
    for (std::int64_t h = 0; h < c.heads; ++h) {
      std::vector<bool> rotary(static_cast<size_t>(d), false);
      for (int k = 0; k < plan.block_pairs(); ++k) {
        const size_t ia = element(t, h, plan.first_element(k)), ib = element(t, h, plan.second_element(k));
        if (plan.identity(k)) {
          RC_ASSERT(bits_of(y[ia]) == bits_of(x[ia]) && bits_of(y[ib]) == bits_of(x[ib]));
          continue;
        }
        rotary[static_cast<size_t>(plan.first_element(k))] = rotary[static_cast<size_t>(plan.second_element(k))] = true;
        cancelling += c.cancel[ia] != 0;
        const accuracy::ExactPair ex = ref.rotate(k, static_cast<float>(widen(x[ia])), static_cast<float>(widen(x[ib])));
        const std::pair<size_t, const accuracy::ExactComponent*> comps[] = {{ia, &ex.a}, {ib, &ex.b}};
        for (const auto& [i, comp] : comps) {
          if (!comp->decided_in(f)) {
            ++undecided;
            continue;
          }
          if (!(widen(y[i]) == comp->in(f)))
            RC_FAIL(name + " pair " + std::to_string(k) + (i == ia ? " y_a" : " y_b") + at + ": x=(" + hex(x[ia]) + ", " + hex(x[ib]) +
                    ") ref=" + hex_float(comp->value) + " want=" + hex_float(comp->in(f)) + " got=" + hex(y[i]));
        }
      }
      for (int e = 0; e < d; ++e)
        if (!rotary[static_cast<size_t>(e)]) {
          const size_t i = element(t, h, e);
          if (bits_of(y[i]) != bits_of(x[i]))
            RC_FAIL(name + " channel " + std::to_string(e) + at + " not copied bit for bit: " + hex(x[i]) + " -> " + hex(y[i]));
        }
    }
  }
}

// The contract (apply_rope.h): every rotary output is the correctly rounded value of the exact
// map a (x_a cos(p g_k) - x_b sin(p g_k)) (and its partner), on every path and in every kernel
// dtype, for every layer a model resolves to; pass-through channels and identity pairs are the
// input bit for bit. The reference (accuracy/rope_reference.h) decides each rounding in interval
// arithmetic: an output it cannot decide (an exact tie it cannot prove) is counted, never passed.
// Zeros are compared as values: the reference leaves the sign of an exact zero to the formula's
// IEEE arithmetic, which correct_rounding_test.cpp's zero-pair test checks.
RC_GTEST_PROP(KernelProperties, CorrectlyRoundedOnEveryPathForGeneratedModels, ()) {
  const ModelCase c = *model_cases(64);
  const RopePlan plan(c.spectrum, c.layout, c.head, c.offset);
  int undecided = 0, cancelling = 0;
  for (Dtype f : kKernelDtypes) with_storage(f, [&](auto e) { check_correctly_rounded<decltype(e)>(c, plan, undecided, cancelling); });
  RC_CLASSIFY(undecided > 0, "an output the reference could not decide (counted, not passed)");
  RC_CLASSIFY(cancelling > 0, "near-cancelling pairs");
  RC_CLASSIFY(c.spectrum.scaling().kind != Scaling::Kind::none, "scaled");
  RC_CLASSIFY(c.head > c.spectrum.dim(), "pass-through channels");
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
  std::vector<Bf16Bits> xb(raw.size());
  std::vector<F16Bits> xh(raw.size());
  for (size_t i = 0; i < raw.size(); ++i)
    x[i] = std::bit_cast<float>(raw[i]), xb[i] = Bf16Bits{static_cast<std::uint16_t>(raw[i] >> 16)}, xh[i] = F16Bits{static_cast<std::uint16_t>(raw[i])};
  for (Path p : cpu::available_paths()) {
    const std::vector<float> y = run(plan, pos, x, 1, p);
    const std::vector<Bf16Bits> yb = run(plan, pos, xb, 1, p);
    const std::vector<F16Bits> yh = run(plan, pos, xh, 1, p);
    for (size_t i = 0; i < x.size(); ++i) {
      RC_ASSERT(bits_of(y[i]) == raw[i]);
      RC_ASSERT(yb[i] == xb[i]);
      RC_ASSERT(yh[i] == xh[i]);
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
  const std::vector<float> yi = run(inter, c.positions, c.x, c.heads, cpu::default_path());
  const std::vector<float> yh = run(half, c.positions, xh, c.heads, cpu::default_path());
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
    const std::vector<float> rq = finite::rotate(finite::Implementation::kernel, t, plan, pq, q2, 1, cpu::default_path());
    const std::vector<float> rk = finite::rotate(finite::Implementation::kernel, t, plan, pk, k2, 1, cpu::default_path());
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
    const double c = kernel::kProvedUlpBound * std::ldexp(1.0, 1 - dtype_info(t).precision);  // c 2^(1-p')
    const double eps = c / (1 - c);
    const std::vector<float> y = finite::rotate(finite::Implementation::kernel, t, plan, pos, xt, 1, cpu::default_path());
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

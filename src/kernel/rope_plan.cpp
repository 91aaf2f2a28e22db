#include "kernel/rope_plan.h"

#include <gmp.h>
#include <mpfr.h>

#include <cmath>
#include <mutex>

#include "io/input_error.h"
#include "kernel/exact_rotation.h"
#include "numeric/precision.h"
#include "numeric/scalar.h"
#include "spectrum/attention_factor.h"
#include "spectrum/limits.h"
#include "spectrum/frequencies.h"

namespace ropecheck::kernel {
namespace {

// 320 bits: g_k is correct to a few ulps (~2^-315 relative), so round(2^128 g_k / 2pi) is the
// exactly rounded integer unless 2^128 g_k / 2pi lies within 2^-180 of a half-integer; even then
// the integer is off by at most one unit, the 2^-129 quantization bound of rope_plan.h gains a
// factor 1 + 2^-180, and the kernel's error budget (sincos_table.h) has room for far more. The
// accurate path's 256-bit turns are within 1/2 + 2^-56 units of 2^256 g_k / 2pi.
constexpr unsigned kTurnBits = 320;

// Returns: the bare spectrum's block: partial F rotates the first 2m channels as a block of m
// pairs (GPT-NeoX rotary_dim); every other variant's block is the whole head, its zero-frequency
// pairs being identities.
int bare_block_pairs(const Spectrum& s) { return s.variant() == Variant::partial ? s.rotated_pairs() : s.pairs(); }

const Spectrum& layer_spectrum(const LayerType& layer) {
  if (!layer.spectrum) throw InputError("layer_type", "a layer type with RoPE (" + layer.name + " has no rotary part)", layer.name);
  return *layer.spectrum;
}

}  // namespace

RopePlan::RopePlan(const Spectrum& spectrum, Layout layout)
    : RopePlan(spectrum, layout, spectrum.dim(), 0) {}

RopePlan::RopePlan(const LayerType& layer)
    : RopePlan(layer_spectrum(layer), layer.layout, layer.head_dim, layer.rotary_offset) {}

RopePlan::RopePlan(const Spectrum& spectrum, Layout layout, int head_dim, int rotary_offset)
    : spectrum_(spectrum), layout_(layout), head_dim_(head_dim), offset_(rotary_offset) {
  if (head_dim < 2 || head_dim > kMaxHeadDim || head_dim % 2 != 0)
    throw InputError("head_dim", "an even integer in [2, " + std::to_string(kMaxHeadDim) + "]", std::to_string(head_dim));
  if (rotary_offset < 0 || rotary_offset > head_dim - spectrum.dim())
    throw InputError("rotary_offset", "an offset in [0, head_dim - rotary dims] = [0, " + std::to_string(head_dim - spectrum.dim()) +
                                          "] (rotary dims " + std::to_string(spectrum.dim()) + " inside head_dim " + std::to_string(head_dim) + ")",
                     std::to_string(rotary_offset));
  // A partial spectrum given with its own geometry would rotate part of a part: refused.
  if (spectrum.variant() == Variant::partial && (head_dim != spectrum.dim() || rotary_offset != 0))
    throw InputError("variant", "partial only for a bare spectrum over the whole head", spectrum.describe());
  block_pairs_ = bare_block_pairs(spectrum);
  const size_t n = static_cast<size_t>(block_pairs_);
  for (auto& l : limbs_) l.assign(n, 0);
  identity_.assign(n, 0);
  std::vector<std::array<std::uint64_t, 4>> turns(n, std::array<std::uint64_t, 4>{0, 0, 0, 0});
  std::vector<std::uint8_t> zero_frequency(n, 0);

  std::lock_guard<std::mutex> lock(default_precision_mutex());
  ScopedPrecision precision(kTurnBits);
  const Real a = ropecheck::attention_factor<Real>(spectrum.scaling());
  factor_ = static_cast<double>(a);
  // [2^-64, 2^64): the kernel's binary64 products then never underflow nor overflow (detail/ops.h).
  if (!(factor_ >= 0x1p-64) || !(factor_ < 0x1p64))
    throw InputError("attention factor", "a finite value in [2^-64, 2^64)", attention_factor_text(spectrum.scaling()));
  const bool unit = unit_attention_factor(spectrum.scaling());
  const std::vector<Real> g = frequencies<Real>(spectrum);
  const Real turn = Real(2 * pi_value<Real>());
  mpz_t z, z256;
  mpz_init(z);
  mpz_init(z256);
  for (size_t k = 0; k < n; ++k) {
    if (!spectrum.rotated(static_cast<int>(k))) {
      zero_frequency[k] = 1;
      identity_[k] = unit ? 1 : 0;
      continue;
    }
    Real scaled = Real(g[k] / turn);
    mpfr_mul_2ui(scaled.backend().data(), scaled.backend().data(), 128, MPFR_RNDN);  // exact
    mpfr_get_z(z, scaled.backend().data(), MPFR_RNDN);
    mpfr_mul_2ui(scaled.backend().data(), scaled.backend().data(), 128, MPFR_RNDN);  // 2^256 g_k / 2pi, exact
    mpfr_get_z(z256, scaled.backend().data(), MPFR_RNDN);
    // g_k / 2pi < 1/(2pi) < 2^-2: the integer has at most 126 bits, two 64-bit GMP limbs (254 bits
    // and four limbs for the 256-bit turn).
    static_assert(sizeof(mp_limb_t) == 8, "64-bit GMP limbs expected");
    const std::uint64_t lo = mpz_size(z) > 0 ? mpz_getlimbn(z, 0) : 0;
    const std::uint64_t hi = mpz_size(z) > 1 ? mpz_getlimbn(z, 1) : 0;
    limbs_[0][k] = lo & 0xFFFFFFFFu;
    limbs_[1][k] = lo >> 32;
    limbs_[2][k] = hi & 0xFFFFFFFFu;
    limbs_[3][k] = hi >> 32;
    for (size_t i = 0; i < 4; ++i) turns[k][i] = mpz_size(z256) > i ? mpz_getlimbn(z256, static_cast<mp_size_t>(i)) : 0;
  }
  mpz_clear(z);
  mpz_clear(z256);
  for (auto f : identity_) any_identity_ = any_identity_ || f != 0;
  all_identity_ = true;
  for (auto f : identity_) all_identity_ = all_identity_ && f != 0;
  exact_ = std::make_shared<const ExactRotation>(spectrum, std::move(turns), std::move(zero_frequency), a.backend().data());
}

std::string RopePlan::describe() const {
  std::string d = spectrum_.describe() + "; layout " + layout_name(layout_) + " (block " + std::to_string(block_pairs_) + " pairs)";
  if (head_dim_ != spectrum_.dim() || offset_ != 0)
    d += "; rotary " + std::to_string(spectrum_.dim()) + " of " + std::to_string(head_dim_) + " at channel " + std::to_string(offset_);
  return d;
}

RopePlan plan_for(const ResolvedSpectrum& rs, std::optional<Layout> layout, const std::string& layout_param) {
  if (rs.layer) {
    const LayerType& l = *rs.layer;
    if (layout && *layout != l.layout)
      throw InputError(layout_param, "the model's own layout, " + layout_name(l.layout) + " (" + rs.name + "), or none", layout_name(*layout));
    // rs.spectrum, not l.spectrum: the request may have set the sequence length (dynamic, longrope).
    return RopePlan(rs.spectrum, l.layout, l.head_dim, l.rotary_offset);
  }
  if (!layout) throw InputError(layout_param, "interleaved or half (required without a model)", "");
  return RopePlan(rs.spectrum, *layout);
}

}  // namespace ropecheck::kernel

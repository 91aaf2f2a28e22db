#include "kernel/rope_plan.h"

#include <gmp.h>
#include <mpfr.h>

#include <mutex>

#include "io/input_error.h"
#include "numeric/precision.h"
#include "numeric/scalar.h"
#include "spectrum/attention_factor.h"
#include "spectrum/frequencies.h"

namespace ropecheck::kernel {
namespace {

// 320 bits: g_k is correct to a few ulps (~2^-315 relative), so round(2^128 g_k / 2pi) is the
// exactly rounded integer unless 2^128 g_k / 2pi lies within 2^-180 of a half-integer; even then
// the integer is off by at most one unit, the 2^-129 quantization bound of rope_plan.h gains a
// factor 1 + 2^-180, and the kernel's error budget (sincos_table.h) has room for far more.
constexpr unsigned kTurnBits = 320;

// Boost 1.74's default precision is process-wide: plans built on several threads at once (the C
// API under a threaded caller) must not interleave their ScopedPrecision.
std::mutex& precision_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

RopePlan::RopePlan(const Spectrum& spectrum, Layout layout) : spectrum_(spectrum), layout_(layout) {
  if (spectrum.dim() > 65536) throw InputError("head_dim", "an even integer in [2, 65536]", std::to_string(spectrum.dim()));
  // The kernel applies rotations: a yarn or longrope attention factor != 1 would be silently lost.
  if (!unit_attention_factor(spectrum.scaling()))
    throw InputError("scaling", "a scaling with attention factor 1 (the kernel does not apply attention factors)",
                     spectrum.scaling().describe());
  // partial F rotates the first 2m channels as a block of m pairs (GPT-NeoX rotary_dim); every
  // other variant's block is the whole head, its zero-frequency pairs being identities.
  block_pairs_ = spectrum.variant() == Variant::partial ? spectrum.rotated_pairs() : spectrum.pairs();
  const size_t n = static_cast<size_t>(block_pairs_);
  for (auto& l : limbs_) l.assign(n, 0);
  identity_.assign(n, 0);

  std::lock_guard<std::mutex> lock(precision_mutex());
  ScopedPrecision precision(kTurnBits);
  const std::vector<Real> g = frequencies<Real>(spectrum);
  const Real turn = Real(2 * pi_value<Real>());
  mpz_t z;
  mpz_init(z);
  for (size_t k = 0; k < n; ++k) {
    if (!spectrum.rotated(static_cast<int>(k))) {
      identity_[k] = 1;
      continue;
    }
    Real scaled = Real(g[k] / turn);
    mpfr_mul_2ui(scaled.backend().data(), scaled.backend().data(), 128, MPFR_RNDN);  // exact
    mpfr_get_z(z, scaled.backend().data(), MPFR_RNDN);
    // g_k / 2pi < 1/(2pi) < 2^-2: the integer has at most 126 bits, two 64-bit GMP limbs.
    static_assert(sizeof(mp_limb_t) == 8, "64-bit GMP limbs expected");
    const std::uint64_t lo = mpz_size(z) > 0 ? mpz_getlimbn(z, 0) : 0;
    const std::uint64_t hi = mpz_size(z) > 1 ? mpz_getlimbn(z, 1) : 0;
    limbs_[0][k] = lo & 0xFFFFFFFFu;
    limbs_[1][k] = lo >> 32;
    limbs_[2][k] = hi & 0xFFFFFFFFu;
    limbs_[3][k] = hi >> 32;
  }
  mpz_clear(z);
  for (auto f : identity_) {
    any_identity_ = any_identity_ || f != 0;
  }
  all_identity_ = true;
  for (auto f : identity_) all_identity_ = all_identity_ && f != 0;
}

std::string RopePlan::describe() const {
  return spectrum_.describe() + "; layout " + layout_name(layout_) + " (block " + std::to_string(block_pairs_) + " pairs)";
}

}  // namespace ropecheck::kernel

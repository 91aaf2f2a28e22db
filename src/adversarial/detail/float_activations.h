// File: detail/float_activations.h
// Binary64 activations of a head at one distance, with an a-priori bound on their error: shared by
// the guided scan, the random baseline (so both score candidates with the same arithmetic) and
// the bounded certificates (bounded_scan.h, bounded_attention.h), which turn the bound into a
// proof.
//
// Error bound (valid at every distance s; u = 2^-53, gamma_n = n u / (1 - n u)):
// per active chunk p with query (q1, q2) and key (k1, k2), let A_p = (|q1| + |q2|)(|k1| + |k2|),
// which bounds |u_p| + |w_p| and |q1 k1| + |q2 k2| + |q2 k1| + |q1 k2|. Then
//   u_p, w_p = RN(RN(x y) +- RN(x' y'))               err <= gamma_2 A_p each;
//   c, s = the kernel's cos, sin of s g_p              err <= 2^-50 each (sincos_table.h);
//   term = RN(RN(c u) - RN(s w)): vs the exact c u - s w, err <= 2^-49 (1 + gamma_2) A_p
//          + 2 gamma_2 A_p (inputs) + gamma_2 (1 + 2^-50)(1 + 2 gamma_2) A_p (its two roundings);
//   a = the P terms added in order from 0: err <= gamma_(P-1) sum |term_p|.
// So |activation(i) - a_i(s)| <= M_i (2^-49 + (P + 5) u)(1 + 2^-40) with M_i = sum_p A_p, and
// error_bound(i) = M_i (2^-49 + (2P + 8) u) * 1.02 keeps more than a factor 1.5 in reserve (M_i
// is itself computed in binary64: its rounding, < P u relative, is inside the reserve).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "adversarial/head.h"
#include "attention/activation.h"
#include "kernel/rope_plan.h"
#include "kernel/sincos_table.h"
#include "numeric/bounded_exp.h"
#include "spectrum/attention_factor.h"

namespace ropecheck::adversarial::detail {

// The head's active chunks as a compact kernel plan: the production kernel's turn-exact sin/cos
// (sincos_table.h, error <= 2^-50) evaluated for those chunks only, and the pair products of
// each type, so a distance costs (chunks) sincos + 2 (chunks) products per type.
class FloatActivations {
 public:
  // Types target, distractor 0, bos (when the head has one), in that order: activation(0) is the
  // target's, activation(1) distractor 0's, activation(2) the bos sink's.
  explicit FloatActivations(const Head& head) : FloatActivations(head, default_types(head)) {}
  // Any types of the head, in the caller's order.
  FloatActivations(const Head& head, const std::vector<TypeId>& types)
      : chunks_(active_chunks(head)),
        // The rotation alone (spectrum/attention_factor.h): a head's activations are q^T R^(-s) k
        // over its frequencies (head.h); the kernel plan refuses a factor it would not apply.
        sincos_(kernel::RopePlan(rotation_only(head.spectrum), kernel::Layout::interleaved), chunks_, cpu::default_path()) {
    const double u = 0x1p-53, pairs = static_cast<double>(chunks_.size());
    for (TypeId t : types) {
      const std::vector<double>& k = head.key(t);
      std::vector<double> uu, ww;
      double m = 0, peak = 0;
      for (int p : chunks_) {
        const double q1 = head.query[2 * p], q2 = head.query[2 * p + 1], k1 = k[2 * p], k2 = k[2 * p + 1];
        uu.push_back(pair_u(q1, q2, k1, k2));
        ww.push_back(pair_w(q1, q2, k1, k2));
        m += (std::fabs(q1) + std::fabs(q2)) * (std::fabs(k1) + std::fabs(k2));
        peak += std::hypot(uu.back(), ww.back()) + 4 * u * (std::fabs(q1) + std::fabs(q2)) * (std::fabs(k1) + std::fabs(k2));
      }
      u_.push_back(uu);
      w_.push_back(ww);
      // |a(s)| <= sum_p |c u_p - s w_p| <= sum_p hypot(u_p, w_p) (c^2 + s^2 = 1); the exact
      // hypot(u, w) <= hypot(u^, w^) + sqrt(2) gamma_2 A_p (the products' error, above), and hypot
      // and the sum of P <= 2^12 terms err by < 2^-40 relative: so |a^| <= P_i + E_i.
      peak_.push_back(peak * (1 + 0x1p-40));
      error_.push_back(m * (0x1p-49 + (2 * pairs + 8) * u) * 1.02);
    }
    c_.resize(chunks_.size() + 1);
    s_.resize(chunks_.size() + 1);
  }

  static std::vector<TypeId> default_types(const Head& head) {
    std::vector<TypeId> t = {kTarget, distractor(0)};
    if (head.bos) t.push_back(kBos);
    return t;
  }

  // Moves to distance s; activation(i) = a(s) = sum over active chunks of cos(s g) u - sin(s g) w
  // (a key s tokens before the query: attention/activation.h's pair products and
  // lagged_activation_in_order).
  void at(long long s) { sincos_.at(s, c_.data(), s_.data()); }
  double activation(size_t i) const { return lagged_activation_in_order(u_[i].data(), w_[i].data(), c_.data(), s_.data(), chunks_.size()); }
  // Returns: E_i with |activation(i) - a_i(s)| <= E_i at every distance s (the bound above).
  double error_bound(size_t i) const { return error_[i]; }
  size_t types() const { return u_.size(); }

  // The exponentials, for the bounded certificates, scaled by a common factor e^-A (every
  // certificate compares ratios of sums of them, which the factor does not change):
  //   shifted_exp(i) = bounded_exp(x) with x = RN(activation(i) - A) when -600 <= x <= 600;
  //   0 marked `dropped` when x < -600 (the exact e^(a - A) is then below kDroppedBound, since
  //   |x - (a - A)| < 1); NaN when x > 600 (so every certified comparison fails: undecided).
  // A = 0 when P_i + E_i <= 600 for every type (P_i = (1 + 2^-40) sum_p hypot(u_p, w_p) >=
  // max_s |a_i(s)| by Cauchy-Schwarz, c^2 + s^2 = 1): nothing is ever dropped or NaN. Otherwise
  // choose_shift(n) sets A to the largest activation at distances 0..n-1, so the terms that matter
  // first are kept; a later activation more than 600 above it makes the certificate undecided.
  // The exact e^(a_i(s) - A) lies in [value (1 - r), value (1 + r)] for a kept term, with
  // r = exp_relative_error(i) = 1.001 (E_i + 601 u [the subtraction, when A != 0] + 2^-46):
  // e^(a - E') / (1 + 2^-47) <= value <= e^(a + E') (1 + 2^-47) (numeric/bounded_exp.h) with
  // E' = E_i + 601 u, and e^E' - 1 <= 1.000001 E' for E' <= 2^-20; in [0, kDroppedBound] for a
  // dropped one. Kept values are in [e^-600, e^600], so products with ratios in [2^-100, 2^100]
  // and sums of 2^31 of them stay normal and finite.
  // Valid only when exp_applicable(): every E_i <= 2^-20.
  struct ShiftedExp {
    double value;
    bool dropped;
  };
  static constexpr double kDroppedBound = 1e-260;  // >= e^-599
  double exp_shift() const { return shift_; }
  void choose_shift(long long distances) {
    shift_ = 0;
    bool small = true;
    for (size_t i = 0; i < types(); ++i) small = small && peak_[i] + error_[i] <= 600;
    if (small) return;
    double top = -std::numeric_limits<double>::infinity();
    for (long long s = 0; s < distances; ++s) {
      at(s);
      for (size_t i = 0; i < types(); ++i) top = std::max(top, activation(i));
    }
    shift_ = top;
  }
  ShiftedExp shifted_exp(size_t i) const {
    const double x = activation(i) - shift_;
    if (x < -600) return {0, true};
    if (x > 600) return {std::numeric_limits<double>::quiet_NaN(), false};
    return {bounded_exp(x), false};
  }
  double exp_relative_error(size_t i) const { return 1.001 * (error_[i] + (shift_ != 0 ? 601 * 0x1p-53 : 0) + 0x1p-46); }
  bool exp_applicable() const {
    for (size_t i = 0; i < types(); ++i)
      if (!(error_[i] <= 0x1p-20)) return false;
    return true;
  }

 private:
  std::vector<int> chunks_;
  kernel::SinCosPairs sincos_;  // cos, sin of s g for the active chunks (chunks_ order)
  std::vector<std::vector<double>> u_, w_;
  std::vector<double> peak_, error_;
  double shift_ = 0;
  std::vector<double> c_, s_;
};

}  // namespace ropecheck::adversarial::detail

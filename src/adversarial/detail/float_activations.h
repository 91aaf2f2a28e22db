// File: detail/float_activations.h
// Binary64 activations of a head at one distance, shared by the guided scan and the random
// baseline (so both score candidates with the same arithmetic).
#pragma once

#include <cstdint>
#include <vector>

#include "adversarial/head.h"
#include "attention/activation.h"
#include "kernel/rope_plan.h"
#include "kernel/sincos_table.h"

namespace ropecheck::adversarial::detail {

// The head's active chunks as a compact kernel plan: the production kernel's turn-exact sin/cos
// (sincos_table.h, error <= 2^-50) evaluated for those chunks only, and the pair products of
// each type, so a distance costs (chunks) sincos + 2 (chunks) products per type.
class FloatActivations {
 public:
  explicit FloatActivations(const Head& head)
      : chunks_(active_chunks(head)),
        sincos_(kernel::RopePlan(head.spectrum, kernel::Layout::interleaved), chunks_, cpu::default_path()) {
    for (TypeId t : {kTarget, distractor(0), kBos}) {
      if (!head.has_type(t)) continue;
      const std::vector<double>& k = head.key(t);
      std::vector<double> u, w;
      for (int p : chunks_) {
        const double q1 = head.query[2 * p], q2 = head.query[2 * p + 1], k1 = k[2 * p], k2 = k[2 * p + 1];
        u.push_back(pair_u(q1, q2, k1, k2));
        w.push_back(pair_w(q1, q2, k1, k2));
      }
      u_.push_back(u);
      w_.push_back(w);
    }
    c_.resize(chunks_.size() + 1);
    s_.resize(chunks_.size() + 1);
  }
  // Moves to distance s; activation(i) for i = 0 target, 1 distractor 0, 2 bos (if any):
  // a(s) = sum over active chunks of cos(s g) u - sin(s g) w (a key s tokens before the query:
  // attention/activation.h's pair products and lagged_activation_in_order).
  void at(long long s) { sincos_.at(s, c_.data(), s_.data()); }
  double activation(size_t i) const { return lagged_activation_in_order(u_[i].data(), w_[i].data(), c_.data(), s_.data(), chunks_.size()); }

 private:
  std::vector<int> chunks_;
  kernel::SinCosPairs sincos_;  // cos, sin of s g for the active chunks (chunks_ order)
  std::vector<std::vector<double>> u_, w_;
  std::vector<double> c_, s_;
};

}  // namespace ropecheck::adversarial::detail

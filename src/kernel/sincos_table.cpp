#include "kernel/sincos_table.h"

#include <algorithm>
#include <string>

#include "io/input_error.h"
#include "cpu/float_environment.h"
#include "kernel/detail/ops.h"
#include "cpu/split_tokens.h"

namespace ropecheck::kernel {
namespace {

detail::TurnLimbs limbs_of(const RopePlan& plan) {
  return detail::TurnLimbs{{plan.limb(0), plan.limb(1), plan.limb(2), plan.limb(3)}};
}

}  // namespace

void sincos_row(const RopePlan& plan, std::int64_t p, double* c, double* s, cpu::Path path) {
  cpu::require_available(path, "kernel path");
  cpu::DefaultFloatEnvironment guard;
  detail::ops_for(path).sincos_row(limbs_of(plan), plan.block_pairs(), p, c, s);
  detail::scale_row(plan.attention_factor(), plan.block_pairs(), c, s);
}

SinCosTable::SinCosTable(const RopePlan& plan, std::span<const std::int64_t> positions, cpu::Path path, int threads)
    : plan_(&plan),
      tokens_(static_cast<std::int64_t>(positions.size())),
      stride_((std::int64_t{plan.block_pairs()} + 7) / 8 * 8),
      positions_(positions.begin(), positions.end()) {
  if (threads < 1 || threads > 1024) throw InputError("threads", "an integer in [1, 1024]", std::to_string(threads));
  cpu::require_available(path, "kernel path");
  cos_.assign(static_cast<size_t>(tokens_ * stride_), 0.0);
  sin_.assign(static_cast<size_t>(tokens_ * stride_), 0.0);
  const detail::PathOps& ops = detail::ops_for(path);
  const detail::TurnLimbs g = limbs_of(plan);
  auto work = [&](std::int64_t t0, std::int64_t t1, std::int64_t) {
    cpu::DefaultFloatEnvironment guard;
    for (std::int64_t t = t0; t < t1; ++t) {
      double* c = cos_.data() + t * stride_;
      double* s = sin_.data() + t * stride_;
      ops.sincos_row(g, plan.block_pairs(), positions_[static_cast<size_t>(t)], c, s);
      detail::scale_row(plan.attention_factor(), plan.block_pairs(), c, s);
    }
  };
  const std::int64_t n = std::min<std::int64_t>(threads, std::max<std::int64_t>(tokens_, 1));
  cpu::split_tokens(tokens_, n, work);
}

SinCosPairs::SinCosPairs(const RopePlan& plan, std::span<const int> pairs, cpu::Path path) : pairs_(pairs.begin(), pairs.end()), path_(path) {
  cpu::require_available(path, "kernel path");
  for (int k : pairs_)
    if (k < 0 || k >= plan.block_pairs())
      throw InputError("pairs", "block-pair indices in [0, " + std::to_string(plan.block_pairs()) + ") of " + plan.describe(), std::to_string(k));
  factor_ = plan.attention_factor();
  for (int i = 0; i < 4; ++i) {
    limbs_[i].reserve(pairs_.size());
    for (int k : pairs_) limbs_[i].push_back(plan.limb(i)[k]);
  }
}

void SinCosPairs::at(std::int64_t p, double* c, double* s) const {
  if (pairs_.empty()) return;
  cpu::DefaultFloatEnvironment guard;
  const detail::TurnLimbs g{{limbs_[0].data(), limbs_[1].data(), limbs_[2].data(), limbs_[3].data()}};
  detail::ops_for(path_).sincos_row(g, static_cast<int>(pairs_.size()), p, c, s);
  detail::scale_row(factor_, static_cast<int>(pairs_.size()), c, s);
}

}  // namespace ropecheck::kernel

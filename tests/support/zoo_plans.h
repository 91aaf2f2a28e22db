// File: zoo_plans.h
// The kernel plan of a zoo model's first RoPE layer type, as `--model NAME` resolves it
// (kernel::plan_for of the resolved request): its geometry, layout and attention factor.
// Include as "tests/support/zoo_plans.h".
#pragma once

#include <optional>
#include <string>

#include "kernel/rope_plan.h"
#include "spectrum/request.h"

namespace ropecheck {

inline kernel::RopePlan zoo_plan(const std::string& model) {
  SpectrumRequest r;
  r.model = model;
  return kernel::plan_for(resolve(r), std::nullopt);
}

}  // namespace ropecheck

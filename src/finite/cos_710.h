// File: cos_710.h
// The d = 2, g = 1 witness behind the finite-precision failures of the single-pair constructions
// (argmax_at_distance.h, head_strictness.h): cos(710) = 1 - 1.8e-9 (710 / 113 is a convergent of
// 2 pi) rounds to 1.0 in float32, and the kernel's float32 rotation of (1, 0) by 710 returns
// exactly 1.0 as its first component. Deterministic; nothing thrown.
#pragma once

#include <nlohmann/json.hpp>

#include "cpu/path.h"

namespace ropecheck::finite {

struct Cos710 {
  double cos_lower = 0, cos_upper = 0;   // certified enclosure of cos(710), rounded outward
  float cos_f32 = 0;                     // fl32(cos 710)
  float kernel_x = 0, kernel_y = 0;      // kernel f32 rotation of (1, 0) at position 710, d = 2
};
Cos710 cos_710(cpu::Path path);

nlohmann::json to_json(const Cos710& c);

}  // namespace ropecheck::finite

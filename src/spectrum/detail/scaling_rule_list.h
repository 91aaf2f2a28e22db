// File: detail/scaling_rule_list.h
// The entries scaling/<kind>.cpp define, one each, gathered by scaling/registry.cpp.
#pragma once

#include "spectrum/scaling_registry.h"

namespace ropecheck::scaling_kinds {

extern const ScalingRuleInfo kNone, kLinear, kLlama3, kDynamic, kYarn, kLongrope;
extern const RopeTypeInfo kDefaultType, kLinearType, kDynamicType, kYarnType, kLongropeType, kLlama3Type, kProportionalType;

}  // namespace ropecheck::scaling_kinds

#include "spectrum/scaling_registry.h"

// The registration of every scaling rule: the entries scaling/<kind>.cpp define (extern const),
// named here in Scaling::Kind's order and in the order messages list the rope_types.
namespace ropecheck::scaling_kinds {
extern const ScalingRuleInfo kNone, kLinear, kLlama3, kDynamic, kYarn, kLongrope;
extern const RopeTypeInfo kDefaultType, kLinearType, kDynamicType, kYarnType, kLongropeType, kLlama3Type, kProportionalType;
}  // namespace ropecheck::scaling_kinds

namespace ropecheck {

namespace rules = scaling_kinds;

// A new Scaling::Kind fails to build here (-Werror=switch) until its file's entry is named.
const ScalingRuleInfo& scaling_rule(Scaling::Kind kind) {
  switch (kind) {
    case Scaling::Kind::none: return rules::kNone;
    case Scaling::Kind::linear: return rules::kLinear;
    case Scaling::Kind::llama3: return rules::kLlama3;
    case Scaling::Kind::dynamic: return rules::kDynamic;
    case Scaling::Kind::yarn: return rules::kYarn;
    case Scaling::Kind::longrope: return rules::kLongrope;
  }
  return rules::kNone;
}

std::span<const ScalingRuleInfo* const> scaling_rules() {
  static const ScalingRuleInfo* const all[] = {&rules::kNone, &rules::kLinear, &rules::kLlama3, &rules::kDynamic, &rules::kYarn, &rules::kLongrope};
  return all;
}

std::span<const RopeTypeInfo* const> rope_types() {
  static const RopeTypeInfo* const all[] = {&rules::kDefaultType,  &rules::kLinearType, &rules::kDynamicType,      &rules::kYarnType,
                                            &rules::kLongropeType, &rules::kLlama3Type, &rules::kProportionalType};
  return all;
}

const RopeTypeInfo* find_rope_type(const std::string& name) {
  for (const RopeTypeInfo* t : rope_types())
    if (t->name == name) return t;
  return nullptr;
}

}  // namespace ropecheck

// Scaling::Kind::linear: position interpolation, g_i / factor (scaling.h); rope_type "linear".
#include "spectrum/detail/hf_rope_dict.h"
#include "spectrum/detail/scaling_checks.h"
#include "spectrum/detail/scaling_rule_list.h"

namespace ropecheck::scaling_kinds {

namespace linear_rule {
std::string describe(const Scaling& s) { return "linear " + s.factor; }
void check(const Scaling& s, int) { scaling_checks::require_factor("scaling.factor", s.factor); }
void read(const HfRopeDict& d, Scaling& s) { s = Scaling::linear(d.decimal("factor", "a number > 0")); }
}  // namespace linear_rule

const ScalingRuleInfo kLinear{Scaling::Kind::linear, "linear", linear_rule::describe, linear_rule::check};
const RopeTypeInfo kLinearType{"linear", linear_rule::read};

}  // namespace ropecheck::scaling_kinds

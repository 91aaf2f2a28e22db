// Scaling::Kind::none: the unscaled frequencies g_i (scaling.h); rope_type "default".
#include "spectrum/detail/hf_rope_dict.h"
#include "spectrum/detail/scaling_rule_list.h"

namespace ropecheck::scaling_kinds {

namespace none_rule {
std::string describe(const Scaling&) { return "none"; }
void check(const Scaling&, int) {}
void read(const HfRopeDict&, Scaling&) {}
}  // namespace none_rule

const ScalingRuleInfo kNone{Scaling::Kind::none, "none", none_rule::describe, none_rule::check};
const RopeTypeInfo kDefaultType{"default", none_rule::read};

}  // namespace ropecheck::scaling_kinds

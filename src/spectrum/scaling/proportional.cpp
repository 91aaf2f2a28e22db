// rope_type "proportional": Gemma's p-RoPE (hf_config.cpp gives its layers Variant::p_rope with
// the dict's partial_rotary_factor); its optional factor is a linear scaling, else none.
#include "spectrum/detail/hf_rope_dict.h"
#include "spectrum/scaling_registry.h"

namespace ropecheck::scaling_kinds {

namespace proportional_rule {
void read(const HfRopeDict& d, Scaling& s) {
  if (d.has("factor")) s = Scaling::linear(d.decimal("factor", "a number > 0"));
}
}  // namespace proportional_rule

extern const RopeTypeInfo kProportionalType{"proportional", proportional_rule::read};

}  // namespace ropecheck::scaling_kinds

// Scaling::Kind::dynamic: NTK-aware base change at the sequence length (scaling.h); rope_type
// "dynamic".
#include "io/input_error.h"
#include "spectrum/detail/hf_rope_dict.h"
#include "spectrum/detail/scaling_checks.h"
#include "spectrum/detail/scaling_rule_list.h"

namespace ropecheck::scaling_kinds {

namespace dynamic_rule {
std::string describe(const Scaling& s) {
  return "dynamic (factor " + s.factor + ", max position " + std::to_string(s.max_position) + ", " +
         (s.vllm_static ? std::string("vLLM static") : "sequence length " + std::to_string(s.sequence_length)) + ")";
}

void check(const Scaling& s, int) {
  // factor > 0 keeps the base 1 + factor (S/M - 1) of the power >= 1 for every S >= M.
  scaling_checks::require_factor("scaling.factor", s.factor);
  scaling_checks::require_context("scaling.max_position", s.max_position);
  if (s.sequence_length < 0) throw InputError("scaling.sequence_length", "an integer >= 0", std::to_string(s.sequence_length));
}

void read(const HfRopeDict& d, Scaling& s) {
  s.kind = Scaling::Kind::dynamic;
  s.factor = d.decimal("factor", "a number > 0");
  s.max_position = d.max_position;
  s.sequence_length = d.sequence_length;
  s.vllm_static = d.vllm_dynamic;
}
}  // namespace dynamic_rule

const ScalingRuleInfo kDynamic{Scaling::Kind::dynamic, "dynamic", dynamic_rule::describe, dynamic_rule::check};
const RopeTypeInfo kDynamicType{"dynamic", dynamic_rule::read};

}  // namespace ropecheck::scaling_kinds

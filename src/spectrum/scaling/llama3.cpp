// Scaling::Kind::llama3: Llama 3.1's band rule (scaling.h); rope_type "llama3".
#include "io/input_error.h"
#include "spectrum/detail/hf_rope_dict.h"
#include "spectrum/detail/scaling_checks.h"
#include "spectrum/detail/scaling_rule_list.h"

namespace ropecheck::scaling_kinds {

namespace llama3_rule {
std::string describe(const Scaling& s) {
  return "llama3 (factor " + s.factor + ", low " + s.low_freq_factor + ", high " + s.high_freq_factor + ", original context " +
         std::to_string(s.original_context) + ")";
}

void check(const Scaling& s, int) {
  using namespace scaling_checks;
  require_factor("scaling.factor", s.factor);
  require_positive("scaling.low_freq_factor", s.low_freq_factor);
  require_positive("scaling.high_freq_factor", s.high_freq_factor);
  if (!decimal_at_most(s.low_freq_factor, s.high_freq_factor))
    throw InputError("scaling.high_freq_factor", "a decimal >= low_freq_factor (" + s.low_freq_factor + ")", s.high_freq_factor);
  require_context("scaling.original_context", s.original_context);
}

void read(const HfRopeDict& d, Scaling& s) {
  const std::string accepted = "a number > 0 (llama3 requires factor, low_freq_factor, high_freq_factor, original_max_position_embeddings)";
  s = Scaling::llama3(d.decimal("factor", accepted), d.decimal("low_freq_factor", accepted), d.decimal("high_freq_factor", accepted), 0);
  if (!d.has("original_max_position_embeddings"))
    throw InputError(d.place.member("original_max_position_embeddings").name(), "an integer >= 1 (a required field of llama3)", "");
  s.original_context = d.original();
}
}  // namespace llama3_rule

const ScalingRuleInfo kLlama3{Scaling::Kind::llama3, "llama3", llama3_rule::describe, llama3_rule::check};
const RopeTypeInfo kLlama3Type{"llama3", llama3_rule::read};

}  // namespace ropecheck::scaling_kinds

// Scaling::Kind::longrope: per-pair short or long factors (scaling.h), with an attention factor
// (attention_factor.h); rope_type "longrope" (Phi-3's early "su", renamed by hf_config.cpp).
#include "io/input_error.h"
#include "spectrum/detail/hf_rope_dict.h"
#include "spectrum/detail/scaling_checks.h"
#include "spectrum/detail/scaling_rule_list.h"

namespace ropecheck::scaling_kinds {

namespace longrope_rule {
std::string describe(const Scaling& s) {
  std::string d = "longrope (" + std::string(s.longrope_long() ? "long" : "short") + " factors, original context " +
                  std::to_string(s.original_context) + ", sequence length " + std::to_string(s.sequence_length);
  if (s.attention_factor) d += ", attention factor " + *s.attention_factor;
  return d + ")";
}

void check(const Scaling& s, int pairs) {
  using namespace scaling_checks;
  require_context("scaling.original_context", s.original_context);
  if (s.factor.empty()) require_context("scaling.max_position", s.max_position);
  else require_factor("scaling.factor", s.factor);
  if (s.attention_factor) require_positive("scaling.attention_factor", *s.attention_factor);
  const std::string accepted = "a list of " + std::to_string(pairs) + " decimals > 0 (one per rotating pair)";
  for (const auto* list : {&s.short_factor, &s.long_factor}) {
    const std::string name = list == &s.short_factor ? "scaling.short_factor" : "scaling.long_factor";
    if (static_cast<int>(list->size()) != pairs) throw InputError(name, accepted, std::to_string(list->size()) + " values");
    for (const auto& v : *list)
      if (!positive_decimal(v)) throw InputError(name, accepted, v);
  }
}

void read(const HfRopeDict& d, Scaling& s) {
  s.kind = Scaling::Kind::longrope;
  s.short_factor = d.number_list("short_factor");
  s.long_factor = d.number_list("long_factor");
  s.original_context = d.original();
  s.max_position = d.max_position;
  // Phi-3 (top-level C): f = M/C; else the dict's factor (transformers' two branches).
  if (d.top_level_original || !d.has("factor")) s.factor = "";
  else s.factor = d.decimal("factor", "a number > 0");
  s.attention_factor = d.optional_decimal("attention_factor");
  s.sequence_length = d.sequence_length;
}
}  // namespace longrope_rule

const ScalingRuleInfo kLongrope{Scaling::Kind::longrope, "longrope", longrope_rule::describe, longrope_rule::check};
const RopeTypeInfo kLongropeType{"longrope", longrope_rule::read};

}  // namespace ropecheck::scaling_kinds

// Scaling::Kind::yarn: YaRN's ramp between g_i and g_i / factor (scaling.h), with an attention
// factor (attention_factor.h); rope_type "yarn".
#include "io/input_error.h"
#include "io/json_exact.h"
#include "spectrum/detail/hf_rope_dict.h"
#include "spectrum/detail/scaling_checks.h"
#include "spectrum/detail/scaling_rule_list.h"

namespace ropecheck::scaling_kinds {

namespace yarn_rule {
std::string describe(const Scaling& s) {
  std::string d = "yarn (factor " + s.factor + ", original context " + std::to_string(s.original_context) + ", beta " + s.beta_fast + "/" +
                  s.beta_slow + (s.truncate ? ", truncate" : ", no truncate");
  if (s.attention_factor) d += ", attention factor " + *s.attention_factor;
  if (s.mscale) d += ", mscale " + *s.mscale;
  if (s.mscale_all_dim) d += ", mscale_all_dim " + *s.mscale_all_dim;
  return d + ")";
}

void check(const Scaling& s, int) {
  using namespace scaling_checks;
  require_factor("scaling.factor", s.factor);
  require_context("scaling.original_context", s.original_context);
  require_positive("scaling.beta_fast", s.beta_fast);
  require_positive("scaling.beta_slow", s.beta_slow);
  if (s.attention_factor) require_positive("scaling.attention_factor", *s.attention_factor);
  if (s.mscale && !decimal_enclosure(*s.mscale)) throw InputError("scaling.mscale", "a decimal", *s.mscale);
  if (s.mscale_all_dim && !decimal_enclosure(*s.mscale_all_dim)) throw InputError("scaling.mscale_all_dim", "a decimal", *s.mscale_all_dim);
}

void read(const HfRopeDict& d, Scaling& s) {
  s.kind = Scaling::Kind::yarn;
  s.original_context = d.original();
  // transformers v5: factor defaults to max_position_embeddings / C.
  if (d.has("factor")) s.factor = d.decimal("factor", "a number > 0");
  else if (d.max_position % s.original_context == 0) s.factor = std::to_string(d.max_position / s.original_context);
  else throw InputError(d.place.member("factor").name(), "a number > 0 (required unless max_position_embeddings is a multiple of C)", "");
  if (auto v = d.optional_decimal("beta_fast")) s.beta_fast = *v;
  if (auto v = d.optional_decimal("beta_slow")) s.beta_slow = *v;
  s.attention_factor = d.optional_decimal("attention_factor");
  s.mscale = d.optional_decimal("mscale");
  s.mscale_all_dim = d.optional_decimal("mscale_all_dim");
  if (d.has("truncate")) {
    if (!d.dict["truncate"].is_boolean()) throw InputError(d.place.member("truncate").name(), "true or false", shown_exact(d.dict["truncate"]));
    s.truncate = d.dict["truncate"].get<bool>();
  }
  if (d.model_type == "gpt_oss" && !d.has("truncate")) s.truncate = false;  // openai/gpt-oss reference
}
}  // namespace yarn_rule

const ScalingRuleInfo kYarn{Scaling::Kind::yarn, "yarn", yarn_rule::describe, yarn_rule::check};
const RopeTypeInfo kYarnType{"yarn", yarn_rule::read};

}  // namespace ropecheck::scaling_kinds

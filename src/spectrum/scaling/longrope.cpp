// Scaling::Kind::longrope: per-pair short or long factors (scaling.h), with an attention factor
// (attention_factor.h); rope_type "longrope" (Phi-3's early "su", renamed by hf_config.cpp).
#include "io/input_error.h"
#include "spectrum/detail/hf_rope_dict.h"
#include "spectrum/detail/scaling_checks.h"
#include "spectrum/detail/spectrum_fields.h"
#include "spectrum/scaling_registry.h"
#include "spectrum/scaling_rules.h"

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

nlohmann::json to_json(const Scaling& s) {
  nlohmann::json j{{"kind", "longrope"},
                   {"original_context", s.original_context},
                   {"max_position", s.max_position},
                   {"sequence_length", s.sequence_length},
                   {"short_factor", s.short_factor},
                   {"long_factor", s.long_factor}};
  if (!s.factor.empty()) j["factor"] = s.factor;
  if (s.attention_factor) j["attention_factor"] = *s.attention_factor;
  return j;
}

Scaling from_json(const nlohmann::json& j, const JsonPlace& place) {
  using namespace spectrum_fields;
  scaling_keys(j, place, "longrope",
               {"factor", "original_context", "max_position", "sequence_length", "short_factor", "long_factor", "attention_factor"});
  Scaling s;
  s.kind = Scaling::Kind::longrope;
  s.factor = j.contains("factor") ? positive_decimal(j, place, "factor") : "";
  s.original_context = integer_at_least(j, place, "original_context", 1);
  s.max_position = integer_at_least(j, place, "max_position", 0);
  s.sequence_length = integer_at_least(j, place, "sequence_length", 0);
  s.short_factor = decimal_list(j, place, "short_factor");
  s.long_factor = decimal_list(j, place, "long_factor");
  s.attention_factor = optional_positive(j, place, "attention_factor");
  return s;
}

// g_i / ext_i, ext the long factors when S > C, else the short ones.
template <Scalar T>
class Rule final : public FrequencyMap<T> {
 public:
  Rule(const Scaling& s, const T& theta, int) : FrequencyMap<T>(theta), ext_(s.longrope_long() ? s.long_factor : s.short_factor) {}
  T operator()(const T& g, int i) const override { return T(g / from_decimal<T>(ext_.at(static_cast<size_t>(i)))); }

  // a: attention_factor when stated; else f = factor (M/C when ""), a = 1 for f <= 1, else
  // sqrt(1 + ln f / ln C).
  static T attention_factor(const Scaling& s) {
    if (s.attention_factor) return from_decimal<T>(*s.attention_factor);
    const bool ratio = s.factor.empty();
    if (ratio ? s.max_position <= s.original_context : scaling_checks::decimal_at_most(s.factor, "1")) return T(1);
    const T f = ratio ? T(T(s.max_position) / T(s.original_context)) : from_decimal<T>(s.factor);
    return T(sqrt(T(1 + log(f) / log(T(s.original_context)))));
  }

 private:
  std::vector<std::string> ext_;
};
constexpr ScalingFormulas kFormulas = formulas_of<Rule>();
}  // namespace longrope_rule

extern const ScalingRuleInfo kLongrope{Scaling::Kind::longrope, "longrope", longrope_rule::describe, longrope_rule::check, longrope_rule::to_json, longrope_rule::from_json, &longrope_rule::kFormulas};
extern const RopeTypeInfo kLongropeType{"longrope", longrope_rule::read};

}  // namespace ropecheck::scaling_kinds

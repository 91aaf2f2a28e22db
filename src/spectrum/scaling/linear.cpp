// Scaling::Kind::linear: position interpolation, g_i / factor (scaling.h); rope_type "linear".
#include "spectrum/detail/hf_rope_dict.h"
#include "spectrum/detail/scaling_checks.h"
#include "spectrum/detail/spectrum_fields.h"
#include "spectrum/scaling_registry.h"
#include "spectrum/scaling_rules.h"

namespace ropecheck::scaling_kinds {

namespace linear_rule {
std::string describe(const Scaling& s) { return "linear " + s.factor; }
void check(const Scaling& s, int) { scaling_checks::require_factor("scaling.factor", s.factor); }
void read(const HfRopeDict& d, Scaling& s) { s = Scaling::linear(d.decimal("factor", "a number > 0")); }
nlohmann::json to_json(const Scaling& s) { return "linear:" + s.factor; }
Scaling from_json(const nlohmann::json& j, const JsonPlace& place) {
  spectrum_fields::scaling_keys(j, place, "linear", {"factor"});
  return Scaling::linear(spectrum_fields::positive_decimal(j, place, "factor"));
}

template <Scalar T>
class Rule final : public FrequencyMap<T> {
 public:
  Rule(const Scaling& s, const T& theta, int) : FrequencyMap<T>(theta), factor_(from_decimal<T>(s.factor)) {}
  T operator()(const T& g, int) const override { return T(g / factor_); }

 private:
  T factor_;
};
constexpr ScalingFormulas kFormulas = formulas_of<Rule>();
}  // namespace linear_rule

extern const ScalingRuleInfo kLinear{Scaling::Kind::linear, "linear", linear_rule::describe, linear_rule::check, linear_rule::to_json, linear_rule::from_json, &linear_rule::kFormulas};
extern const RopeTypeInfo kLinearType{"linear", linear_rule::read};

}  // namespace ropecheck::scaling_kinds

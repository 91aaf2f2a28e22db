// Scaling::Kind::none: the unscaled frequencies g_i (scaling.h); rope_type "default".
#include "spectrum/detail/hf_rope_dict.h"
#include "spectrum/detail/spectrum_fields.h"
#include "spectrum/scaling_registry.h"
#include "spectrum/scaling_rules.h"

namespace ropecheck::scaling_kinds {

namespace none_rule {
std::string describe(const Scaling&) { return "none"; }
void check(const Scaling&, int) {}
void read(const HfRopeDict&, Scaling&) {}
nlohmann::json to_json(const Scaling&) { return "none"; }
Scaling from_json(const nlohmann::json& j, const JsonPlace& place) {
  spectrum_fields::scaling_keys(j, place, "none", {});
  return {};
}
template <Scalar T>
class Rule final : public FrequencyMap<T> {  // the identity: FrequencyMap's own operator()
 public:
  Rule(const Scaling&, const T& theta, int) : FrequencyMap<T>(theta) {}
};
constexpr ScalingFormulas kFormulas = formulas_of<Rule>();
}  // namespace none_rule

extern const ScalingRuleInfo kNone{Scaling::Kind::none, "none", none_rule::describe, none_rule::check, none_rule::to_json, none_rule::from_json, &none_rule::kFormulas};
extern const RopeTypeInfo kDefaultType{"default", none_rule::read};

}  // namespace ropecheck::scaling_kinds

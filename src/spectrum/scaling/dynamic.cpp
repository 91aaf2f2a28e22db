// Scaling::Kind::dynamic: NTK-aware base change at the sequence length (scaling.h); rope_type
// "dynamic".
#include <algorithm>

#include "io/input_error.h"
#include "spectrum/detail/hf_rope_dict.h"
#include "spectrum/detail/scaling_checks.h"
#include "spectrum/detail/spectrum_fields.h"
#include "spectrum/scaling_registry.h"
#include "spectrum/scaling_rules.h"

namespace ropecheck::scaling_kinds {

namespace dynamic_rule {
std::string describe(const Scaling& s) {
  return "dynamic (factor " + s.factor + ", max position " + std::to_string(s.max_position) + ", " +
         (s.vllm_static ? std::string("vLLM static") : "sequence length " + std::to_string(s.sequence_length)) + ")";
}

void check(const Scaling& s, int pairs) {
  // factor > 0 keeps the base 1 + factor (S/M - 1) of the power >= 1 for every S >= M.
  scaling_checks::require_factor("scaling.factor", s.factor);
  scaling_checks::require_context("scaling.max_position", s.max_position);
  if (s.sequence_length < 0) throw InputError("scaling.sequence_length", "an integer >= 0", std::to_string(s.sequence_length));
  if (pairs <= 1) throw InputError("dim", "a rotary width > 2 for dynamic scaling (its exponent is d/(d-2))", std::to_string(2 * pairs));
}

void read(const HfRopeDict& d, Scaling& s) {
  s.kind = Scaling::Kind::dynamic;
  s.factor = d.decimal("factor", "a number > 0");
  s.max_position = d.max_position;
  s.sequence_length = d.sequence_length;
  s.vllm_static = d.vllm_dynamic;
}

nlohmann::json to_json(const Scaling& s) {
  return nlohmann::json{{"kind", "dynamic"}, {"factor", s.factor}, {"max_position", s.max_position}, {"sequence_length", s.sequence_length},
                        {"vllm_static", s.vllm_static}};
}

Scaling from_json(const nlohmann::json& j, const JsonPlace& place) {
  using namespace spectrum_fields;
  scaling_keys(j, place, "dynamic", {"factor", "max_position", "sequence_length", "vllm_static"});
  Scaling s;
  s.kind = Scaling::Kind::dynamic;
  s.factor = positive_decimal(j, place, "factor");
  s.max_position = integer_at_least(j, place, "max_position", 1);
  s.sequence_length = integer_at_least(j, place, "sequence_length", 0);
  s.vllm_static = boolean_field(j, place, "vllm_static");
  return s;
}

// theta' = theta * ratio^(d/(d-2)); the frequencies themselves are unscaled powers of theta'.
template <Scalar T>
class Rule final : public FrequencyMap<T> {
 public:
  Rule(const Scaling& s, const T& theta, int d) : FrequencyMap<T>(theta) {
    const T f = from_decimal<T>(s.factor);
    const T m = T(s.max_position);
    // transformers: S = max(sequence_length, M); vLLM: S = M * factor, so the base is f*f - (f - 1).
    const T ratio = s.vllm_static ? T(f * f - (f - 1)) : T(f * T(std::max(s.sequence_length, s.max_position)) / m - (f - 1));
    this->theta_ = T(theta * pow(ratio, T(T(d) / T(d - 2))));
  }
};
constexpr ScalingFormulas kFormulas = formulas_of<Rule>();
}  // namespace dynamic_rule

extern const ScalingRuleInfo kDynamic{Scaling::Kind::dynamic, "dynamic", dynamic_rule::describe, dynamic_rule::check, dynamic_rule::to_json, dynamic_rule::from_json, &dynamic_rule::kFormulas};
extern const RopeTypeInfo kDynamicType{"dynamic", dynamic_rule::read};

}  // namespace ropecheck::scaling_kinds

// Scaling::Kind::yarn: YaRN's ramp between g_i and g_i / factor (scaling.h), with an attention
// factor (attention_factor.h); rope_type "yarn".
#include "io/input_error.h"
#include "io/json_exact.h"
#include "spectrum/detail/hf_rope_dict.h"
#include "spectrum/detail/scaling_checks.h"
#include "spectrum/detail/spectrum_fields.h"
#include "spectrum/scaling_registry.h"
#include "spectrum/scaling_rules.h"

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

nlohmann::json to_json(const Scaling& s) {
  nlohmann::json j{{"kind", "yarn"},           {"factor", s.factor},       {"original_context", s.original_context},
                   {"beta_fast", s.beta_fast}, {"beta_slow", s.beta_slow}, {"truncate", s.truncate}};
  if (s.attention_factor) j["attention_factor"] = *s.attention_factor;
  if (s.mscale) j["mscale"] = *s.mscale;
  if (s.mscale_all_dim) j["mscale_all_dim"] = *s.mscale_all_dim;
  return j;
}

Scaling from_json(const nlohmann::json& j, const JsonPlace& place) {
  using namespace spectrum_fields;
  scaling_keys(j, place, "yarn",
               {"factor", "original_context", "beta_fast", "beta_slow", "truncate", "attention_factor", "mscale", "mscale_all_dim"});
  Scaling s;
  s.kind = Scaling::Kind::yarn;
  s.factor = positive_decimal(j, place, "factor");
  s.original_context = integer_at_least(j, place, "original_context", 1);
  s.beta_fast = positive_decimal(j, place, "beta_fast");
  s.beta_slow = positive_decimal(j, place, "beta_slow");
  s.truncate = boolean_field(j, place, "truncate");
  s.attention_factor = optional_positive(j, place, "attention_factor");
  s.mscale = optional_decimal(j, place, "mscale");
  s.mscale_all_dim = optional_decimal(j, place, "mscale_all_dim");
  return s;
}

// m(f, k) = 1 for f <= 1 (decided exactly on the decimal), else 0.1 k ln f + 1.
template <Scalar T>
T mscale(const std::string& f, const T& k) {
  if (scaling_checks::decimal_at_most(f, "1")) return T(1);
  return T(T(T(1) / 10) * k * log(from_decimal<T>(f)) + 1);
}

bool nonzero(const std::string& decimal) {
  const Interval x = from_decimal<Interval>(decimal);
  return certainly_positive(x) || certainly_negative(x);
}

// The ramp between g and g/factor over yarn's correction range [low, high] of pair slots.
template <Scalar T>
class Rule final : public FrequencyMap<T> {
 public:
  Rule(const Scaling& s, const T& theta, int d) : FrequencyMap<T>(theta), factor_(from_decimal<T>(s.factor)) {
    using scaling_detail::monotone;
    // corr(r) = d ln(C / (2 pi r)) / (2 ln theta), then floor/ceil, max(low, 0), min(high, d-1).
    const T two_pi = T(2 * pi_value<T>());
    const T log_theta = T(log(theta));
    auto corr = [&](const std::string& beta) {
      return T(T(d) * log(T(T(s.original_context) / (two_pi * from_decimal<T>(beta)))) / (2 * log_theta));
    };
    low_ = corr(s.beta_fast);
    high_ = corr(s.beta_slow);
    if (s.truncate) {
      low_ = monotone(low_, [](const Real& x) { return Real(floor(x)); });
      high_ = monotone(high_, [](const Real& x) { return Real(ceil(x)); });
      if (!is_point(low_) || !is_point(high_)) this->decided_ = false;
    }
    low_ = monotone(low_, [](const Real& x) { return x < 0 ? Real(0) : x; });
    const Real last(d - 1);
    high_ = monotone(high_, [&](const Real& x) { return x > last ? last : x; });
    // transformers adds 0.001 to high when low == high (both integers after truncation).
    const bool equal = is_point(low_) && is_point(high_) && lower_of(low_) == lower_of(high_);
    may_equal_ = !equal && !certainly_less(low_, high_) && !certainly_less(high_, low_);
    if (may_equal_) this->decided_ = false;
    bumped_high_ = T(high_ + from_decimal<T>("0.001"));
    if (equal) high_ = bumped_high_;
  }

  T operator()(const T& g, int i) const override {
    auto blend = [&](const T& ramp) { return T(g * (1 - ramp) + T(g / factor_) * ramp); };
    if constexpr (is_interval_v<T>) {
      if (may_equal_) return hull_of(blend(ramp(i, high_)), blend(ramp(i, bumped_high_)));
    }
    return blend(ramp(i, high_));
  }

  // a: attention_factor when stated; else the mscale ratio (DeepSeek) when both are non-zero; else m(f, 1).
  static T attention_factor(const Scaling& s) {
    if (s.attention_factor) return from_decimal<T>(*s.attention_factor);
    if (s.mscale && s.mscale_all_dim && nonzero(*s.mscale) && nonzero(*s.mscale_all_dim)) {
      // Equal decimals (DeepSeek-V3: 1 and 1) give exactly 1, whatever f is.
      const Interval m = from_decimal<Interval>(*s.mscale), m_all = from_decimal<Interval>(*s.mscale_all_dim);
      if (lower_of(m) == lower_of(m_all) && upper_of(m) == upper_of(m_all)) return T(1);
      return T(mscale<T>(s.factor, from_decimal<T>(*s.mscale)) / mscale<T>(s.factor, from_decimal<T>(*s.mscale_all_dim)));
    }
    return mscale<T>(s.factor, T(1));
  }

 private:
  // ramp_i = clamp((i - low) / (high - low), 0, 1).
  T ramp(int i, const T& high) const {
    const T raw = T((T(i) - low_) / (high - low_));
    return scaling_detail::monotone(raw, [](const Real& x) { return x < 0 ? Real(0) : x > 1 ? Real(1) : x; });
  }

  T factor_;
  T low_ = T(0), high_ = T(0), bumped_high_ = T(0);
  bool may_equal_ = false;
};
constexpr ScalingFormulas kFormulas = formulas_of<Rule>();
}  // namespace yarn_rule

extern const ScalingRuleInfo kYarn{Scaling::Kind::yarn, "yarn", yarn_rule::describe, yarn_rule::check, yarn_rule::to_json, yarn_rule::from_json, &yarn_rule::kFormulas};
extern const RopeTypeInfo kYarnType{"yarn", yarn_rule::read};

}  // namespace ropecheck::scaling_kinds

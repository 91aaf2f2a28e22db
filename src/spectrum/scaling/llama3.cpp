// Scaling::Kind::llama3: Llama 3.1's band rule (scaling.h); rope_type "llama3".
#include "io/input_error.h"
#include "spectrum/detail/hf_rope_dict.h"
#include "spectrum/detail/scaling_checks.h"
#include "spectrum/detail/spectrum_fields.h"
#include "spectrum/scaling_registry.h"
#include "spectrum/scaling_rules.h"

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

nlohmann::json to_json(const Scaling& s) {
  const Scaling l31 = Scaling::llama3_1();
  if (s.factor == l31.factor && s.low_freq_factor == l31.low_freq_factor && s.high_freq_factor == l31.high_freq_factor &&
      s.original_context == l31.original_context)
    return "llama3";
  return nlohmann::json{{"kind", "llama3"},
                        {"factor", s.factor},
                        {"low_freq_factor", s.low_freq_factor},
                        {"high_freq_factor", s.high_freq_factor},
                        {"original_context", s.original_context}};
}

Scaling from_json(const nlohmann::json& j, const JsonPlace& place) {
  using namespace spectrum_fields;
  scaling_keys(j, place, "llama3", {"factor", "low_freq_factor", "high_freq_factor", "original_context"});
  Scaling s = Scaling::llama3(positive_decimal(j, place, "factor"), positive_decimal(j, place, "low_freq_factor"),
                              positive_decimal(j, place, "high_freq_factor"), integer_at_least(j, place, "original_context", 1));
  // Exact decimal comparison: low = high is Llama 4 Scout's hard cut, low > high refused.
  try {
    check(s, 1);
  } catch (const InputError& e) {
    throw InputError(place.member("high_freq_factor").name(), e.accepted(), e.got());
  }
  return s;
}

// w = 2 pi / g; w < C/high keeps g, w > C/low gives g/factor, between them the smoothed blend.
template <Scalar T>
class Rule final : public FrequencyMap<T> {
 public:
  Rule(const Scaling& s, const T& theta, int)
      : FrequencyMap<T>(theta),
        factor_(from_decimal<T>(s.factor)),
        low_(from_decimal<T>(s.low_freq_factor)),
        high_(from_decimal<T>(s.high_freq_factor)),
        context_(T(s.original_context)),
        // low = high (exact decimals) leaves no middle band; the smoothed branch is then never taken.
        band_(s.low_freq_factor != s.high_freq_factor &&
              certainly_less(from_decimal<Interval>(s.low_freq_factor), from_decimal<Interval>(s.high_freq_factor))) {}

  T operator()(const T& g, int) const override {
    if (!certainly_positive(g)) return g;  // an unrotated pair has no wavelength to scale
    const T wavelength = T(T(2 * pi_value<T>()) / g);
    const T low_wavelength = T(context_ / low_);
    const T high_wavelength = T(context_ / high_);
    const T kept = g;
    const T interpolated = T(g / factor_);
    auto smoothed = [&] {
      const T smooth = T((context_ / wavelength - low_) / (high_ - low_));
      return T((1 - smooth) * g / factor_ + smooth * g);
    };
    if constexpr (is_interval_v<T>) {
      if (certainly_less(wavelength, high_wavelength)) return kept;
      if (certainly_less(low_wavelength, wavelength)) return interpolated;
      // Undecided: the hull of the branches whose wavelength region the interval meets. Each
      // branch encloses its formula over all of g and the rule is continuous at the thresholds,
      // so the hull stays as narrow as the inputs.
      this->decided_ = false;
      const bool meets_kept = lower_of(wavelength) < upper_of(high_wavelength);
      const bool meets_interpolated = upper_of(wavelength) > lower_of(low_wavelength);
      const bool meets_smoothed = band_ && upper_of(wavelength) >= lower_of(high_wavelength) &&
                                  lower_of(wavelength) <= upper_of(low_wavelength);
      T out = meets_smoothed ? smoothed() : meets_kept ? kept : interpolated;
      if (meets_kept) out = hull_of(out, kept);
      if (meets_interpolated) out = hull_of(out, interpolated);
      return out;
    } else {
      if (wavelength < high_wavelength) return kept;
      if (wavelength > low_wavelength || !band_) return interpolated;
      return smoothed();
    }
  }

 private:
  T factor_, low_, high_, context_;
  bool band_;
};
constexpr ScalingFormulas kFormulas = formulas_of<Rule>();
}  // namespace llama3_rule

extern const ScalingRuleInfo kLlama3{Scaling::Kind::llama3, "llama3", llama3_rule::describe, llama3_rule::check, llama3_rule::to_json, llama3_rule::from_json, &llama3_rule::kFormulas};
extern const RopeTypeInfo kLlama3Type{"llama3", llama3_rule::read};

}  // namespace ropecheck::scaling_kinds

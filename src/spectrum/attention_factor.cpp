#include "spectrum/attention_factor.h"

#include "numeric/decimal.h"

namespace ropecheck {

std::optional<std::string> stated_attention_factor(const Scaling& s) {
  // A kind with an attention factor returns the stated one first (scaling_rules.h).
  if (scaling_rule(s.kind).formulas->has_attention_factor()) return s.attention_factor;
  return std::nullopt;
}

bool unit_attention_factor(const Scaling& s) {
  const Interval a = attention_factor<Interval>(s);
  return lower_of(a) == 1 && upper_of(a) == 1;
}

Spectrum rotation_only(const Spectrum& s) {
  if (unit_attention_factor(s.scaling())) return s;
  Scaling rotation = s.scaling();
  rotation.attention_factor = "1";
  return s.with_scaling(rotation);
}

std::string attention_factor_text(const Scaling& s) {
  if (unit_attention_factor(s)) return "1";
  return to_decimal(midpoint(attention_factor<Interval>(s)), 17);
}

}  // namespace ropecheck

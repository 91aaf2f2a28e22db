#include "spectrum/detail/scaling_checks.h"

#include <stdexcept>

#include "io/input_error.h"
#include "spectrum/limits.h"

namespace ropecheck::scaling_checks {

std::optional<Interval> decimal_enclosure(const std::string& text) {
  try {
    return from_decimal<Interval>(text);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

bool positive_decimal(const std::string& text) {
  const auto x = decimal_enclosure(text);
  return x && certainly_positive(*x);
}

void require_positive(const std::string& name, const std::string& text) {
  if (!positive_decimal(text)) throw InputError(name, "a decimal > 0", text);
}

// A context-extension factor is a ratio of context lengths: at most kMaxLengthArgument (2^40,
// spectrum/limits.h). Far larger ones (1e308) made dynamic NTK's base fS/M - (f - 1) cancel to an
// enclosure straddling 0 at the working precision, which the power then refused (exit 3).
bool factor_decimal(const std::string& text) {
  const auto x = decimal_enclosure(text);
  return x && certainly_positive(*x) && upper_of(*x) <= Real(static_cast<double>(kMaxLengthArgument));
}

void require_factor(const std::string& name, const std::string& text) {
  if (!factor_decimal(text)) throw InputError(name, "a decimal in (0, 2^40]", text);
}

// The decimal texts are compared through enclosures, whose overlap at high precision means
// equality (two different decimals of a config's length are separated far above 2^-200).
bool decimal_at_most(const std::string& a, const std::string& b) {
  const auto x = decimal_enclosure(a), y = decimal_enclosure(b);
  return x && y && !certainly_less(*y, *x);
}

void require_context(const std::string& name, long long v) {
  if (v < 1) throw InputError(name, "an integer >= 1", std::to_string(v));
}

}  // namespace ropecheck::scaling_checks

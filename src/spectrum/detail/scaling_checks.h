// File: detail/scaling_checks.h
// The parameter checks the scaling rules share (scaling/<kind>.cpp, parse_scaling): decimals
// decided exactly through their enclosures, each refusal an InputError naming the parameter.
#pragma once

#include <optional>
#include <string>

#include "numeric/scalar.h"

namespace ropecheck::scaling_checks {

// The exact decimal text as an enclosure; nullopt when the text is not one decimal number.
std::optional<Interval> decimal_enclosure(const std::string& text);
// Decides d > 0 for a decimal d exactly (the enclosure of a decimal excludes 0 unless d = 0).
bool positive_decimal(const std::string& text);
void require_positive(const std::string& name, const std::string& text);
// A context-extension factor: a decimal in (0, 2^40] (kMaxLengthArgument, spectrum/limits.h).
bool factor_decimal(const std::string& text);
void require_factor(const std::string& name, const std::string& text);
// Decides a <= b for decimals exactly.
bool decimal_at_most(const std::string& a, const std::string& b);
// Refuses a context below 1: InputError(name, "an integer >= 1", v).
void require_context(const std::string& name, long long v);

}  // namespace ropecheck::scaling_checks

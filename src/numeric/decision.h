// File: decision.h
// A comparison of enclosures, as the endpoints decide it: certainly true, certainly false, or not
// decided. The three-valued atom of every verdict (certificate/decision.h combines them into a
// verdict; spectrum/rotations.h decides semantic pairs with it).
#pragma once

#include <string>

#include "numeric/scalar.h"

namespace ropecheck {

enum class Decision { yes, no, undecided };

// Returns: "yes", "no", "undecided".
inline std::string decision_name(Decision d) { return d == Decision::yes ? "yes" : d == Decision::no ? "no" : "undecided"; }

// Returns: yes when every point of a is below every point of b, no when every point of a is at or
// above every point of b, undecided when the enclosures overlap (endpoints only, see scalar.h).
inline Decision decide_less(const Real& a_lower, const Real& a_upper, const Real& b_lower, const Real& b_upper) {
  return a_upper < b_lower ? Decision::yes : a_lower >= b_upper ? Decision::no : Decision::undecided;
}
inline Decision decide_less(const Interval& a, const Interval& b) { return decide_less(lower_of(a), upper_of(a), lower_of(b), upper_of(b)); }

}  // namespace ropecheck
